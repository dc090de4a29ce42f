// A thin layer over node-postgres: one pool, private type parsers, statements whose errors come
// out in the port's terms, and transactions on one pooled connection.
//
// Isolation: every transaction runs at READ COMMITTED (the server's default). Each write decides
// under locks the statement itself takes (INSERT … ON CONFLICT, conditional UPDATE/DELETE, which
// re-check their condition on the newest row version, FOR UPDATE [SKIP LOCKED]) or under a
// transaction-scoped advisory lock taken first (pg_advisory_xact_lock), so that the statements
// after it see whatever the previous holder committed. Nothing relies on SERIALIZABLE; deadlocks
// (which rows are locked in which order is up to the planner) are retried.
//
// Type parsers are the pool's own, not pg's global ones (an embedding app may have changed
// those): int8 and numeric stay strings, so 64-bit ids never pass through a JS number.

import pg from 'pg';
import { RookeryError } from '../../core/domain/errors.ts';
import { StorageConflict } from '../../core/domain/ports/storage.ts';

export type Row = Record<string, unknown>;

/** Statements, each on its own (autocommit) or inside a transaction. */
export interface Sql {
  rows(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The first row, or undefined. */
  row(text: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** The number of rows the statement changed (or returned). */
  run(text: string, params?: readonly unknown[]): Promise<number>;
}

/** The statements of one transaction, on one connection. */
export interface Tx extends Sql {
  readonly inTransaction: true;
}

export interface Db extends Sql {
  /** Runs `body` in one transaction (BEGIN … COMMIT, ROLLBACK when it throws). A deadlock or a
   * serialization failure runs it again from the start, unless `body` called `tx`'s
   * noRetry() (it has handed out something that must not happen twice, such as an outbox call). */
  transaction<T>(body: (tx: Tx, noRetry: () => void) => Promise<T>): Promise<T>;
  /** The server's current snapshot as text (Storage.stamp), or null when it cannot be read. */
  stamp(): Promise<string | null>;
  close(): Promise<void>;
}

/** A snapshot (xmin:xmax:in-progress xids) changes whenever a transaction that wrote anything
 * ends, and only then: two equal snapshots see the same committed rows. A commit counts from
 * the moment it is visible, unlike a WAL position, which moves before the commit is. */
const SNAPSHOT = 'SELECT pg_current_snapshot()::text AS snapshot';

/** Stamp callers share queries: each waits for the first one sent after it asked (so it sees
 * every commit made before it asked), and at most one is in flight, however many ask. */
function sharedStamp(query: () => Promise<string | null>): () => Promise<string | null> {
  let waiting: ((stamp: string | null) => void)[] = [];
  let inFlight = false;
  const send = () => {
    const batch = waiting;
    waiting = [];
    inFlight = true;
    void query()
      .catch(() => null)
      .then((stamp) => {
        inFlight = false;
        for (const done of batch) done(stamp);
        if (waiting.length > 0) send();
      });
  };
  return () =>
    new Promise((done) => {
      waiting.push(done);
      if (!inFlight) send();
    });
}

const TEXT_PARSERS: Record<number, (value: string) => unknown> = {
  16: (v) => v === 't', // bool
  20: (v) => v, // int8: ids stay decimal strings
  21: Number, // int2
  23: Number, // int4
  26: Number, // oid
  700: Number, // float4
  701: Number, // float8
  1700: (v) => v, // numeric
};
const asText = (v: string) => v;

/** pg's `types` option: our parsers, and the raw text for any other type. */
export const privateTypes = {
  getTypeParser: (oid: number) => TEXT_PARSERS[oid] ?? asText,
};

/** Unique constraints and indexes (by name) → the StorageConflict rule. A primary key is 'id';
 * any other name not listed is its own rule. */
const UNIQUE_RULES: Record<string, string> = {
  accounts_acct: 'username',
  users_email: 'email',
  statuses_live_boost: 'reblog',
  applications_client_id: 'clientId',
  access_tokens_token_hash: 'tokenHash',
  access_tokens_refresh_token_hash: 'refreshTokenHash',
  authorization_codes_code_hash: 'codeHash',
  web_sessions_id_hash: 'idHash',
  accounts_uri: 'uri',
  statuses_uri: 'uri',
};

export function ruleOf(constraint: string): string {
  return UNIQUE_RULES[constraint] ?? (constraint.endsWith('_pkey') ? 'id' : constraint);
}

const UNIQUE_VIOLATION = '23505';
const DEADLOCK = '40P01';
const SERIALIZATION_FAILURE = '40001';
/** 22021: a string with U+0000 (text cannot hold it); 22P05: a character the database's
 * encoding lacks. What a client sent, not a fault of the server. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

export const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;

/** Driver errors in the port's terms; anything else passes through. */
export function translateError(error: unknown): unknown {
  const code = codeOf(error);
  if (code === UNIQUE_VIOLATION) {
    const constraint = (error as { constraint?: unknown }).constraint;
    return new StorageConflict(typeof constraint === 'string' ? ruleOf(constraint) : 'unique', (error as Error).message);
  }
  if (code !== undefined && UNSTORABLE_TEXT.has(code)) return new RookeryError(422, 'Validation failed: text must not contain the NUL character');
  return error;
}

const retryable = (error: unknown): boolean => {
  const code = codeOf(error);
  return code === DEADLOCK || code === SERIALIZATION_FAILURE;
};

const MAX_ATTEMPTS = 5;

/** Statements prepared on each connection, at most (see statementName). */
const MAX_PREPARED = 1_000;
const preparedNames = new Map<string, string>();
const PREPARABLE = /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i;

/** The name a statement is prepared under on each connection, or undefined to send it unnamed.
 * Unnamed, the server plans a statement at every execution, and planning the larger ones (the
 * relationship facts, the home timeline) cost it more than running them: 2 to 4 ms each. Named,
 * each connection parses it once and the server may keep its plan. The same text always has the
 * same name in this process; the first MAX_PREPARED texts are named, which bounds what each
 * connection holds (texts are built from a finite set of conditions, with values as parameters). */
function statementName(text: string): string | undefined {
  const known = preparedNames.get(text);
  if (known !== undefined) return known;
  if (preparedNames.size >= MAX_PREPARED || !PREPARABLE.test(text) || text.includes(';')) return undefined;
  const name = `rookery_${preparedNames.size}`;
  preparedNames.set(text, name);
  return name;
}

type Runner = { query: (config: pg.QueryConfig) => Promise<pg.QueryResult> };

function sqlOn(runner: Runner, retryDeadlocks: boolean): Sql {
  const query = async (text: string, params: readonly unknown[] = []): Promise<pg.QueryResult> => {
    const name = statementName(text);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await runner.query(name === undefined ? { text, values: params as unknown[] } : { name, text, values: params as unknown[] });
      } catch (error) {
        // One statement on its own is its own transaction: a deadlock aborted all of it, so it
        // can simply run again.
        if (retryDeadlocks && retryable(error) && attempt < MAX_ATTEMPTS) continue;
        throw translateError(error);
      }
    }
  };
  return {
    rows: async (text, params) => (await query(text, params)).rows as Row[],
    row: async (text, params) => (await query(text, params)).rows[0] as Row | undefined,
    run: async (text, params) => (await query(text, params)).rowCount ?? 0,
  };
}

export interface DbOptions {
  url: string;
  pool: number;
  statementTimeoutMs: number;
  applicationName: string;
}

export function openDb(options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.pool,
    types: privateTypes,
    application_name: options.applicationName,
    statement_timeout: options.statementTimeoutMs,
    // Waiting for a free connection counts like a statement: it ends, with an error.
    connectionTimeoutMillis: options.statementTimeoutMs,
    // A transaction left open by a crashed caller must not hold its locks forever.
    idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs, 60_000),
  });
  // An idle connection the server dropped (a restart): the pool forgets it and opens another.
  pool.on('error', () => undefined);
  const sql = sqlOn(pool, true);
  return {
    ...sql,
    async transaction<T>(body: (tx: Tx, noRetry: () => void) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt += 1) {
        let again = true;
        const client = await pool.connect().catch((error: unknown) => {
          throw translateError(error);
        });
        let broken: unknown;
        try {
          await client.query('BEGIN');
          const tx: Tx = { ...sqlOn(client, false), inTransaction: true };
          const result = await body(tx, () => {
            again = false;
          });
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: unknown) => {
            broken = rollbackError;
          });
          if (again && retryable(error) && attempt < MAX_ATTEMPTS) continue;
          throw translateError(error);
        } finally {
          // A connection whose ROLLBACK failed is in an unknown state: the pool closes it.
          client.release(broken instanceof Error ? broken : undefined);
        }
      }
    },
    stamp: sharedStamp(async () => {
      const row = (await pool.query({ name: 'rookery_stamp', text: SNAPSHOT })).rows[0] as Row | undefined;
      return typeof row?.['snapshot'] === 'string' ? row['snapshot'] : null;
    }),
    close: () => pool.end(),
  };
}
