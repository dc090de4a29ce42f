// The standalone instance picks its store from the environment: SQLite in DATA_DIR unless
// MONGODB_URI is set.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { openStore, redactUrl } from '../../examples/standalone/store.ts';
import { freePort } from '../helpers/processes.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-standalone-store-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('without MONGODB_URI: SQLite in DATA_DIR, as before', async (t) => {
  const dataDir = join(dir, 'data');
  const settings = readSettings({ DATA_DIR: dataDir });
  t.equal(settings.mongodbUrl, null);
  const { storage, where } = await openStore(settings);
  t.teardown(() => storage.close());
  t.equal(storage.engine, 'sqlite');
  t.equal(where, join(dataDir, 'rookery.sqlite3'));
  t.ok(existsSync(join(dataDir, 'rookery.sqlite3')), 'the file is made in DATA_DIR');
  t.equal(readSettings({ DATA_DIR: dataDir, MONGODB_URI: '' }).mongodbUrl, null, 'an empty MONGODB_URI is unset');
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
});
