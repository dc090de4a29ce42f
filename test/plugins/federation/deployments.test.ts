// Federation on the other deployments: instance A stores on the MongoDB adapter and queues its
// jobs (Fedify's deliveries and inbox work among them) and publishes its events on Redis; B is
// on SQLite. Over real HTTP on loopback: bob on B follows alice on A (Accept), alice's post
// reaches bob's home, bob's favourite reaches alice as a notification, alice's edit and delete
// reach B. A runs on the MongoDB stand-in (test/helpers/fake-mongo.ts) and, where MONGODB_URI
// names a server, on it too; no MongoDB server can run on these machines, so that run is
// reported as skipped here.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db, MongoClient } from 'mongodb';
import t, { type Test } from 'tap';
import { openMongoStorage } from '../../../adapters/mongodb/index.ts';
import { openMongoStorageOn } from '../../../adapters/mongodb/storage.ts';
import { createRedisBus, createRedisQueue } from '../../../adapters/redis/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import type { Storage } from '../../../core/domain/ports/storage.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, followAcross } from '../../helpers/federation.ts';
import { FakeMongo } from '../../helpers/fake-mongo.ts';
import { harness } from '../../helpers/harness.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

interface StatusJson {
  id: string;
  uri: string;
  content: string;
  favourites_count: number;
}

const dir = mkdtempSync(join(tmpdir(), 'rookery-fed-deploy-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function federateWith(t: Test, storage: Storage): Promise<void> {
  const prefix = testPrefix('federation-deploy');
  t.teardown(() => dropPrefix(prefix));
  const plugins = () => [federationPlugin({ allowPrivateAddress: true })];
  const a = await harness({ listen: true, transport: 'hapi', storage, queue: await createRedisQueue({ url: SHARED_REDIS, prefix }), bus: await createRedisBus({ url: SHARED_REDIS, prefix }), plugins: plugins() });
  const b = await harness({ listen: true, transport: 'node', storage: openSqliteStorage({ path: join(dir, `${prefix.replace(/\W/g, '_')}.sqlite3`) }), plugins: plugins() });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const drain = () => drainAll([a, b]);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  await followAcross(b, [bob], a, 'alice');

  const posted = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Hello from MongoDB and Redis' } })).json as StatusJson;
  const onB = async () => {
    await drain();
    return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[]).find((s) => s.uri === posted.uri);
  };
  const arrived = (await eventually(onB, (s) => s !== undefined, 'the post reaches bob')) as StatusJson;
  t.equal(arrived.content, '<p>Hello from MongoDB and Redis</p>');

  t.equal((await b.request('POST', `/api/v1/statuses/${arrived.id}/favourite`, { token: bob.token })).statusCode, 200);
  const notified = await eventually(
    async () => {
      await drain();
      return (await a.request('GET', '/api/v1/notifications', { token: alice.token })).json as { type: string; status?: { id: string } }[];
    },
    (list) => list.some((n) => n.type === 'favourite'),
    "bob's favourite reaches alice",
  );
  t.match(notified, [{ type: 'favourite', status: { id: posted.id } }]);
  t.equal(((await a.request('GET', `/api/v1/statuses/${posted.id}`, { token: alice.token })).json as StatusJson).favourites_count, 1);

  t.equal((await a.request('PUT', `/api/v1/statuses/${posted.id}`, { token: alice.token, payload: { status: 'Edited on MongoDB' } })).statusCode, 200);
  await eventually(onB, (s) => s?.content === '<p>Edited on MongoDB</p>', 'the edit reaches bob');
  t.equal((await a.request('DELETE', `/api/v1/statuses/${posted.id}`, { token: alice.token })).statusCode, 200);
  await eventually(onB, (s) => s === undefined, 'the delete reaches bob');
  t.equal((await b.request('GET', `/api/v1/statuses/${arrived.id}`, { token: bob.token })).statusCode, 404, 'gone on B');
}

t.test('A on the MongoDB stand-in with Redis, B on SQLite', async (t) => {
  const mongo = new FakeMongo();
  await federateWith(t, await openMongoStorageOn(mongo.client() as unknown as MongoClient, mongo.db('federation') as unknown as Db));
});

const uri = process.env['MONGODB_URI'];
t.test('A on MongoDB (MONGODB_URI) with Redis, B on SQLite', { skip: uri ? false : 'MONGODB_URI not set' }, async (t) => {
  const database = `rookery_federation_${process.pid}`;
  await federateWith(t, await openMongoStorage({ url: uri ?? '', database }));
});
