// A database written by Rookery before the plugins owned their tables opens with today's code
// and loses nothing. test/fixtures/upgrade holds one: rows of every core table and of every
// built-in plugin (media with its files, polls and votes, a scheduled status, a preview card, a
// push subscription, federation keys and a remote account, status and vote), made by make.ts
// through the API of two federating instances on the code of that day.
//
// First the upgrade itself: the store and every plugin's storage are opened (their migrations
// run) and every row is compared with what the file held. Then the standalone instance serves
// it: the statuses with their media, poll and card, the media files' bytes.

import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import { cardStorage, mediaStorage, pollStorage, pushStorage, scheduledStorage } from '../../../plugins/index.ts';
import { childEnv, freePort } from '../../helpers/processes.ts';
import { cli, startInstance, stopInstance } from '../../helpers/standalone.ts';

const fixture = fileURLToPath(new URL('../../fixtures/upgrade/', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'rookery-upgrade-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
cpSync(join(fixture, 'data'), dataDir, { recursive: true });
const path = join(dataDir, 'rookery.sqlite3');
const made = new DatabaseSync(path);
made.exec(readFileSync(join(fixture, 'rookery.sql'), 'utf8'));
made.close();

type Rows = Map<string, string[]>;

/** Every row of every table, each as canonical JSON of its columns (integers as decimal text:
 * ids do not fit a JS number); with `columnsOf`, only those columns of each table (what an
 * older file had: later migrations may add columns, whose values are not the file's). */
function rowsOf(file: string, columnsOf?: ReadonlyMap<string, readonly string[]>): Rows {
  const db = new DatabaseSync(file, { readBigInts: true, readOnly: true });
  const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const rows: Rows = new Map();
  for (const table of tables) {
    const only = columnsOf?.get(table);
    rows.set(
      table,
      db.prepare(`SELECT * FROM "${table}"`).all().map((row) =>
        JSON.stringify(
          Object.entries(row).filter(([column]) => only === undefined || only.includes(column)).sort(([a], [b]) => (a < b ? -1 : 1)),
          (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
        ),
      ),
    );
  }
  db.close();
  return rows;
}

/** Each table's columns. */
function columnsOf(file: string): Map<string, string[]> {
  const db = new DatabaseSync(file, { readOnly: true });
  const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
  const columns = new Map(tables.map((table) => [table, (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name)]));
  db.close();
  return columns;
}

/** Every file of DATA_DIR but the database's own, with the SHA-256 of its bytes. */
function filesOf(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (!name.startsWith('rookery.sqlite3')) found.set(relative(dir, full), createHash('sha256').update(readFileSync(full)).digest('hex'));
    }
  };
  walk(dir);
  return found;
}

const before = rowsOf(path);
const columnsBefore = columnsOf(path);
const filesBefore = filesOf(dataDir);

t.test('the fixture holds what it must', async (t) => {
  for (const table of ['accounts', 'statuses', 'media_attachments', 'polls', 'poll_votes', 'scheduled_statuses', 'preview_cards', 'status_cards', 'push_subscriptions', 'federation_kv', 'favourites', 'follows', 'follow_requests', 'blocks', 'notifications', 'access_tokens']) {
    t.ok((before.get(table)?.length ?? 0) > 0, `rows in ${table}`);
  }
  t.ok([...filesBefore.keys()].some((file) => file.startsWith('media/')), 'media files');
});

t.test('opening the store and every plugin storage keeps every row as it was', async (t) => {
  const storage = openSqliteStorage({ path });
  for (const extension of [mediaStorage, pollStorage, scheduledStorage, cardStorage, pushStorage, federationStorage]) storage.extend<unknown>(extension);
  await storage.close();
  const after = rowsOf(path, columnsBefore);
  const added = [...after.keys()].filter((table) => !before.has(table));
  t.same([...before.keys()].filter((table) => !after.has(table)), [], `every table is still there (new ones, from later migrations: ${added.join(', ') || 'none'})`);
  const columnsAfter = columnsOf(path);
  for (const [table, columns] of columnsBefore) t.same(columns.filter((column) => !(columnsAfter.get(table) ?? []).includes(column)), [], `${table}: every column still there`);
  for (const [table, rows] of before) {
    const now = new Set(after.get(table));
    const lost = rows.filter((row) => !now.has(row));
    t.same(lost, [], `${table}: all ${rows.length} rows unchanged in the columns they had`);
    // The migrations' own records gain the versions applied now; no other table gains a row.
    if (table !== 'schema_migrations' && table !== 'extension_migrations') t.equal(after.get(table)?.length, rows.length, `${table}: no row added`);
  }
  t.same(filesOf(dataDir), filesBefore, 'every file, byte for byte');
});

t.test('a new database gets the same tables, the plugins making their own', async (t) => {
  const freshPath = join(dataDir, 'fresh.db');
  const fresh = openSqliteStorage({ path: freshPath });
  const coreOnly = rowsOf(freshPath);
  for (const table of ['media_attachments', 'polls', 'poll_votes', 'scheduled_statuses', 'preview_cards', 'status_cards']) t.notOk(coreOnly.has(table), `the core made no ${table}`);
  for (const extension of [mediaStorage, pollStorage, scheduledStorage, cardStorage, pushStorage, federationStorage]) fresh.extend<unknown>(extension);
  await fresh.close();
  const shape = (file: string) => {
    const db = new DatabaseSync(file, { readOnly: true });
    const objects = db.prepare("SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; tbl_name: string }[];
    const columns = objects.filter((o) => o.type === 'table').map((o) => ({ table: o.name, columns: db.prepare(`PRAGMA table_info("${o.name}")`).all() }));
    db.close();
    return { objects, columns };
  };
  t.same(shape(freshPath), shape(path), 'tables, columns and indexes alike');
  for (const suffix of ['', '-wal', '-shm']) rmSync(freshPath + suffix, { force: true });
});

t.test('the standalone instance serves what the upgraded file holds', async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), BIND: '127.0.0.1', STREAMING_PORT: String(await freePort()), RATE_LIMITS: 'false' });
  const instance = await startInstance(env);
  t.teardown(() => stopInstance(instance));
  const base = `http://127.0.0.1:${port}`;
  const token = cli(env, 'tokens', 'issue', 'alice', '--scopes', 'read');
  const get = async (at: string) => {
    const res = await fetch(`${base}${at}`, { headers: { authorization: `Bearer ${token}` } });
    t.equal(res.status, 200, at);
    return (await res.json()) as Record<string, unknown>;
  };
  const me = await get('/api/v1/accounts/verify_credentials');
  t.match(me, { username: 'alice', display_name: 'Alice A.', statuses_count: 4, followers_count: 2, following_count: 2 });
  const statuses = (await get(`/api/v1/accounts/${me['id'] as string}/statuses`)) as unknown as Record<string, unknown>[];
  const picture = statuses.find((s) => (s['media_attachments'] as unknown[]).length > 0);
  t.match(picture, { content: /A red picture/, edited_at: String }, 'the edited status with its picture');
  const media = (picture?.['media_attachments'] as { description: string; url: string; meta: { focus: { x: number; y: number } } }[])[0];
  t.match(media, { description: 'A red rectangle', meta: { focus: { x: 0.25, y: -0.5 } } });
  const poll = statuses.find((s) => s['poll'] !== null)?.['poll'];
  t.match(poll, { votes_count: 3, voters_count: 2, options: [{ title: 'tea', votes_count: 1 }, { title: 'coffee', votes_count: 1 }, { title: 'both', votes_count: 1 }] }, "the poll with carol's and bob's votes");
  const linked = statuses.find((s) => s['card'] !== null)?.['card'];
  t.match(linked, { title: 'The fixture page', description: 'What a card shows' }, 'the preview card');
  const scheduled = (await get('/api/v1/scheduled_statuses')) as unknown as { params: { text: string } }[];
  t.match(scheduled, [{ params: { text: 'Later' } }], 'the scheduled status');
  const history = (await get(`/api/v1/statuses/${picture?.['id'] as string}/history`)) as unknown as unknown[];
  t.equal(history.length, 2, 'its edit history');
  for (const [file, digest] of filesBefore) {
    if (!file.startsWith('media/')) continue;
    const served = await fetch(`${base}/system/${file}`);
    t.equal(served.status, 200, `${file} served`);
    t.equal(createHash('sha256').update(new Uint8Array(await served.arrayBuffer())).digest('hex'), digest, `${file}: the same bytes`);
  }
});
