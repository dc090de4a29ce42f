// Moving an instance from SQLite to PostgreSQL with `npm run rookery -- storage copy --to …`,
// as an operator would: the instance of test/fixtures/upgrade (a database an older Rookery
// wrote, with rows in every core and plugin table, and its DATA_DIR) is served on SQLite, copied,
// and served again on the copy with the same DATA_DIR: the same answers, byte for byte, then a
// new post. Every row is compared between the engines, ids as decimal text. A pg_dump taken while
// it runs restores with pg_restore into a new database that serves the same. A target that is
// not empty, or whose columns differ, is refused before a row is written.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import t from 'tap';
import { openPostgresStorage } from '../../adapters/postgres/index.ts';
import { STANDALONE_STORAGES } from '../../examples/standalone/plugins.ts';
import { postgresProgram, testPostgres } from '../helpers/postgres.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, runCli, startInstance, stopInstance } from '../helpers/standalone.ts';

t.setTimeout(240_000);

const fixture = fileURLToPath(new URL('../fixtures/upgrade/', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'rookery-copy-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
cpSync(join(fixture, 'data'), dataDir, { recursive: true });
const sqlitePath = join(dataDir, 'rookery.sqlite3');
const made = new DatabaseSync(sqlitePath);
made.exec(readFileSync(join(fixture, 'rookery.sql'), 'utf8'));
made.close();

const postgres = await testPostgres(t.teardown.bind(t));
const port = await freePort();
const streamingPort = await freePort();
// Both runs answer as the same instance: the same domain, so the same URLs.
const sqliteEnv = childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(streamingPort), BIND: '127.0.0.1', RATE_LIMITS: 'false', LOG_LEVEL: 'warn' });
const base = `http://127.0.0.1:${port}`;

/** What alice's clients and other servers are shown: the same on either engine. */
async function snapshot(token: string): Promise<Record<string, unknown>> {
  const get = async (path: string, accept = 'application/json') => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, accept } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const me = await get('/api/v1/accounts/verify_credentials');
  const statuses = await get(`/api/v1/accounts/${me.id}/statuses?limit=40`);
  const shown: Record<string, unknown> = { me, statuses };
  for (const path of [
    '/api/v1/timelines/home?limit=40',
    '/api/v1/timelines/public?limit=40',
    '/api/v1/notifications?limit=40',
    '/api/v1/scheduled_statuses',
    '/api/v1/favourites',
    '/api/v1/bookmarks',
    '/api/v1/lists',
    '/api/v2/filters',
    '/api/v1/markers?timeline[]=home&timeline[]=notifications',
    '/api/v1/blocks',
    '/api/v1/mutes',
    '/api/v1/domain_blocks',
    '/api/v1/follow_requests',
    `/api/v1/accounts/${me.id}/followers`,
    `/api/v1/accounts/${me.id}/following`,
    '/api/v2/instance',
  ]) {
    shown[path] = await get(path);
  }
  for (const status of statuses) {
    shown[`context ${status.id}`] = await get(`/api/v1/statuses/${status.id}/context`);
    shown[`history ${status.id}`] = await get(`/api/v1/statuses/${status.id}/history`);
  }
  // The actor other servers read: its key comes from the federation plugin's table.
  shown['actor'] = await get('/users/alice', 'application/activity+json');
  return shown;
}

type Canonical = string[];

/** A value as decimal text or JSON, whichever engine it came from: an integer (BigInt, int8
 * text), a boolean (1/0, true/false), an integer array (JSON text, int[]). */
function canonical(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Array.isArray(value)) return JSON.stringify(value.map(Number));
  if (typeof value === 'string' && /^\[[\d,\s]*\]$/.test(value)) return JSON.stringify(JSON.parse(value));
  return value;
}
const rowText = (row: Record<string, unknown>, columns: readonly string[]) => JSON.stringify(columns.map((c) => canonical(row[c])));

t.test('an instance moves from SQLite to PostgreSQL and serves the same', async (t) => {
  // A token issued on SQLite: it must work on the copy.
  const token = cli(sqliteEnv, 'tokens', 'issue', 'alice', '--scopes', 'read');
  const onSqlite = await startInstance(sqliteEnv);
  const before = await snapshot(token);
  await stopInstance(onSqlite);
  t.match(before, { statuses: [{}, {}, {}, {}] }, 'the fixture has statuses to compare');

  const copy = runCli(sqliteEnv, 'storage', 'copy', '--to', postgres.url);
  t.equal(copy.status, 0, copy.stderr);
  const lines = copy.stdout.trim().split('\n');
  // Every table the current schema has (the start above migrated the fixture), whatever later
  // migrations add: a table the copy forgets shows here.
  const tableCount = (() => {
    const lite = new DatabaseSync(sqlitePath, { readOnly: true });
    try {
      return (lite.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'extension_migrations')").get() as { n: number }).n;
    } finally {
      lite.close();
    }
  })();
  t.ok(tableCount >= 42, `${tableCount} tables in the migrated fixture`);
  t.equal(lines[0], `Copied ${sqlitePath} into ${postgres.url}:`);
  t.equal(lines.filter((line) => /^ {2}\w+ +\d+( {2}\(into \w+\))?$/.test(line)).length, tableCount, 'one line per table');
  t.ok(lines.some((line) => /^ {2}follow_requests +1 {2}\(into follows\)$/.test(line)), 'follow requests go into follows');
  t.ok(lines.some((line) => /^ {2}statuses +9$/.test(line)), 'nine statuses');
  t.match(lines.at(-2), new RegExp(`^\\d+ rows from ${tableCount} tables, every count checked\\.$`));
  t.equal(lines.at(-1), 'The media files and keys stay in DATA_DIR: start the instance with DATABASE_URL set to that database and the same DATA_DIR.');

  await t.test('every row, column by column, ids exact', async (t) => {
    const lite = new DatabaseSync(sqlitePath, { readOnly: true, readBigInts: true });
    t.teardown(() => lite.close());
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    t.teardown(() => client.end());
    const tables = (lite.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'extension_migrations') ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    let wide = 0;
    for (const table of tables) {
      const columns = (lite.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
      const liteRows: Canonical = lite.prepare(`SELECT * FROM "${table}"`).all().map((row) => rowText(row, columns)).sort();
      const [target, where] = table === 'follow_requests' ? ['follows', 'WHERE pending'] : table === 'follows' ? ['follows', 'WHERE NOT pending'] : [table, ''];
      const pgRows: Canonical = (await client.query(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${target}" ${where}`)).rows.map((row) => rowText(row, columns)).sort();
      t.same(pgRows, liteRows, `${table}: ${liteRows.length} rows alike`);
      wide += lite.prepare(`SELECT * FROM "${table}"`).all().filter((row) => Object.values(row).some((v) => typeof v === 'bigint' && v > BigInt(Number.MAX_SAFE_INTEGER))).length;
    }
    t.ok(wide > 0, `${wide} rows hold integers past 2^53: a rounded id would show`);
    const hashed = await client.query("SELECT count(*) FILTER (WHERE key_hash = sha256(convert_to(key, 'UTF8')))::int AS ok, count(*)::int AS n FROM federation_kv");
    t.same(hashed.rows, [{ ok: hashed.rows[0].n, n: hashed.rows[0].n }], 'each federation key under its SHA-256');
    const sequence = await client.query("SELECT nextval(pg_get_serial_sequence('jobs', 'id'))::text AS next");
    const lastJob = lite.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'jobs'").get()?.['seq'] as bigint;
    t.equal(sequence.rows[0].next, String(lastJob + 1n), 'the next job id follows the last SQLite gave');
  });

  const pgEnv = { ...sqliteEnv, DATABASE_URL: postgres.url };
  const writer = cli(pgEnv, 'tokens', 'issue', 'alice', '--scopes', 'read write');
  const onPostgres = await startInstance(pgEnv);
  t.teardown(() => stopInstance(onPostgres));
  const after = await snapshot(token);
  t.same(after, before, 'the same answers: statuses with media, poll and card, notifications, the actor');

  const media = (before['statuses'] as any[]).flatMap((s) => s.media_attachments);
  t.ok(media.length > 0, 'with media');
  for (const attachment of media) {
    const served = await fetch(attachment.url.replace(/^http:\/\/[^/]+/, base));
    t.equal(served.status, 200, `${attachment.url} served from DATA_DIR`);
  }

  const posted = await fetch(`${base}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'Hello from PostgreSQL', poll: { options: ['yes', 'no'], expires_in: 3600 } }),
  });
  t.equal(posted.status, 200);
  const status = (await posted.json()) as { id: string; content: string; poll: { options: { title: string }[] } };
  t.match(status, { content: '<p>Hello from PostgreSQL</p>', poll: { options: [{ title: 'yes' }, { title: 'no' }] } });
  const mine = (await (await fetch(`${base}/api/v1/accounts/${(before['me'] as { id: string }).id}/statuses`, { headers: { authorization: `Bearer ${writer}` } })).json()) as { id: string }[];
  t.equal(mine[0]?.id, status.id, 'the new post is the newest of the account');
  t.ok(BigInt(status.id) > BigInt((before['statuses'] as { id: string }[])[0]?.id ?? '0'), 'with an id after the copied ones');

  await t.test('a pg_dump taken while it runs restores with pg_restore and serves the same', async (t) => {
    const dump = join(dataDir, 'rookery.dump');
    const withPost = await snapshot(token);
    execFileSync(postgresProgram('pg_dump'), ['--format=custom', `--file=${dump}`, `--dbname=${postgres.url}`]);
    await stopInstance(onPostgres);
    const restored = await postgres.freshDatabase();
    execFileSync(postgresProgram('pg_restore'), ['--no-owner', `--dbname=${restored.url}`, dump]);
    const onRestored = await startInstance({ ...pgEnv, DATABASE_URL: restored.url });
    t.teardown(() => stopInstance(onRestored));
    t.same(await snapshot(token), withPost, 'the same answers, the new post included');
  });

  await t.test('a second copy into the same database is refused', async (t) => {
    const again = runCli(sqliteEnv, 'storage', 'copy', '--to', postgres.url);
    t.same([again.status, again.stdout, again.stderr.trim()], [1, '', 'The PostgreSQL database is not empty (rows in access_tokens, account_activity, accounts, applications, blocks …): storage copy fills an empty database only']);
  });
});

t.test('columns or tables that differ stop the copy before a row is written', async (t) => {
  const { url } = await postgres.freshDatabase();
  // Today's schema, then a table and two columns the other engine has not.
  const storage = await openPostgresStorage({ url });
  for (const extension of STANDALONE_STORAGES) storage.extend(extension);
  await storage.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  await client.query('ALTER TABLE statuses ADD COLUMN mood text; ALTER TABLE polls DROP COLUMN hide_totals; CREATE TABLE stray (id bigint)');
  const copy = runCli(sqliteEnv, 'storage', 'copy', '--to', url);
  t.equal(copy.status, 1);
  t.equal(
    copy.stderr.trim(),
    [
      'The SQLite and PostgreSQL schemas differ, so nothing was copied:',
      '  - table stray is in PostgreSQL but not in SQLite',
      "  - column polls.hide_totals is in SQLite but not in PostgreSQL's polls",
      "  - column statuses.mood is in PostgreSQL but not in SQLite's statuses",
    ].join('\n'),
  );
  const counts = await client.query('SELECT (SELECT count(*) FROM accounts)::int + (SELECT count(*) FROM statuses)::int + (SELECT count(*) FROM polls)::int AS n');
  t.same(counts.rows, [{ n: 0 }], 'nothing was written');
});

t.test('a DATA_DIR without a store, or a target that is not PostgreSQL, is said in one line', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'rookery-copy-empty-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const missing = runCli(childEnv({ DATA_DIR: empty }), 'storage', 'copy', '--to', postgres.url);
  t.same([missing.status, missing.stderr.trim()], [1, `There is no SQLite store at ${join(empty, 'rookery.sqlite3')} (is DATA_DIR right?)`]);
  const wrong = runCli(childEnv({ DATA_DIR: empty }), 'storage', 'copy', '--to', 'mysql://rookery:hunter2@127.0.0.1/rookery');
  t.same([wrong.status, wrong.stderr.trim()], [1, '--to must be a PostgreSQL connection string: postgres://user[:password]@host[:port]/database']);
  const none = runCli(childEnv({ DATA_DIR: empty }), 'storage', 'copy');
  t.equal(none.status, 2);
  t.match(none.stderr, /^storage copy needs --to postgres:\/\/… \(or DATABASE_URL\)\.\nUsage:/);
});
