// Values between the model and MongoDB documents, as pure functions.
//
// Ids. A model id (a Mastodon snowflake: a decimal string of a positive signed 64-bit integer) is
// the document's `_id` as that same string, never an ObjectId. Strings do not sort numerically
// ('9' > '10'), so every document that is paged or sorted by id also carries `num`: the id as a
// BSON Int64 (Long), which MongoDB compares as a number. Ranges and sorts use `num`; lookups use
// `_id`. Ids are never turned into JS numbers (they exceed 2^53).

import { Long } from 'mongodb';
import { compareIds, isId } from '../../core/domain/ids.ts';
import type { Id } from '../../core/domain/model.ts';
import type { Page } from '../../core/domain/ports/storage.ts';

export type Doc = Record<string, unknown>;

/** How collections are typed: string, number or composite `_id`s, never the ObjectId the
 * driver's default typing assumes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StoredDoc = { _id: string | number; [field: string]: any };

/** A document built here, as the driver takes it (every document this adapter inserts has its `_id`). */
export const stored = (doc: Doc): StoredDoc => doc as StoredDoc;

/** The id as the Int64 that `num` fields hold. Throws on anything that is not an id. */
export function num(id: Id): Long {
  if (!isId(id)) throw new TypeError(`not an id: ${JSON.stringify(id)}`);
  return Long.fromString(id);
}

/** For lookups by a caller's string: something that is not an id cannot exist, so the lookup
 * misses (null) instead of failing. */
export function lookupId(id: string): Id | null {
  return isId(id) ? id : null;
}

/** The ids among `ids` that can exist, each once, in their first order. */
export function validIds(ids: readonly string[]): Id[] {
  return [...new Set(ids.filter((id) => isId(id)))];
}

/** Lower case for ASCII letters only: the port's "case-insensitive (ASCII)". (toLowerCase would
 * also fold non-ASCII letters, which SQLite's lower() does not.) */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** A composite `_id` for a document that has no id of its own (markers, conversation mutes,
 * idempotency keys): the parts joined by ':'. The first part is always an id (digits only), so
 * the split is unambiguous whatever the second part holds. */
export function pairKey(first: Id, second: string): string {
  return `${first}:${second}`;
}

/** Items fetched by `$in` put back in the order of `ids` (first occurrence; misses skipped). */
export function inOrder<T>(ids: readonly string[], items: readonly T[], idOf: (item: T) => string): T[] {
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const out: T[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const item = byId.get(id);
    if (item !== undefined && !seen.has(id)) {
      seen.add(id);
      out.push(item);
    }
  }
  return out;
}

/** The port's default order: highest id first. */
export function newestFirst<T extends { id: Id }>(items: T[]): T[] {
  return items.sort((a, b) => compareIds(b.id, a.id));
}

// ---- pages ----------------------------------------------------------------------------------------

export interface PageQuery {
  /** The cursor condition on `num` (merge it into the filter), or null when the page has none. */
  range: { $lt?: Long; $gt?: Long } | null;
  /** Newest first (-1), except for minId: the rows right above it, read oldest first (1). */
  sort: 1 | -1;
  /** For the driver's limit(); 0 means every row (only with `zeroIsAll`). */
  limit: number;
  /** A page that selects nothing (limit 0): answer [] without asking the server, since the
   * driver reads limit 0 as "no limit". */
  empty: boolean;
  /** Rows come back oldest first (minId) and must be reversed. */
  reverse: boolean;
}

/** The port's Page on `num`: maxId = strictly older, sinceId = strictly newer (newest first),
 * minId = the `limit` rows right above it (still returned newest first). With `zeroIsAll`, limit 0
 * means all rows. */
export function pageQuery(page: Page, zeroIsAll = false): PageQuery {
  const range: { $lt?: Long; $gt?: Long } = {};
  if (page.maxId !== undefined) range.$lt = num(page.maxId);
  const above = [page.sinceId, page.minId].filter((x): x is Id => x !== undefined);
  for (const id of above) num(id); // both must be ids, whichever is larger
  const lowest = above.sort((a, b) => compareIds(b, a))[0];
  if (lowest !== undefined) range.$gt = num(lowest);
  const limit = Math.max(0, Math.trunc(page.limit));
  const reverse = page.minId !== undefined;
  return {
    range: range.$lt === undefined && range.$gt === undefined ? null : range,
    sort: reverse ? 1 : -1,
    limit,
    empty: limit === 0 && !zeroIsAll,
    reverse,
  };
}

/** `filter` with the page's cursor condition on `num` added. */
export function withRange(filter: Doc, page: PageQuery): Doc {
  return page.range === null ? filter : { ...filter, num: page.range };
}

/** A query's rows in the port's order (newest first). */
export function inPageOrder<T>(rows: T[], page: PageQuery): T[] {
  return page.reverse ? rows.reverse() : rows;
}

// ---- patches --------------------------------------------------------------------------------------

/** `$set` fields for the keys of `patch` that `allowed` lists, skipping undefined values (what
 * "absent" means in a patch); `prefix` addresses a subdocument ('user.'). */
export function setFields<P extends object>(patch: P, allowed: readonly (keyof P & string)[], prefix = ''): Doc {
  const set: Doc = {};
  for (const key of allowed) {
    if (!Object.hasOwn(patch, key)) continue;
    const value = patch[key];
    if (value !== undefined) set[prefix + key] = value;
  }
  return set;
}

/** A copy of `target` with the defined values of `patch` for the `allowed` keys. */
export function applyPatch<T extends object, K extends keyof T & string>(target: T, patch: Partial<Pick<T, K>>, allowed: readonly K[]): T {
  const out = { ...target };
  for (const key of allowed) {
    if (!Object.hasOwn(patch, key)) continue;
    const value = (patch as Partial<T>)[key];
    if (value !== undefined) out[key] = structuredClone(value) as T[K];
  }
  return out;
}

/** Moves a counter by one, never below zero (a decrement only matches while it is positive). */
export function counterUpdate(id: Id, field: string, delta: 1 | -1): { filter: Doc; update: Doc } {
  return delta === 1 ? { filter: { _id: id }, update: { $inc: { [field]: 1 } } } : { filter: { _id: id, [field]: { $gt: 0 } }, update: { $inc: { [field]: -1 } } };
}
