// Pages of rows that the core filters after reading them (visibility, blocks and mutes, the
// home feed's rules): a page is refilled from storage until it holds `limit` rows, so that a
// short page means the end and clients keep paging through Link headers.

import type { Id } from './model.ts';
import type { Page } from './ports/storage.ts';

export interface Slice<T> {
  /** Newest first. */
  items: T[];
  /** Cursor of the next (older) page, max_id; null when no more may exist. */
  next: Id | null;
  /** Cursor of the previous (newer) page; null when the page is empty. */
  prev: Id | null;
}

/** Rounds of reading before a page is given back short (pathological filtering). */
const MAX_ROUNDS = 8;

/**
 * Reads pages through `read` (which follows the storage Page contract: newest first, minId =
 * the rows just above it) and keeps what `keep` keeps, until `page.limit` rows are kept or
 * storage runs out. With minId the rows nearest the cursor win, as in storage.
 */
export async function fillPage<T>(
  page: Page,
  idOf: (item: T) => Id,
  read: (page: Page) => Promise<T[]>,
  keep: (rows: T[]) => Promise<T[]> = async (rows) => rows,
): Promise<Slice<T>> {
  const limit = page.limit;
  if (limit <= 0) return { items: [], next: null, prev: null };
  const upward = page.minId !== undefined;
  let cursor: Page = { ...page };
  let kept: T[] = [];
  let lastScanned: Id | null = null;
  let exhausted = false;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const rows = await read(cursor);
    const edge = upward ? rows[0] : rows[rows.length - 1];
    if (edge === undefined) {
      exhausted = true;
      break;
    }
    const fresh = await keep(rows);
    kept = upward ? [...fresh, ...kept] : [...kept, ...fresh];
    lastScanned = idOf(edge);
    if (rows.length < cursor.limit) {
      exhausted = true;
      break;
    }
    if (kept.length >= limit) break;
    cursor = upward ? { ...cursor, minId: lastScanned } : { ...cursor, maxId: lastScanned };
  }
  const items = upward ? kept.slice(-limit) : kept.slice(0, limit);
  const first = items[0];
  const last = items[items.length - 1];
  if (first === undefined || last === undefined) return { items: [], next: null, prev: null };
  const full = items.length >= limit;
  // Cut short by MAX_ROUNDS: continue from the last row read, not re-read the filtered ones.
  const cutShort = !full && !exhausted && lastScanned !== null;
  return {
    items,
    next: full ? idOf(last) : cutShort && !upward ? lastScanned : null,
    prev: cutShort && upward ? lastScanned : idOf(first),
  };
}
