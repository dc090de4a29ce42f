// A thin layer over node:sqlite's DatabaseSync: pragmas, a statement cache, write transactions
// that take the write lock up front, and the conversions between rows and model values.
//
// Ids are INTEGER columns bound and read as BigInt (the connection reads every integer as
// BigInt), so 64-bit ids never pass through a JS number; they become decimal strings here.

import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite';
import { isId } from '../../core/domain/ids.ts';
import { StorageConflict, type Page } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';

export type Row = Record<string, SQLOutputValue>;
export type Param = SQLInputValue;

export interface Db {
  readonly raw: DatabaseSync;
  all(sql: string, ...params: Param[]): Row[];
  get(sql: string, ...params: Param[]): Row | undefined;
  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, ...params: Param[]): number;
  /** Runs an INSERT; returns the rowid of the row it inserted. */
  insert(sql: string, ...params: Param[]): bigint;
  /** Runs an UPDATE of the one row of `table` that `rowKey` names, changing only columns that
   * no cache reads except those keyed by that row (its counters, say): the table's generation
   * stays where it is, and those caches forget the row once the change commits (onRowChange).
   * Returns the rows changed. */
  runOnRow(table: string, rowKey: string, sql: string, ...params: Param[]): number;
  /** `forget` hears the key of every row of `table` that runOnRow changed, once committed. */
  onRowChange(table: string, forget: (rowKey: string) => void): void;
  /** One atomic write, group-committed: the writes that arrive together in one turn of the
   * event loop run one after the other inside one BEGIN IMMEDIATE … COMMIT, each in its own
   * savepoint (a write that throws is rolled back alone and its promise rejects), and share one
   * fsync; each promise settles only after that COMMIT is durable. The write lock is taken
   * before the first read, so whatever `fn` decides from what it reads still holds when it
   * commits, for every connection and process sharing the file. Called inside a transaction
   * (from another write's `fn`), it runs there and then. */
  write<T>(fn: () => T): Promise<T>;
  /** One write transaction now (BEGIN IMMEDIATE … COMMIT, ROLLBACK on error), synchronously:
   * for opening the file (migrations) and for code already inside a write. Nested calls join. */
  writeNow<T>(fn: () => T): T;
  /** A write transaction that commits without waiting for the disk (synchronous=NORMAL): for
   * bookkeeping whose loss in a power cut is harmless (job leases and completions). Still
   * atomic and isolated; a later durable commit makes it durable too. */
  writeRelaxed<T>(fn: () => T): T;
  /** A number that changes whenever the rows of `table` may have changed since it was last
   * read: our own commits that changed that table, and any other connection's commit (SQLite's
   * data_version says only that something changed, so that moves every table). What read caches
   * (cache.ts) key their entries with. Other connections' commits are looked for once per turn
   * of the event loop, and again after every freshen(). `existingRows`: only changes to rows
   * the table already had (a row added by a plain INSERT leaves this one where it was). */
  generation(table: string, existingRows?: boolean): number;
  /** The next generation() looks for other connections' commits (Storage.freshen). */
  freshen(): void;
  /** A number that moves with every commit that changed rows, ours or another connection's,
   * looked for at every call (Storage.stamp). */
  stamp(): number;
  /** That number as this connection's reads and writes since the last stamp() found the file,
   * with no look of its own (Storage.stampSeen): each read snapshot and write transaction looks
   * for other connections' commits as it begins, so it moves if any of them began on a commit
   * made after that stamp, and with our own commits. */
  seen(): number;
  /** One read snapshot, for reads that take several statements. */
  read<T>(fn: () => T): T;
  /** Whether a write transaction is open (what it reads may yet be rolled back). */
  inWrite(): boolean;
  /** Whether writes wait for a group commit already on its way (write()). */
  commitPending(): boolean;
  /** Inside a write: `done(true)` once the transaction commits, `done(false)` if the write
   * (its savepoint in a group commit, or the whole transaction) is rolled back instead. */
  onCommit(done: (committed: boolean) => void): void;
  close(): void;
}

export interface OpenOptions {
  path: string;
  synchronous?: 'full' | 'normal' | undefined;
  /** The connection's page cache, in MiB (default DEFAULT_CACHE_MIB). */
  cacheMiB?: number | undefined;
}

/** SQLite's own default is 2 MiB: past a few hundred thousand statuses, a publish's reads of an
 * author's followers and their accounts missed it, each missed page a system call. With 64 MiB,
 * the growth bench's publish at 1M statuses cost 722 µs instead of 1,264 µs. Pages are kept as
 * they are read: a small store never fills it. */
export const DEFAULT_CACHE_MIB = 64;

const BUSY_TIMEOUT_MS = 5000;
const MAX_CACHED_STATEMENTS = 500;

/** Unique constraints (as SQLite names them in its error: expression indexes by name, the
 * others by their columns) → the StorageConflict rule. */
const UNIQUE_RULES: Record<string, string> = {
  "index 'accounts_acct'": 'username',
  "index 'users_email'": 'email',
  'statuses.account_id, statuses.reblog_of_id': 'reblog',
  'applications.client_id': 'clientId',
  'access_tokens.token_hash': 'tokenHash',
  'access_tokens.refresh_token_hash': 'refreshTokenHash',
  'authorization_codes.code_hash': 'codeHash',
  'web_sessions.id_hash': 'idHash',
  'preview_cards.url': 'url',
  'accounts.uri': 'uri',
  'statuses.uri': 'uri',
};

/** The table a write statement changes (none of ours writes through triggers). */
const WRITE_TARGET = /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+([A-Za-z_][A-Za-z0-9_]*)/i;
/** A write that can only add rows: a plain INSERT, with no conflict clause that could replace
 * or update a row already there (no table of ours declares one of its own either). */
const ONLY_ADDS = /^\s*INSERT\s+INTO\s/i;
const CONFLICT_CLAUSE = /\bON\s+CONFLICT\b/i;

const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** Turns a uniqueness violation into StorageConflict; anything else passes through. */
export function translateError(error: unknown): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') return error;
  const errcode = (error as { errcode?: unknown }).errcode;
  if (errcode === SQLITE_CONSTRAINT_PRIMARYKEY) return new StorageConflict('id', error.message);
  if (errcode === SQLITE_CONSTRAINT_UNIQUE) {
    const what = error.message.replace(/^UNIQUE constraint failed: /, '');
    return new StorageConflict(UNIQUE_RULES[what] ?? (what.endsWith('.id') ? 'id' : what), error.message);
  }
  return error;
}

export function openDb(options: OpenOptions): Db {
  const durable = options.synchronous === 'normal' ? 'NORMAL' : 'FULL';
  const raw = new DatabaseSync(options.path, { readBigInts: true, timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  try {
    raw.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    raw.exec('PRAGMA journal_mode = WAL');
    raw.exec(`PRAGMA synchronous = ${durable}`);
    raw.exec('PRAGMA foreign_keys = ON');
    // A group commit runs each write in a savepoint, and SQLite journals the pages a savepoint
    // changes: past 64 KiB that journal went to a temporary file, about twenty writes to it
    // per publish. In memory it costs no system call, and no more memory than the pages the
    // transaction changed.
    raw.exec('PRAGMA temp_store = MEMORY');
    raw.exec(`PRAGMA cache_size = ${-Math.trunc((options.cacheMiB ?? DEFAULT_CACHE_MIB) * 1024)}`);
  } catch (error) {
    raw.close();
    throw error;
  }

  /** Reads outside a write share one snapshot per turn of the event loop: a BEGIN at the
   * first read, its COMMIT when the turn ends (or a write, freshen() or stamp() comes first).
   * In WAL mode every statement run on its own takes and drops a read lock, two system calls;
   * a publish made a dozen such reads. */
  let reading = false;
  const beginRead = () => {
    if (reading || raw.isTransaction) return;
    raw.exec('BEGIN');
    reading = true;
    endTurn ??= setImmediate(nextTurn);
    // The snapshot's first statement takes its read lock: a look costs nothing more, and says
    // whether the snapshot holds another connection's commit (seen()).
    lookForOthers();
  };
  const inWrite = () => raw.isTransaction && !reading;
  const endRead = () => {
    if (!reading) return;
    reading = false;
    if (raw.isTransaction) raw.exec('COMMIT');
  };

  /** Tables written in the current transaction, each with whether rows it already had may
   * have changed (false: rows were only added); when each table last changed, and when rows it
   * already had last changed. */
  const written = new Map<string, boolean>();
  const changedAt = new Map<string, number>();
  const rewrittenAt = new Map<string, number>();
  let tick = 0;
  let externalAt = 0;

  const cache = new Map<string, { statement: StatementSync; table: string | null; onlyAdds: boolean }>();
  /** `marks`: whether the write moves its table's generation (not for runOnRow). */
  const stmt = (sql: string, marks = true): StatementSync => {
    let s = cache.get(sql);
    if (s === undefined) {
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.clear();
      const statement = raw.prepare(sql);
      statement.setReadBigInts(true);
      s = { statement, table: WRITE_TARGET.exec(sql)?.[1]?.toLowerCase() ?? null, onlyAdds: ONLY_ADDS.test(sql) && !CONFLICT_CLAUSE.test(sql) };
      cache.set(sql, s);
    }
    if (s.table !== null) {
      // A write outside any transaction commits at once: never inside the read snapshot.
      endRead();
      if (!marks) return s.statement;
      if (raw.isTransaction) written.set(s.table, written.get(s.table) === true || !s.onlyAdds);
      else {
        changedAt.set(s.table, ++tick);
        if (!s.onlyAdds) rewrittenAt.set(s.table, tick);
      }
    } else beginRead();
    return s.statement;
  };

  const dataVersion = raw.prepare('PRAGMA data_version');
  dataVersion.setReturnArrays(true);
  dataVersion.setReadBigInts(false);
  const totalChanges = raw.prepare('SELECT total_changes()');
  totalChanges.setReturnArrays(true);
  totalChanges.setReadBigInts(false);
  const changesNow = (): number => (totalChanges.get() as unknown as [number])[0];
  let lastDataVersion = (dataVersion.get() as unknown as [number])[0];
  // data_version costs a statement: it is asked once per turn of the event loop (nothing a
  // request waits for spans turns without a freshen() at its start), not once per read.
  let checkedThisTurn = false;
  let endTurn: ReturnType<typeof setImmediate> | null = null;
  /** Another connection's commit moves every table. Looked for outside the read snapshot (when
   * none is open): a request whose reads the caches answer makes no other statement, and a
   * snapshot begun and ended around this look alone cost a repeated favourite an eighth of
   * its time over HTTP. */
  const lookForOthers = () => {
    const version = (dataVersion.get() as unknown as [number])[0];
    if (version !== lastDataVersion) {
      lastDataVersion = version;
      externalAt = ++tick;
    }
  };
  function nextTurn() {
    checkedThisTurn = false;
    endTurn = null;
    endRead();
  }

  /** Writes waiting for the next group commit. */
  let pending: { fn: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];

  /** What the open write transaction tells when it ends (onCommit). */
  let endings: ((committed: boolean) => void)[] = [];
  const tellEnd = (committed: boolean, from = 0) => {
    const told = endings.splice(from);
    for (const done of told) done(committed);
  };

  /** Rows changed by runOnRow in the open transaction, by table; and who forgets them. */
  const rowsChanged = new Map<string, Set<string>>();
  const rowForgetters = new Map<string, ((rowKey: string) => void)[]>();
  const forgetRows = (table: string, rowKeys: Iterable<string>) => {
    for (const forget of rowForgetters.get(table) ?? []) for (const rowKey of rowKeys) forget(rowKey);
  };
  /** After a commit: the caches keyed by the rows it changed forget them. */
  const forgetChangedRows = () => {
    for (const [table, rowKeys] of rowsChanged) forgetRows(table, rowKeys);
    rowsChanged.clear();
  };

  /** Bumps the tables written since the transaction began, if rows changed. */
  const markWritten = (before: number) => {
    if (changesNow() !== before) {
      const at = ++tick;
      for (const [table, rewritten] of written) {
        changedAt.set(table, at);
        if (rewritten) rewrittenAt.set(table, at);
      }
    }
  };

  /** Runs every pending write in one transaction: each in a savepoint, one COMMIT for all. */
  const flush = () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    if (!raw.isOpen) {
      for (const write of batch) write.reject(new Error('the store is closed'));
      return;
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    endRead();
    const before = changesNow();
    written.clear();
    try {
      raw.exec('BEGIN IMMEDIATE');
      // What the writes read is the file as it is now: seen() must know if another connection
      // committed since the last look.
      lookForOthers();
      for (const write of batch) {
        raw.exec('SAVEPOINT w');
        const mark = endings.length;
        try {
          outcomes.push({ ok: true, value: write.fn() });
          raw.exec('RELEASE w');
        } catch (error) {
          raw.exec('ROLLBACK TO w');
          raw.exec('RELEASE w');
          tellEnd(false, mark);
          outcomes.push({ ok: false, error: translateError(error) });
        }
      }
      raw.exec('COMMIT');
      markWritten(before);
      forgetChangedRows();
    } catch (error) {
      // The lock could not be had, or the commit failed: nothing of the batch was written.
      if (raw.isTransaction) raw.exec('ROLLBACK');
      written.clear();
      rowsChanged.clear();
      tellEnd(false);
      for (const write of batch) write.reject(translateError(error));
      return;
    }
    written.clear();
    tellEnd(true);
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) write.resolve(outcome.value);
      else write.reject(outcome?.error);
    });
  };

  /** `bumps`: a commit that changed rows makes cached reads stale. */
  const transaction = <T>(begin: string, fn: () => T, bumps = true): T => {
    endRead();
    if (raw.isTransaction) return fn();
    const before = bumps ? changesNow() : 0;
    written.clear();
    raw.exec(begin);
    let result: T;
    try {
      lookForOthers();
      result = fn();
      raw.exec('COMMIT');
      if (bumps) markWritten(before);
      forgetChangedRows();
    } catch (error) {
      if (raw.isTransaction) raw.exec('ROLLBACK');
      rowsChanged.clear();
      tellEnd(false);
      throw translateError(error);
    } finally {
      written.clear();
    }
    tellEnd(true);
    return result;
  };

  return {
    raw,
    all: (sql, ...params) => stmt(sql).all(...params),
    get: (sql, ...params) => stmt(sql).get(...params),
    run: (sql, ...params) => Number(stmt(sql).run(...params).changes),
    insert: (sql, ...params) => BigInt(stmt(sql).run(...params).lastInsertRowid),
    runOnRow(table, rowKey, sql, ...params) {
      const changes = Number(stmt(sql, false).run(...params).changes);
      if (changes === 0) return 0;
      if (raw.isTransaction) {
        const rowKeys = rowsChanged.get(table);
        if (rowKeys === undefined) rowsChanged.set(table, new Set([rowKey]));
        else rowKeys.add(rowKey);
      } else {
        // Committed on its own: stamp() moves, the row is forgotten now.
        tick += 1;
        forgetRows(table, [rowKey]);
      }
      return changes;
    },
    onRowChange(table, forget) {
      const forgetters = rowForgetters.get(table);
      if (forgetters === undefined) rowForgetters.set(table, [forget]);
      else forgetters.push(forget);
    },
    write<T>(fn: () => T): Promise<T> {
      if (inWrite()) {
        try {
          return Promise.resolve(fn());
        } catch (error) {
          return Promise.reject(translateError(error));
        }
      }
      return new Promise<T>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      });
    },
    writeNow: (fn) => transaction('BEGIN IMMEDIATE', fn),
    // Job bookkeeping touches no cached row: it does not move the generation.
    writeRelaxed(fn) {
      endRead();
      if (raw.isTransaction || durable === 'NORMAL') return transaction('BEGIN IMMEDIATE', fn, false);
      raw.exec('PRAGMA synchronous = NORMAL');
      try {
        return transaction('BEGIN IMMEDIATE', fn, false);
      } finally {
        raw.exec(`PRAGMA synchronous = ${durable}`);
      }
    },
    freshen() {
      checkedThisTurn = false;
      // The next read takes a snapshot that holds what was committed before this call.
      endRead();
    },
    generation(table, existingRows = false) {
      if (!checkedThisTurn) {
        checkedThisTurn = true;
        endTurn ??= setImmediate(nextTurn);
        lookForOthers();
      }
      return Math.max(externalAt, (existingRows ? rewrittenAt : changedAt).get(table) ?? 0);
    },
    seen: () => tick,
    stamp() {
      // The look it takes serves the turn's reads too (generation); it must see commits made
      // since any snapshot this turn opened.
      endRead();
      checkedThisTurn = true;
      endTurn ??= setImmediate(nextTurn);
      lookForOthers();
      return tick;
    },
    read(fn) {
      beginRead();
      return fn();
    },
    inWrite,
    commitPending: () => pending.length > 0,
    onCommit(done) {
      if (!inWrite()) throw new Error('onCommit belongs inside a write transaction');
      endings.push(done);
    },
    close() {
      flush();
      endRead();
      cache.clear();
      if (raw.isOpen) raw.close();
    },
  };
}

// ---- values in --------------------------------------------------------------------------------

/** An id as the INTEGER it is stored as. Throws on anything that is not an id. */
export function key(id: Id): bigint {
  if (!isId(id)) throw new TypeError(`not an id: ${JSON.stringify(id)}`);
  return BigInt(id);
}
export function keyOrNull(id: Id | null): bigint | null {
  return id === null ? null : key(id);
}
/** For lookups: an id that cannot exist (not an id at all) gives null, so the lookup misses. */
export function lookupKey(id: Id): bigint | null {
  return isId(id) ? BigInt(id) : null;
}
/** A JSON array of integers, for `IN (SELECT value FROM json_each(?))`; non-ids are dropped. */
export function keyList(ids: Iterable<Id>): string {
  const valid: Id[] = [];
  for (const id of ids) if (isId(id)) valid.push(id);
  return `[${valid.join(',')}]`;
}
/** `column` among `ids`, as a condition with its one parameter: an equality for a single id (a
 * status read or just published, the common case), since json_each costs more than the lookup
 * it feeds; json_each for more. Non-ids are never matched. */
export function amongIds(column: string, ids: readonly Id[]): { sql: string; param: bigint | string } {
  const only = ids.length === 1 ? ids[0] : undefined;
  if (only !== undefined && isId(only)) return { sql: `${column} = ?`, param: BigInt(only) };
  return { sql: `${column} IN (SELECT value FROM json_each(?))`, param: keyList(ids) };
}
/** The rows of `select` (which ends in WHERE or AND) whose `column` is among `ids` (amongIds). */
export function allAmong(db: Db, select: string, column: string, ids: readonly Id[]): Row[] {
  const among = amongIds(column, ids);
  return db.all(`${select} ${among.sql}`, among.param);
}
export const flag = (b: boolean): number => (b ? 1 : 0);
export const jsonText = (v: unknown): string => JSON.stringify(v);

// ---- values out -------------------------------------------------------------------------------

export function id(v: SQLOutputValue | undefined): Id {
  if (typeof v === 'bigint') return v.toString();
  throw new TypeError(`expected an integer id, got ${typeof v}`);
}
export function idOrNull(v: SQLOutputValue | undefined): Id | null {
  return v === null || v === undefined ? null : id(v);
}
export function int(v: SQLOutputValue | undefined): number {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  throw new TypeError(`expected an integer, got ${typeof v}`);
}
export function intOrNull(v: SQLOutputValue | undefined): number | null {
  return v === null || v === undefined ? null : int(v);
}
/** REAL columns (and integers stored in them). */
export const num = int;
export function bool(v: SQLOutputValue | undefined): boolean {
  return v === 1n || v === 1;
}
export function text(v: SQLOutputValue | undefined): string {
  if (typeof v === 'string') return v;
  throw new TypeError(`expected text, got ${typeof v}`);
}
export function textOrNull(v: SQLOutputValue | undefined): string | null {
  return v === null || v === undefined ? null : text(v);
}
export function json<T>(v: SQLOutputValue | undefined): T {
  return JSON.parse(text(v)) as T;
}
export function jsonOrNull<T>(v: SQLOutputValue | undefined): T | null {
  return v === null || v === undefined ? null : json<T>(v);
}

/** Rows fetched by `IN (ids)` put back in the order of `ids` (first occurrence; misses skipped). */
export function inOrder<T>(ids: readonly Id[], items: T[], idOf: (item: T) => Id): T[] {
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const out: T[] = [];
  const seen = new Set<Id>();
  for (const i of ids) {
    const item = byId.get(i);
    if (item !== undefined && !seen.has(i)) {
      seen.add(i);
      out.push(item);
    }
  }
  return out;
}

// ---- pages ------------------------------------------------------------------------------------

export interface PageSql {
  /** " AND …" conditions on the cursor (empty when none). */
  where: string;
  /** " ORDER BY … LIMIT +?" */
  tail: string;
  whereParams: Param[];
  tailParams: Param[];
  /** Rows come back oldest first (minId) and must be reversed. */
  reverse: boolean;
}

/** The port's Page as SQL on `column`: newest first; maxId older; sinceId newer; minId the
 * `limit` rows right above it. With `zeroIsAll`, limit 0 means no limit. */
export function pageSql(column: string, page: Page, zeroIsAll = false): PageSql {
  let where = '';
  const whereParams: Param[] = [];
  if (page.maxId !== undefined) {
    where += ` AND ${column} < ?`;
    whereParams.push(key(page.maxId));
  }
  if (page.sinceId !== undefined) {
    where += ` AND ${column} > ?`;
    whereParams.push(key(page.sinceId));
  }
  if (page.minId !== undefined) {
    where += ` AND ${column} > ?`;
    whereParams.push(key(page.minId));
  }
  const reverse = page.minId !== undefined;
  const limit = zeroIsAll && page.limit === 0 ? -1 : Math.max(0, Math.trunc(page.limit));
  return { where, whereParams, tail: ` ORDER BY ${column} ${reverse ? 'ASC' : 'DESC'} LIMIT +?`, tailParams: [limit], reverse };
}

/** Runs `SELECT … WHERE <base>` paged by `column`; `base` must be a complete WHERE condition. */
export function paged<T>(db: Db, select: string, base: string, params: Param[], column: string, page: Page, map: (row: Row) => T, zeroIsAll = false): T[] {
  const p = pageSql(column, page, zeroIsAll);
  const rows = db.all(`${select} WHERE ${base}${p.where}${p.tail}`, ...params, ...p.whereParams, ...p.tailParams).map(map);
  return p.reverse ? rows.reverse() : rows;
}

/** Builds "col = ?, …" for the fields of `patch` that `columns` knows; undefined values skipped. */
export function setClause<P extends object>(patch: P, columns: { [K in keyof P]-?: [column: string, encode: (v: NonNullable<P[K]> | null) => Param] }): { sql: string; params: Param[] } {
  const parts: string[] = [];
  const params: Param[] = [];
  for (const k of Object.keys(columns) as (keyof P)[]) {
    if (!Object.hasOwn(patch, k)) continue;
    const v = patch[k];
    if (v === undefined) continue;
    const [column, encode] = columns[k];
    parts.push(`${column} = ?`);
    params.push(encode(v as NonNullable<P[typeof k]> | null));
  }
  return { sql: parts.join(', '), params };
}
