// A request body → Params, by its content type: JSON, form or multipart, the way Mastodon
// reads them. No body (or an empty one) is no parameters, whatever its type; any other type,
// or a compressed body, is refused with 415.

import type { Params } from '../api/types.ts';
import { RookeryError } from '../errors.ts';
import { strictUtf8, utf8 } from './bytes.ts';
import { parseHeaderValue } from './header-params.ts';
import { multipartPairs, multipartTexts } from './multipart.ts';
import { nestParams, parseUrlEncoded } from './rack.ts';

export const MAX_JSON_DEPTH = 32;

export const bodyTexts = {
  badJson: 'Invalid request payload JSON format',
  jsonTooDeep: `JSON payload nested too deeply (at most ${MAX_JSON_DEPTH} levels)`,
  unsupported: 'Unsupported Media Type',
};

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const dropForbidden = (key: string, value: unknown) => (FORBIDDEN.has(key) ? undefined : value);

/** Whether brackets nest deeper than `max` outside strings; one pass, before parsing. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

function parseJson(body: Uint8Array): Params {
  const text = strictUtf8(body);
  if (text === null) throw new RookeryError(400, bodyTexts.badJson);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new RookeryError(400, bodyTexts.jsonTooDeep);
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
