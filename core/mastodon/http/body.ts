// A request body → Params, by its content type: JSON, form or multipart, the way Mastodon
// reads them. No body (or an empty one) is no parameters, whatever its type; any other type,
// or a compressed body, is refused with 415.

import type { Params } from '../endpoint/types.ts';
import { RookeryError } from '../../domain/errors.ts';
import { strictUtf8, utf8 } from './bytes.ts';
import { parseHeaderValue } from './header-params.ts';
import { multipartPairs, multipartTexts } from './multipart.ts';
import { nestParams, parseUrlEncoded } from './rack.ts';

export const MAX_JSON_DEPTH = 32;
/** Members of objects and elements of arrays, all levels together: what MAX_PARAMS is to a
 * form, with room for the longest lists a client sends. */
export const MAX_JSON_VALUES = 10_000;

export const bodyTexts = {
  badJson: 'Invalid request payload JSON format',
  jsonTooDeep: `JSON payload nested too deeply (at most ${MAX_JSON_DEPTH} levels)`,
  jsonTooMany: `JSON payload has too many values (at most ${MAX_JSON_VALUES})`,
  unsupported: 'Unsupported Media Type',
};

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const dropForbidden = (key: string, value: unknown) => (FORBIDDEN.has(key) ? undefined : value);

/** Which bound the text breaks outside strings, if any: brackets nested deeper than
 * MAX_JSON_DEPTH, or more than MAX_JSON_VALUES values (counted by their separators and
 * openers, an upper bound). One pass, before parsing. */
function shapeError(text: string): string | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) return bodyTexts.jsonTooDeep;
      if (++values > MAX_JSON_VALUES) return bodyTexts.jsonTooMany;
    } else if (c === 125 || c === 93) depth--;
    else if (c === 44 && ++values > MAX_JSON_VALUES) return bodyTexts.jsonTooMany;
  }
  return null;
}

function parseJson(body: Uint8Array): Params {
  const text = strictUtf8(body);
  if (text === null) throw new RookeryError(400, bodyTexts.badJson);
  const shape = shapeError(text);
  if (shape !== null) throw new RookeryError(400, shape);
  let value: unknown;
  try {
    value = JSON.parse(text, dropForbidden);
  } catch {
    throw new RookeryError(400, bodyTexts.badJson);
  }
  // Parameters are named: a JSON array or scalar carries none.
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Params) : {};
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

export function parseBody(body: Uint8Array | null, contentType: string | string[] | undefined, contentEncoding: string | string[] | undefined): Params {
  if (body === null || body.byteLength === 0) return {};
  const encoding = firstValue(contentEncoding)?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') throw new RookeryError(415, bodyTexts.unsupported);
  const type = parseHeaderValue(firstValue(contentType) ?? '');
  switch (type.value) {
    case 'application/json':
      return parseJson(body);
    case 'application/x-www-form-urlencoded':
      return parseUrlEncoded(utf8(body), 'the request body');
    case 'multipart/form-data': {
      const boundary = type.params.get('boundary');
      if (boundary === undefined) throw new RookeryError(400, multipartTexts.malformed);
      return nestParams(multipartPairs(body, boundary));
    }
    default:
      throw new RookeryError(415, bodyTexts.unsupported);
  }
}
