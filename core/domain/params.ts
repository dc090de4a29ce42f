// Reading request parameters the way Mastodon (Rails) does: form values arrive as strings,
// JSON values as themselves, and both must mean the same thing.

import type { RookeryError } from './errors.ts';
import { isId } from './ids.ts';
import type { Id } from './model.ts';
import type { Page } from './ports/storage.ts';

export type Params = Record<string, unknown>;

/** The most bytes a file parameter may hold, and the error that refuses one past it: what an
 * endpoint (or a profile hook) tells the transport so that it stops reading a file there. */
export interface FileLimit {
  maxBytes: number;
  refusal: RookeryError;
}

const FALSE_VALUES = new Set(['0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/** A string parameter; numbers and booleans are taken as their text; anything else is absent. */
export function str(params: Params, name: string): string | undefined {
  const value = params[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Rails' boolean cast: absent or "" → undefined; "0", "f", "false", "off" (any case form Rails
 * knows) and false/0 → false; any other value → true. */
export function bool(params: Params, name: string): boolean | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return !FALSE_VALUES.has(value);
  return true;
}

/** An array parameter (a[]=1&a[]=2, a JSON array, or a lone value); empty strings dropped. */
export function strArray(params: Params, name: string): string[] | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [value];
  return items.flatMap((item) => (typeof item === 'string' ? (item === '' ? [] : [item]) : typeof item === 'number' ? [String(item)] : []));
}

/** An integer parameter; undefined when absent or not an integer. */
export function int(params: Params, name: string): number | undefined {
  const value = params[name];
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

/** A nested object parameter (poll[options][]=… arrives as {poll: {options: […]}}). */
export function obj(params: Params, name: string): Params | undefined {
  const value = params[name];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : undefined;
}

/** Whether a parameter was sent with a non-empty value. */
export function present(params: Params, name: string): boolean {
  const value = params[name];
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some((v) => v !== '' && v !== null && v !== undefined);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Mastodon's paging parameters: limit is abs(int), clamped to max, default when absent;
 * cursors that are not ids are ignored. */
export function page(params: Params, defaultLimit: number, maxLimit: number): Page {
  const raw = int(params, 'limit');
  const limit = raw === undefined ? defaultLimit : Math.min(Math.abs(raw), maxLimit);
  const cursor = (name: string): Id | undefined => {
    const value = str(params, name);
    return value !== undefined && isId(value) ? value : undefined;
  };
  return { maxId: cursor('max_id'), sinceId: cursor('since_id'), minId: cursor('min_id'), limit };
}
