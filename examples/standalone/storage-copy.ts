// `npm run rookery -- storage copy --to postgres://…`: moves an instance from SQLite to
// PostgreSQL. Both stores are first opened with today's code, the core's and every plugin's
// migrations running on each, so that both hold today's schema. Then every table of the SQLite
// file is copied into the PostgreSQL database in one transaction, read from one snapshot of the
// file, and the rows are counted table by table before it commits: a copy that fails leaves
// the target as it was. The target must be empty.
//
// The columns of each table must match between the engines, except for the differences
// declared in DIFFERENCES; any other difference stops the copy before a row is written, rather
// than leaving a column behind. Integers are read as BigInt and written as decimal text, so a
// 64-bit id is never rounded.

import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { privateTypes } from '../../adapters/postgres/db.ts';
import { openPostgresStorage } from '../../adapters/postgres/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { federationKeyHash } from '../../plugins/federation/storage/postgres.ts';
import { STANDALONE_STORAGES } from './plugins.ts';

/** A copy that cannot be made, said in a sentence for the operator. Nothing was written. */
export class CopyError extends Error {}

/** Each engine's record of its own migrations: made by the open, never copied. */
const BOOKKEEPING = new Set(['schema_migrations', 'extension_migrations']);

type SqliteRow = Record<string, unknown>;

/** How the rows of one SQLite table enter one PostgreSQL table. */
interface Route {
  from: string;
  to: string;
  /** Columns only PostgreSQL has, with the value every row of this route gets. */
  fixed?: Record<string, boolean>;
  /** Columns only PostgreSQL has, computed from the row. */
  derived?: Record<string, (row: SqliteRow) => unknown>;
}

/** Where the two schemas differ on purpose; every other table is copied column for column. */
const DIFFERENCES: readonly Route[] = [
  // PostgreSQL keeps a follow and a follow request of one pair in one row, `pending` telling
  // them apart. created_by_write only tells the write that set it what that write did.
  { from: 'follows', to: 'follows', fixed: { pending: false, created_by_write: false } },
  { from: 'follow_requests', to: 'follows', fixed: { pending: true, created_by_write: false } },
  // PostgreSQL finds a federation key by its SHA-256.
  { from: 'federation_kv', to: 'federation_kv', derived: { key_hash: (row) => federationKeyHash(String(row['key'])) } },
];

export interface CopiedTable {
  from: string;
  to: string;
  rows: number;
}

interface PgColumn {
  name: string;
  /** udt_name: int8, int4, bool, text, float8, bytea, _int8 (an array) … */
  type: string;
  identity: boolean;
}

/** Which PostgreSQL column types take values of which SQLite declared type. */
const COMPATIBLE: Record<string, readonly string[]> = {
  INTEGER: ['int8', 'int4', 'int2', 'bool'],
  INT: ['int8', 'int4', 'int2', 'bool'],
  TEXT: ['text', '_int8', '_int4'],
  REAL: ['float8', 'float4'],
  BLOB: ['bytea'],
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** One SQLite value as the PostgreSQL column takes it; anything unexpected is an error naming
 * the table and column. */
function convert(value: unknown, type: string, where: string): unknown {
  if (value === null) return null;
  const wrong = (): never => {
    throw new CopyError(`${where}: cannot copy ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value)} into a ${type} column`);
  };
  switch (type) {
    case 'int8':
    case 'int4':
    case 'int2':
      return typeof value === 'bigint' ? value.toString() : wrong();
    case 'bool':
      return value === 0n ? false : value === 1n ? true : wrong();
    case 'text':
      return typeof value === 'string' ? value : wrong();
    case 'bytea':
      return value instanceof Uint8Array ? Buffer.from(value) : wrong();
    case 'float8':
    case 'float4':
      return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : wrong();
    case '_int8':
    case '_int4': {
      // SQLite keeps these integer arrays as JSON text.
      let parsed: unknown;
      try {
        parsed = typeof value === 'string' ? JSON.parse(value) : undefined;
      } catch {
        parsed = undefined;
      }
      return Array.isArray(parsed) && parsed.every((n) => Number.isSafeInteger(n)) ? parsed : wrong();
    }
    default:
      return wrong();
  }
}

/** Opens a store with today's code and every plugin storage the standalone instance has, so that
 * the core's and the plugins' migrations have run on it. */
async function migrateBoth(sqlitePath: string, postgresUrl: string): Promise<void> {
  const source = openSqliteStorage({ path: sqlitePath });
  try {
    for (const extension of STANDALONE_STORAGES) source.extend(extension);
  } finally {
    await source.close();
  }
  // No statement timeout: a plugin's migration may take long on a big table.
  const target = await openPostgresStorage({ url: postgresUrl, statementTimeoutMs: 0, applicationName: 'rookery storage copy' });
  for (const extension of STANDALONE_STORAGES) target.extend(extension);
  // Closing waits for the plugins' migrations.
  await target.close();
}

/** Tables in an order that inserts every referenced row before the rows that reference it. */
function parentsFirst(tables: readonly string[], references: readonly { child: string; parent: string }[]): string[] {
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const { child, parent } of references) if (child === table && parent !== table) visit(parent);
    ordered.push(table);
  };
  for (const table of [...tables].sort()) visit(table);
  return ordered.filter((table) => tables.includes(table));
}

export interface CopyOptions {
  /** The SQLite file (the instance's DATA_DIR/rookery.sqlite3). */
  sqlitePath: string;
  /** The PostgreSQL database to fill. */
  postgresUrl: string;
}

/** Copies every table; resolves with the rows of each once they are committed and counted. */
export async function copySqliteToPostgres({ sqlitePath, postgresUrl }: CopyOptions): Promise<CopiedTable[]> {
  // Opening would make an empty file where none is: a wrong DATA_DIR must not copy nothing.
  if (!existsSync(sqlitePath)) throw new CopyError(`There is no SQLite store at ${sqlitePath} (is DATA_DIR right?)`);
  await migrateBoth(sqlitePath, postgresUrl);

  const lite = new DatabaseSync(sqlitePath, { readOnly: true, readBigInts: true });
  const client = new pg.Client({ connectionString: postgresUrl, types: privateTypes, application_name: 'rookery storage copy' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // One snapshot of the file for everything read, counts included.
    lite.exec('BEGIN');
    await client.query('BEGIN');
    await client.query('SET LOCAL statement_timeout = 0');
    // Two copies into one database at once: the second waits, then finds it full.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('rookery.storage-copy:' || coalesce(current_schema(), ''), 0))");
    const copied = await copyTables(lite, client);
    await client.query('COMMIT');
    return copied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (lite.isTransaction) lite.exec('ROLLBACK');
    lite.close();
    await client.end().catch(() => undefined);
  }
}

async function copyTables(lite: DatabaseSync, client: pg.Client): Promise<CopiedTable[]> {
  const sqliteTables = new Map<string, { name: string; type: string }[]>();
  for (const { name } of lite.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]) {
    if (BOOKKEEPING.has(name)) continue;
    sqliteTables.set(name, (lite.prepare(`PRAGMA table_info(${quote(name)})`).all() as { name: string; type: string }[]).map((c) => ({ name: c.name, type: c.type.toUpperCase() })));
  }
  const pgTables = new Map<string, PgColumn[]>();
  const { rows: columnRows } = await client.query(
    `SELECT c.table_name, c.column_name, c.udt_name, c.is_identity FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
  );
  for (const r of columnRows as { table_name: string; column_name: string; udt_name: string; is_identity: string }[]) {
    if (BOOKKEEPING.has(r.table_name)) continue;
    const columns = pgTables.get(r.table_name) ?? [];
    columns.push({ name: r.column_name, type: r.udt_name, identity: r.is_identity === 'YES' });
    pgTables.set(r.table_name, columns);
  }

  // Every plugin storage must have run its migrations on both sides.
  const liteExtensions = (lite.prepare('SELECT DISTINCT extension FROM extension_migrations').all() as { extension: string }[]).map((r) => r.extension);
  const pgExtensions = new Set(((await client.query('SELECT DISTINCT extension FROM extension_migrations')).rows as { extension: string }[]).map((r) => r.extension));
  const problems: string[] = [];
  for (const name of liteExtensions) {
    if (!pgExtensions.has(name)) problems.push(`the "${name}" plugin storage has no tables in PostgreSQL (its migrations failed: start the instance on the database to see why)`);
  }

  const routes: Route[] = [];
  for (const table of sqliteTables.keys()) {
    const declared = DIFFERENCES.filter((route) => route.from === table);
    routes.push(...(declared.length > 0 ? declared : [{ from: table, to: table }]));
  }
  for (const table of pgTables.keys()) {
    if (!routes.some((route) => route.to === table)) problems.push(`table ${table} is in PostgreSQL but not in SQLite`);
  }
  for (const route of routes) {
    const liteColumns = sqliteTables.get(route.from) ?? [];
    const pgColumns = pgTables.get(route.to);
    if (pgColumns === undefined) {
      problems.push(`table ${route.from} is in SQLite but not in PostgreSQL`);
      continue;
    }
    const added = [...Object.keys(route.fixed ?? {}), ...Object.keys(route.derived ?? {})];
    for (const column of liteColumns) {
      const target = pgColumns.find((c) => c.name === column.name);
      if (target === undefined) problems.push(`column ${route.from}.${column.name} is in SQLite but not in PostgreSQL's ${route.to}`);
      else if (added.includes(column.name)) problems.push(`column ${route.from}.${column.name} is in SQLite now: the copy's declared difference for it is out of date`);
      else if (!(COMPATIBLE[column.type] ?? []).includes(target.type)) problems.push(`column ${route.from}.${column.name} is ${column.type} in SQLite but ${target.type} in PostgreSQL`);
    }
    for (const column of pgColumns) {
      if (!liteColumns.some((c) => c.name === column.name) && !added.includes(column.name)) problems.push(`column ${route.to}.${column.name} is in PostgreSQL but not in SQLite's ${route.from}`);
    }
  }
  if (problems.length > 0) throw new CopyError(`The SQLite and PostgreSQL schemas differ, so nothing was copied:\n  - ${problems.join('\n  - ')}`);

  const full: string[] = [];
  for (const table of pgTables.keys()) {
    if ((await client.query(`SELECT EXISTS (SELECT 1 FROM ${quote(table)}) AS full`)).rows[0]?.full === true) full.push(table);
  }
  if (full.length > 0) {
    throw new CopyError(`The PostgreSQL database is not empty (rows in ${full.slice(0, 5).join(', ')}${full.length > 5 ? ' …' : ''}): storage copy fills an empty database only`);
  }

  const { rows: references } = await client.query(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`,
  );
  const order = parentsFirst([...pgTables.keys()], references as { child: string; parent: string }[]);
  routes.sort((a, b) => order.indexOf(a.to) - order.indexOf(b.to) || a.from.localeCompare(b.from));

  const copied: CopiedTable[] = [];
  for (const route of routes) copied.push({ from: route.from, to: route.to, rows: await copyRoute(lite, client, route, pgTables.get(route.to) ?? []) });
  await continueSequences(lite, client, pgTables);
  await checkCounts(lite, client, routes);
  return copied;
}

/** Copies one SQLite table in batches of multi-row INSERTs; the number of rows. */
async function copyRoute(lite: DatabaseSync, client: pg.Client, route: Route, pgColumns: readonly PgColumn[]): Promise<number> {
  const fixed = route.fixed ?? {};
  const derived = route.derived ?? {};
  const fromSqlite = pgColumns.filter((c) => !Object.hasOwn(fixed, c.name) && !Object.hasOwn(derived, c.name));
  const names = pgColumns.map((c) => quote(c.name)).join(', ');
  // An identity column (the job queue's ids) keeps the ids it had.
  const overriding = pgColumns.some((c) => c.identity) ? ' OVERRIDING SYSTEM VALUE' : '';
  const perBatch = Math.max(1, Math.min(1000, Math.floor(30_000 / pgColumns.length)));
  let batch: unknown[][] = [];
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const params: unknown[] = [];
    const tuples = batch.map((values) => `(${values.map((value) => `$${params.push(value)}`).join(', ')})`);
    await client.query(`INSERT INTO ${quote(route.to)} (${names})${overriding} VALUES ${tuples.join(', ')}`, params);
    count += batch.length;
    batch = [];
  };
  const select = lite.prepare(`SELECT ${fromSqlite.map((c) => quote(c.name)).join(', ')} FROM ${quote(route.from)}`);
  for (const row of select.iterate() as Iterable<SqliteRow>) {
    batch.push(
      pgColumns.map((column) => {
        if (Object.hasOwn(fixed, column.name)) return fixed[column.name];
        const derive = derived[column.name];
        if (derive !== undefined) return derive(row);
        return convert(row[column.name], column.type, `${route.from}.${column.name}`);
      }),
    );
    if (batch.length >= perBatch) await flush();
  }
  await flush();
  return count;
}

/** An identity column's next value follows every id SQLite ever gave (AUTOINCREMENT remembers
 * ids of deleted rows too), so the queue's order goes on where it was. */
async function continueSequences(lite: DatabaseSync, client: pg.Client, pgTables: ReadonlyMap<string, readonly PgColumn[]>): Promise<void> {
  const sequences = lite.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'").get() !== undefined;
  for (const [table, columns] of pgTables) {
    for (const column of columns.filter((c) => c.identity)) {
      const copiedMax = (await client.query(`SELECT max(${quote(column.name)}) AS n FROM ${quote(table)}`)).rows[0]?.n as string | null;
      const given = sequences ? (lite.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table)?.['seq'] as bigint | undefined) : undefined;
      const last = [BigInt(copiedMax ?? 0), given ?? 0n].reduce((a, b) => (a > b ? a : b));
      if (last > 0n) await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3)', [quote(table), column.name, last.toString()]);
    }
  }
}

/** Counts every table on both sides (a route's rows apart where it shares its table). */
async function checkCounts(lite: DatabaseSync, client: pg.Client, routes: readonly Route[]): Promise<void> {
  const wrong: string[] = [];
  const expected = new Map<string, bigint>();
  for (const route of routes) {
    const inSqlite = lite.prepare(`SELECT count(*) AS n FROM ${quote(route.from)}`).get()?.['n'] as bigint;
    expected.set(route.to, (expected.get(route.to) ?? 0n) + inSqlite);
    const fixed = Object.entries(route.fixed ?? {});
    if (fixed.length === 0) continue;
    const where = fixed.map(([column], i) => `${quote(column)} = $${i + 1}`).join(' AND ');
    const inPostgres = BigInt((await client.query(`SELECT count(*) AS n FROM ${quote(route.to)} WHERE ${where}`, fixed.map(([, value]) => value))).rows[0]?.n as string);
    if (inPostgres !== inSqlite) wrong.push(`${route.from}: ${inSqlite} in SQLite, ${inPostgres} in PostgreSQL's ${route.to}`);
  }
  for (const [table, rows] of expected) {
    const inPostgres = BigInt((await client.query(`SELECT count(*) AS n FROM ${quote(table)}`)).rows[0]?.n as string);
    if (inPostgres !== rows) wrong.push(`${table}: ${rows} in SQLite, ${inPostgres} in PostgreSQL`);
  }
  if (wrong.length > 0) throw new CopyError(`The counts differ after the copy, so it was not committed:\n  - ${wrong.join('\n  - ')}`);
}
