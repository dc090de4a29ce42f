// The standalone instance picks its store from the environment: SQLite in DATA_DIR, PostgreSQL
// when DATABASE_URL is set (with DB_POOL and DB_STATEMENT_TIMEOUT_MS), MongoDB when MONGODB_URI
// is; both URLs at once, or a connection string that is not one, stop the server and the CLI
// with one line that never shows the password.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { openStore, redactUrl } from '../../examples/standalone/store.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { testPostgres } from '../helpers/postgres.ts';
import { runCli, runServer } from '../helpers/standalone.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-standalone-store-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('without MONGODB_URI: SQLite in DATA_DIR, as before', async (t) => {
  const dataDir = join(dir, 'data');
  const settings = readSettings({ DATA_DIR: dataDir });
  t.equal(settings.mongodbUrl, null);
  t.equal(settings.postgres, null);
  const { storage, where } = await openStore(settings);
  t.teardown(() => storage.close());
  t.equal(storage.engine, 'sqlite');
  t.equal(where, join(dataDir, 'rookery.sqlite3'));
  t.ok(existsSync(join(dataDir, 'rookery.sqlite3')), 'the file is made in DATA_DIR');
  t.equal(readSettings({ DATA_DIR: dataDir, MONGODB_URI: '' }).mongodbUrl, null, 'an empty MONGODB_URI is unset');
  t.equal(readSettings({ DATA_DIR: dataDir, DATABASE_URL: '' }).postgres, null, 'an empty DATABASE_URL is unset');
});

t.test('with MONGODB_URI: the MongoDB store (here, no server answers: its driver says so)', async (t) => {
  const url = `mongodb://127.0.0.1:${await freePort()}/rookery?serverSelectionTimeoutMS=300`;
  const settings = readSettings({ DATA_DIR: join(dir, 'mongo-data'), MONGODB_URI: url });
  t.equal(settings.mongodbUrl, url);
  await t.rejects(openStore(settings), { name: 'MongoServerSelectionError' }, 'openMongoStorage was asked, not SQLite');
  t.ok(existsSync(join(dir, 'mongo-data')), 'DATA_DIR is still made: the media files live there');
  t.notOk(existsSync(join(dir, 'mongo-data', 'rookery.sqlite3')), 'and no SQLite file');
});

t.test('the connection string is logged without its password', async (t) => {
  t.equal(redactUrl('mongodb://rookery:s3cr%40t@db1:27017,db2:27017/social?replicaSet=rs0'), 'mongodb://rookery:***@db1:27017,db2:27017/social?replicaSet=rs0');
  t.equal(redactUrl('mongodb+srv://u:p@cluster.example.net/x'), 'mongodb+srv://u:***@cluster.example.net/x');
  t.equal(redactUrl('mongodb://db1:27017/social'), 'mongodb://db1:27017/social', 'no credentials: as is');
  t.equal(redactUrl('mongodb://onlyuser@db1/social'), 'mongodb://onlyuser@db1/social', 'a user without password: as is');
  t.equal(redactUrl('postgres://rookery:s3cr%40t@db.example:5432/social?sslmode=require'), 'postgres://rookery:***@db.example:5432/social?sslmode=require');
  t.equal(redactUrl('postgresql://rookery:p@ss/w@db.example/social'), 'postgresql://rookery:***@db.example/social', 'an unescaped @ or / in the password: hidden whole');
});

t.test('with DATABASE_URL: PostgreSQL, with its pool size and statement timeout', async (t) => {
  const postgres = await testPostgres(t.teardown.bind(t));
  const { url } = postgres;
  const dataDir = join(dir, 'pg-data');
  t.same(readSettings({ DATA_DIR: dataDir, DATABASE_URL: url }).postgres, { url, pool: 10, statementTimeoutMs: 10_000 }, 'the defaults');
  const settings = readSettings({ DATA_DIR: dataDir, DATABASE_URL: url, DB_POOL: '3', DB_STATEMENT_TIMEOUT_MS: '0' });
  t.same(settings.postgres, { url, pool: 3, statementTimeoutMs: 0 });
  const { storage, where } = await openStore(settings);
  t.teardown(() => storage.close());
  t.equal(storage.engine, 'postgres');
  t.equal(where, url);
  t.ok(existsSync(dataDir), 'DATA_DIR is made: the media files live there');
  t.notOk(existsSync(join(dataDir, 'rookery.sqlite3')), 'and no SQLite file');
  const tables = await postgres.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'statuses'");
  t.same(tables, [{ n: 1 }], "the store's schema is in that database");
});

t.test('DB_POOL and DB_STATEMENT_TIMEOUT_MS are checked', async (t) => {
  const url = 'postgres://rookery@127.0.0.1/rookery';
  t.throws(() => readSettings({ DATABASE_URL: url, DB_POOL: '0' }), { message: 'DB_POOL must be a whole number from 1 to 1000, got "0"' });
  t.throws(() => readSettings({ DATABASE_URL: url, DB_POOL: 'many' }), { message: 'DB_POOL must be a whole number from 1 to 1000, got "many"' });
  t.throws(() => readSettings({ DATABASE_URL: url, DB_STATEMENT_TIMEOUT_MS: '-1' }), { message: 'DB_STATEMENT_TIMEOUT_MS must be a whole number from 0 to 2147483647, got "-1"' });
  t.throws(() => readSettings({ DB_POOL: '2.5' }), { message: 'DB_POOL must be a whole number from 1 to 1000, got "2.5"' }, 'checked without DATABASE_URL too');
});

const BOTH = 'DATABASE_URL and MONGODB_URI are both set: an instance keeps its data in one store; unset one of them';
const NOT_POSTGRES = 'DATABASE_URL must be a PostgreSQL connection string: postgres://user[:password]@host[:port]/database';
const SECRET = 'hunter2-secret';

t.test('DATABASE_URL and MONGODB_URI together are refused, by the server and the CLI', async (t) => {
  const env = childEnv({ DATA_DIR: join(dir, 'both'), PORT: '0', DATABASE_URL: `postgres://rookery:${SECRET}@127.0.0.1/rookery`, MONGODB_URI: `mongodb://rookery:${SECRET}@127.0.0.1/rookery` });
  t.throws(() => readSettings(env), { message: BOTH });
  const server = runServer(env);
  t.same([server.status, server.stderr.trim()], [1, BOTH], 'the server stops with one line');
  const cli = runCli(env, 'accounts', 'create', 'alice', '--email', 'alice@example.com');
  t.same([cli.status, cli.stderr.trim(), cli.stdout], [1, BOTH, ''], 'so does the CLI');
  t.notOk(existsSync(join(dir, 'both')), 'and neither made DATA_DIR');
  t.notMatch(server.stdout + server.stderr + cli.stdout + cli.stderr, SECRET, 'nor printed a password');
});

t.test('a DATABASE_URL that is not one is refused without showing its password', async (t) => {
  const urls = [`mysql://rookery:${SECRET}@127.0.0.1/rookery`, `postgres://rookery:${SECRET}@127.0.0.1:99999/rookery`, `rookery:${SECRET}@127.0.0.1`, `postgres:${SECRET}`];
  for (const url of urls) t.throws(() => readSettings({ DATABASE_URL: url }), { message: NOT_POSTGRES }, url);
  // The server, on two of them (each run starts a process).
  for (const url of urls.slice(0, 2)) {
    const server = runServer(childEnv({ DATA_DIR: join(dir, 'bad-url'), PORT: '0', DATABASE_URL: url }));
    t.same([server.status, server.stderr.trim()], [1, NOT_POSTGRES], `the server refuses ${url}`);
    t.notMatch(server.stdout + server.stderr, SECRET, 'and never prints the password');
  }
});

t.test('a server that does not answer is named without the password', async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: join(dir, 'away'), PORT: '0', DATABASE_URL: `postgres://rookery:${SECRET}@127.0.0.1:${port}/social` });
  const expected = `could not connect to PostgreSQL at 127.0.0.1:${port}/social: connect ECONNREFUSED 127.0.0.1:${port}`;
  const server = runServer(env);
  t.same([server.status, server.stderr.trim()], [1, expected], 'the server');
  const cli = runCli(env, 'tokens', 'issue', 'alice');
  t.same([cli.status, cli.stderr.trim()], [1, expected], 'the CLI');
  t.notMatch(server.stdout + server.stderr + cli.stdout + cli.stderr, SECRET);
});
