// The storage contract, the job queue contract and every plugin's storage contract on
// PostgreSQL (the machine's server, or a private one: test/helpers/postgres.ts), then what only
// this adapter promises: its schema versions, migrations raced by two processes, its options.
//
// Each contract test gets a fresh schema of this file's database; `connect` is a second,
// independent pool on it (what a second process would have), so the atomic operations are also
// raced across connections; `reopen` closes the pool and opens the same data again.

import t from 'tap';
import pg from 'pg';
import { openPostgresStorage, SCHEMA_VERSION, type PostgresStorageOptions } from '../../adapters/postgres/index.ts';
import { MIGRATIONS } from '../../adapters/postgres/schema.ts';
import { queueContract, storageContract, type OpenQueue, type OpenStore } from '../../adapters/testing/index.ts';
import { IdSeq, POST, account, status } from '../../adapters/testing/fixtures.ts';
import type { Storage } from '../../core/ports/storage.ts';
import { cardStorageContract } from '../../plugins/cards/storage/contract.ts';
import { federationStorageContract } from '../../plugins/federation/storage/contract.ts';
import { mediaStorageContract } from '../../plugins/media/storage/contract.ts';
import { mediaStorage } from '../../plugins/media/storage/index.ts';
import { pollStorageContract } from '../../plugins/polls/storage/contract.ts';
import { pushStorageContract } from '../../plugins/push/storage/contract.ts';
import { scheduledStorageContract } from '../../plugins/scheduled/storage/contract.ts';
import { testPostgres } from '../helpers/postgres.ts';

const server = await testPostgres((fn) => t.teardown(fn));

/** Stores on one fresh schema: the first, and any opened later on the same data. */
async function storesOnFreshSchema() {
  const schema = await server.freshSchema();
  const open: Storage[] = [];
  const openOne = async (): Promise<Storage> => {
    const s = await openPostgresStorage({ url: schema.url, pool: 4 });
    open.push(s);
    return s;
  };
  return {
    openOne,
    async cleanup() {
      for (const s of open) await s.close();
      await schema.drop();
    },
  };
}

const openStore: OpenStore = async () => {
  const stores = await storesOnFreshSchema();
  const handle = {
    storage: await stores.openOne(),
    async reopen() {
      await handle.storage.close();
      handle.storage = await stores.openOne();
      return handle.storage;
    },
    connect: stores.openOne,
    cleanup: stores.cleanup,
  };
  return handle;
};

const openQueue: OpenQueue = async () => {
  const stores = await storesOnFreshSchema();
  const first = await stores.openOne();
  return {
    queue: first.jobs,
    connect: async () => (await stores.openOne()).jobs,
    async reopen() {
      await first.close();
      return (await stores.openOne()).jobs;
    },
    cleanup: stores.cleanup,
  };
};

storageContract(t, 'postgres', openStore);
queueContract(t, 'postgres', openQueue);
mediaStorageContract(t, 'postgres', openStore);
pollStorageContract(t, 'postgres', openStore);
scheduledStorageContract(t, 'postgres', openStore);
cardStorageContract(t, 'postgres', openStore);
pushStorageContract(t, 'postgres', openStore);
federationStorageContract(t, 'postgres', openStore);

// ---- what only the PostgreSQL adapter promises ----------------------------------------------------

async function adminQuery(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    const value = await promise;
    if (value !== null && typeof value === 'object' && 'close' in value) await (value as Storage).close();
    return 'no error';
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

t.test('postgres: two pools opening a fresh database at once both succeed, and each migration is applied once', async (t) => {
  const fresh = await server.freshDatabase();
  const [a, b] = await Promise.all([openPostgresStorage({ url: fresh.url }), openPostgresStorage({ url: fresh.url })]);
  try {
    const versions = await adminQuery(fresh.url, 'SELECT version FROM schema_migrations ORDER BY version');
    t.strictSame(versions.map((r) => r['version']), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), 'each core version recorded once');
    // Both pools then reach the plugins' migrations at once too.
    await Promise.all([a.extend(mediaStorage).get('1'), b.extend(mediaStorage).get('1')]);
    const media = await adminQuery(fresh.url, "SELECT version FROM extension_migrations WHERE extension = 'media' ORDER BY version");
    t.strictSame(media.map((r) => r['version']), [1], "each of the media plugin's versions recorded once");
    const seq = new IdSeq();
    const alice = account(seq.next());
    await a.accounts.create(alice);
    await b.statuses.create(status(seq.next(), alice.id), POST);
    t.equal((await a.accounts.get(alice.id))?.statusesCount, 1, 'both work on the same tables');
  } finally {
    await a.close();
    await b.close();
  }
});

t.test('postgres: the core creates only its own tables', async (t) => {
  const fresh = await server.freshDatabase();
  const store = await openPostgresStorage({ url: fresh.url });
  await store.close();
  const tables = await adminQuery(fresh.url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  t.strictSame(
    tables.map((r) => r['tablename']),
    [
      'access_tokens', 'accounts', 'applications', 'authorization_codes', 'blocks', 'bookmarks', 'conversation_mutes', 'dead_jobs', 'domain_blocks',
      'extension_migrations', 'favourites', 'filters', 'follow_requests', 'follows', 'idempotency_keys', 'jobs', 'list_members', 'lists', 'markers',
      'mutes', 'notifications', 'pins', 'schema_migrations', 'status_edits', 'status_mentions', 'status_tags', 'statuses', 'users', 'web_sessions',
    ],
    'no media, polls, scheduled, cards, push or federation table',
  );
  t.equal(MIGRATIONS.length, SCHEMA_VERSION);
});

t.test('postgres: a database written by a newer Rookery is refused, by name', async (t) => {
  const fresh = await server.freshDatabase();
  await (await openPostgresStorage({ url: fresh.url })).close();
  await adminQuery(fresh.url, 'INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)', [SCHEMA_VERSION + 1]);
  t.equal(
    await rejection(openPostgresStorage({ url: fresh.url })),
    `Error: the PostgreSQL database "${fresh.database}" has schema version ${SCHEMA_VERSION + 1}, written by a newer Rookery; this Rookery knows versions up to ${SCHEMA_VERSION}`,
  );

  const other = await server.freshDatabase();
  await (await openPostgresStorage({ url: other.url })).close();
  await adminQuery(other.url, "INSERT INTO extension_migrations (extension, version, applied_at) VALUES ('media', 7, 0)");
  const store = await openPostgresStorage({ url: other.url });
  try {
    t.equal(
      await rejection(store.extend(mediaStorage).get('1')),
      `Error: the PostgreSQL database "${other.database}" has version 7 of the "media" storage, written by a newer version of the plugin; this one knows versions up to 1`,
      "a plugin's storage from a newer version of the plugin is refused too",
    );
  } finally {
    await store.close();
  }
});

t.test('postgres: options are checked, each refusal naming its option', async (t) => {
  const cases: [unknown, string][] = [
    [{ url: server.url, poool: 3 }, 'unknown option "poool" (known: url, pool, statementTimeoutMs, applicationName)'],
    [{}, '"url" must be a string, got undefined'],
    [{ url: 'mysql://localhost/x' }, '"url" must start with postgres:// or postgresql://, not mysql://'],
    [{ url: 'not a url' }, '"url" is not a URL (expected postgres://user@host:port/database)'],
    [{ url: server.url, pool: 0 }, '"pool" must be from 1 to 1000, got 0'],
    [{ url: server.url, pool: 2.5 }, '"pool" must be an integer, got 2.5'],
    [{ url: server.url, pool: '4' }, '"pool" must be an integer, got string'],
    [{ url: server.url, statementTimeoutMs: -1 }, '"statementTimeoutMs" must be from 0 (no limit) to 2147483647, got -1'],
    [{ url: server.url, statementTimeoutMs: null }, '"statementTimeoutMs" must be an integer, got null'],
    [{ url: server.url, applicationName: 'é' }, '"applicationName" must be at most 63 printable ASCII characters'],
    [{ url: server.url, applicationName: 7 }, '"applicationName" must be a string, got 7'],
    [null, 'expected an object with at least "url"'],
  ];
  for (const [options, message] of cases) {
    t.equal(await rejection(openPostgresStorage(options as PostgresStorageOptions)), `PostgresOptionsError: invalid PostgreSQL storage options: ${message}`, message);
  }
  const store = await openPostgresStorage({ url: server.url, pool: 2, statementTimeoutMs: 1234, applicationName: 'rookery-test' });
  try {
    const seq = new IdSeq();
    const alice = account(seq.next());
    await store.accounts.create(alice);
    const sessions = await adminQuery(server.url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'rookery-test' AND datname = current_database()");
    t.equal(sessions[0]?.['n'], 1, 'applicationName names the connections (one opened so far)');
  } finally {
    await store.close();
  }
});

t.test('postgres: text it cannot hold (U+0000) is refused as a 422, and lookups by it miss', async (t) => {
  const handle = await openStore();
  try {
    const s = handle.storage;
    const seq = new IdSeq();
    const alice = account(seq.next());
    await s.accounts.create(alice);
    const outcome = await s.statuses.create(status(seq.next(), alice.id, { text: 'nul \u0000 inside' }), POST).then(
      () => 'stored',
      (error: unknown) => `${(error as { status?: number }).status} ${(error as Error).message}`,
    );
    t.equal(outcome, '422 Validation failed: text must not contain the NUL character', 'a client error, not a server one');
    t.equal((await s.accounts.get(alice.id))?.statusesCount, 0, 'nothing written');
    t.strictSame(
      [
        await s.accounts.findByUsername(`${alice.username}\u0000`, null),
        await s.accounts.findByUri('https://x.example/\u0000'),
        await s.accounts.findUserByEmail('a\u0000@example.org'),
        await s.statuses.findByUri('https://x.example/\u0000'),
        await s.oauth.findTokenByHash('\u0000'),
        await s.oauth.consumeCode('\u0000', 0),
      ],
      [null, null, null, null, null, null],
      'lookups miss',
    );
  } finally {
    await handle.cleanup();
  }
});
