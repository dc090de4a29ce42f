// Rack-style parameter keys, nested as Mastodon's web framework nests them:
// a[]=1&a[]=2 → {a: ['1', '2']}, poll[options][]=x → {poll: {options: ['x']}},
// fields_attributes[0][name]=x → {fields_attributes: {'0': {name: 'x'}}}, x[][y]=1 → {x: [{y: '1'}]}.
// Values stay strings (or files); the number of parameters and their depth are bounded, and
// keys that could reach an object's prototype are dropped.

import type { Params, UploadedFile } from '../endpoint/types.ts';
import { RookeryError } from '../../domain/errors.ts';

export type RackValue = string | UploadedFile;

export const MAX_PARAMS = 1000;
export const MAX_DEPTH = 5;

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export const rackTexts = {
  tooMany: `Too many parameters (at most ${MAX_PARAMS})`,
  tooDeep: `Parameters nested too deeply (at most ${MAX_DEPTH} levels)`,
  badEncoding: (where: string) => `Invalid %-encoding in ${where}`,
  conflict: (expected: string, got: string, key: string) => `Invalid parameters: expected ${expected} (got ${got}) for param "${key.slice(0, 100)}"`,
};

type Nested = Params | unknown[];

/** Only the plain objects made here are hashes; a file (a class instance) is a value. */
function isHash(value: unknown): value is Params {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'Array';
  return isHash(value) ? 'Hash' : 'String';
}

function own(params: Params, key: string): unknown {
  return Object.hasOwn(params, key) ? params[key] : undefined;
}

function arrayAt(params: Params, key: string): unknown[] {
  const current = own(params, key);
  if (current === undefined) return (params[key] = []) as unknown[];
  if (!Array.isArray(current)) throw new RookeryError(400, rackTexts.conflict('Array', typeName(current), key));
  return current;
}

function hashAt(params: Params, key: string): Params {
  const current = own(params, key);
  if (current === undefined) return (params[key] = {}) as Params;
  if (!isHash(current)) throw new RookeryError(400, rackTexts.conflict('Hash', typeName(current), key));
  return current;
}

/** Whether a nested key such as "[a][b]" already holds a value under `hash` (Rack's
 * params_hash_has_key?: decides whether x[][a] starts a new array element). */
function hasKeyPath(hash: Params, key: string): boolean {
  if (key.includes('[]')) return false;
  let node: unknown = hash;
  for (const part of key.split(/[[\]]+/)) {
    if (part === '') continue;
    if (!isHash(node) || !Object.hasOwn(node, part)) return false;
    node = node[part];
  }
  return true;
}

/** Splits a name into its first key and the rest, as Rack does at each depth. */
function split(name: string, depth: number): [string, string] {
  if (depth === 0) {
    const start = name.indexOf('[', 1);
    return start > 0 ? [name.slice(0, start), name.slice(start)] : [name, ''];
  }
  if (name.startsWith('[]')) return ['[]', name.slice(2)];
  const close = name.startsWith('[') ? name.indexOf(']', 1) : -1;
  return close > 0 ? [name.slice(1, close), name.slice(close + 1)] : [name, ''];
}

function normalize(params: Params, name: string, value: RackValue, depth: number): Nested {
  if (depth > MAX_DEPTH) throw new RookeryError(400, rackTexts.tooDeep);
  const [key, after] = split(name, depth);
  if (key === '' || FORBIDDEN.has(key)) return params;
  if (after === '') {
    if (key === '[]' && depth !== 0) return [value];
    params[key] = value;
  } else if (after === '[') {
    params[name] = value;
  } else if (after === '[]') {
    arrayAt(params, key).push(value);
  } else if (after.startsWith('[]')) {
    // x[][y]: a hash inside an array; a key already present starts the next element.
    const inner = after.slice(3, -1);
    const child = after[2] === '[' && after.endsWith(']') && inner !== '' && !inner.includes('[') && !inner.includes(']') ? inner : after.slice(2);
    const list = arrayAt(params, key);
    const last = list[list.length - 1];
    if (isHash(last) && !hasKeyPath(last, child)) normalize(last, child, value, depth + 1);
    else list.push(normalize({}, child, value, depth + 1));
  } else {
    params[key] = normalize(hashAt(params, key), after, value, depth + 1);
  }
  return params;
}

/** Nests name/value pairs in order; throws a 400 RookeryError for too many, too deep or
 * conflicting keys (a[]=1&a[b]=2). */
export function nestParams(pairs: Iterable<readonly [string, RackValue]>): Params {
  const params: Params = {};
  let count = 0;
  for (const [name, value] of pairs) {
    if (++count > MAX_PARAMS) throw new RookeryError(400, rackTexts.tooMany);
    normalize(params, name, value, 0);
  }
  return params;
}

const PLUS = /\+/g;

function formDecode(text: string, where: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(PLUS, ' '));
  } catch {
    throw new RookeryError(400, rackTexts.badEncoding(where));
  }
}

/** name=value pairs of a query string or form body ('+' is a space), in order. */
export function* urlEncodedPairs(text: string, where: string): Generator<[string, string]> {
  let count = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (++count > MAX_PARAMS) throw new RookeryError(400, rackTexts.tooMany);
      const piece = text.slice(start, end);
      const eq = piece.indexOf('=');
      const name = formDecode(eq < 0 ? piece : piece.slice(0, eq), where);
      yield [name, eq < 0 ? '' : formDecode(piece.slice(eq + 1), where)];
    }
    start = end + 1;
  }
}

/** A query string (without '?') or form body, nested. */
export function parseUrlEncoded(text: string, where: string): Params {
  return text === '' ? {} : nestParams(urlEncodedPairs(text, where));
}
