// A read cache for rows that are read far more often than they change (statuses, accounts,
// users, applications). It is exactly as fresh as reading the file, with no invalidation
// messages to lose: every entry belongs to a generation of the data, and the generation moves
// whenever its table may have changed. Our own commits that changed something move it, and so
// does SQLite's data_version, which changes when any other connection (another process) has
// committed. Our own commits move only the tables they wrote, except for changes made to one
// row by Db.runOnRow (a counter): those make the caches keyed by that row forget it, and leave
// every other entry of the table where it was. A cache of rows found by their own unique key
// (a status by its id, a token by its hash), which never keeps a row's absence, is not made
// stale by rows added to its table either: an added row cannot be one it holds, so the statuses
// a server has cached stay cached while new ones are published. The data_version check is shared
// by the reads of one turn of the event loop, and made again whenever a request or a stream
// begins (Storage.freshen): a write another process acknowledged before a request arrived is
// always seen by that request.

import { forgetOldest } from '../../core/domain/maps.ts';
import type { Db } from './db.ts';

export class RowCache<K, V> {
  readonly #db: Db;
  readonly #tables: readonly string[];
  readonly #max: number;
  readonly #copy: (value: V) => V;
  readonly #byOwnKey: boolean;
  readonly #entries = new Map<K, { generation: number; value: V }>();

  /** `tables`: the table (or the tables of a join) the cached values are read from.
   * `byOwnKey`: each value is one row of one table, kept under that row's own unique key, and
   * only rows found are kept; then rows added to the table leave the entries as they are. */
  constructor(db: Db, tables: string | readonly string[], max: number, copy: (value: V) => V, { byOwnKey = false }: { byOwnKey?: boolean } = {}) {
    this.#db = db;
    this.#tables = typeof tables === 'string' ? [tables] : tables;
    if (byOwnKey && this.#tables.length !== 1) throw new Error('a cache of rows by their own key reads one table');
    this.#max = max;
    this.#copy = copy;
    this.#byOwnKey = byOwnKey;
  }

  /** A copy of the cached value, or undefined when it is missing or may be stale. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.generation !== this.#generation()) {
      this.#entries.delete(key);
      return undefined;
    }
    return this.#copy(entry.value);
  }

  /** Drops what it holds for `key` (its row changed without moving the table: Db.runOnRow). */
  forget(key: K): void {
    this.#entries.delete(key);
  }

  /** Keeps a value read now (inside no write transaction: a rolled-back write must not leave
   * what it read here). */
  set(key: K, value: V): void {
    if (this.#db.inWrite()) return;
    if (this.#entries.size >= this.#max && !this.#entries.has(key)) forgetOldest(this.#entries, this.#max);
    this.#entries.set(key, { generation: this.#generation(), value: this.#copy(value) });
  }

  /** Generations only grow: the largest of the tables' moves when any of them does. */
  #generation(): number {
    let latest = 0;
    for (const table of this.#tables) latest = Math.max(latest, this.#db.generation(table, this.#byOwnKey));
    return latest;
  }

  /** Reads through the cache: `load` is called for missing keys only, in one call. */
  many(keys: readonly K[], load: (missing: K[]) => V[], keyOf: (value: V) => K): V[] {
    const found: V[] = [];
    const missing: K[] = [];
    for (const key of keys) {
      const hit = this.get(key);
      if (hit === undefined) missing.push(key);
      else found.push(hit);
    }
    if (missing.length === 0) return found;
    for (const value of load(missing)) {
      this.set(keyOf(value), value);
      found.push(value);
    }
    return found;
  }
}
