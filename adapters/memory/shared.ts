// Helpers shared by the repositories of the memory adapter: copies, keys, pages, pair tables.

import { compareIds } from '../../core/domain/ids.ts';
import { StorageConflict, type Page } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';

export const clone = <T>(value: T): T => structuredClone(value);
export const pair = (a: string, b: string): string => `${a}\u0000${b}`;
export const uniqueIds = (ids: readonly Id[]): Id[] => [...new Set(ids)];
/** The port's default order for lists: newest (highest id) first. */
export const newestFirst = <T extends { id: Id }>(items: T[]): T[] => items.sort((a, b) => compareIds(b.id, a.id));

/** Object.assign for a patch, skipping keys whose value is undefined (absent, as SQL sees it). */
export function assignDefined<T extends object>(target: T, patch: Partial<T>): void {
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (target as Record<string, unknown>)[k] = clone(v);
}

export function decrement(n: number): number {
  return n > 0 ? n - 1 : 0;
}

/** Newest first by cursor; maxId/sinceId/minId as the port describes; limit 0 = all when asked. */
export function paginate<T>(items: Iterable<T>, cursor: (item: T) => Id, page: Page, zeroIsAll = false): T[] {
  const { maxId, sinceId, minId } = page;
  let rows: T[] = [];
  for (const item of items) {
    const c = cursor(item);
    if (maxId !== undefined && compareIds(c, maxId) >= 0) continue;
    if (sinceId !== undefined && compareIds(c, sinceId) <= 0) continue;
    if (minId !== undefined && compareIds(c, minId) <= 0) continue;
    rows.push(item);
  }
  const all = zeroIsAll && page.limit === 0;
  const limit = Math.max(0, page.limit);
  if (minId !== undefined) {
    rows.sort((a, b) => compareIds(cursor(a), cursor(b)));
    if (!all) rows = rows.slice(0, limit);
    return rows.reverse();
  }
  rows.sort((a, b) => compareIds(cursor(b), cursor(a)));
  return all ? rows : rows.slice(0, limit);
}

/** A table of rows with their own id, unique on a pair key (favourites, follows, blocks …). */
export class PairTable<T extends { id: Id }> {
  readonly byPair = new Map<string, T>();
  readonly byId = new Map<Id, string>();
  get(a: Id, b: Id): T | undefined {
    return this.byPair.get(pair(a, b));
  }
  /** Throws StorageConflict 'id' when the row's id is taken by another pair. */
  insert(a: Id, b: Id, row: T): void {
    if (this.byId.has(row.id)) throw new StorageConflict('id');
    const k = pair(a, b);
    this.byPair.set(k, row);
    this.byId.set(row.id, k);
  }
  remove(a: Id, b: Id): T | undefined {
    const k = pair(a, b);
    const row = this.byPair.get(k);
    if (row === undefined) return undefined;
    this.byPair.delete(k);
    this.byId.delete(row.id);
    return row;
  }
  values(): IterableIterator<T> {
    return this.byPair.values();
  }
}
