// createNodeRookery with Redis: a web Rookery (no worker) and a worker Rookery share a SQLite
// file, a Redis bus and a Redis queue, as two processes would. A status published over a real
// socket to the web one is relayed and handled by the worker one, and the mention reaches the
// stream the web one serves. Without Redis options the defaults stay in-process.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import { createNodeHandler, createNodeRookery } from '../../../adapters/node/index.ts';
import { createRedisBus, createRedisQueue } from '../../../adapters/redis/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';
import { sink } from '../../helpers/streams.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-node-redis-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = { domain: 'social.example' };

t.test('a web Rookery and a worker Rookery, sharing Redis', async (t) => {
  const prefix = testPrefix('node');
  t.teardown(() => dropPrefix(prefix));
  const path = join(dir, 'shared.sqlite3');
  const open = async (worker: boolean) =>
    createNodeRookery({
      config,
      storage: openSqliteStorage({ path }),
      bus: await createRedisBus({ url: SHARED_REDIS, prefix }),
      queue: await createRedisQueue({ url: SHARED_REDIS, prefix }),
      secrets: { scryptN: 1024 },
      worker,
    });
  const web = await open(false);
  const worker = await open(true);
  t.teardown(async () => {
    await web.close();
    await worker.close();
  });

  const alice = await web.accounts.create({ username: 'alice', email: 'alice@example.com' });
  const bob = await web.accounts.create({ username: 'bob', email: 'bob@example.com' });
  const aliceToken = await web.tokens.issue(alice.id);
  const bobToken = await web.tokens.issue(bob.id);

  const identity = await web.streaming.authenticate({ authorization: `Bearer ${bobToken}` });
  if ('error' in identity) throw new Error(identity.error);
  const received = sink();
  const arrived = new Promise<void>((resolve) => {
    const deliver = received.output.deliver;
    received.output.deliver = (event) => {
      deliver(event);
      resolve();
    };
  });
  const stream = web.streaming.connect(identity, received.output);
  t.equal(await stream.subscribe('user:notification', {}), null);

  const handler = createNodeHandler(web);
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  t.teardown(() => new Promise<void>((closed) => server.close(() => closed())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const res = await fetch(`${base}/api/v1/statuses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${aliceToken}` },
    body: JSON.stringify({ status: 'hi @bob' }),
  });
  t.equal(res.status, 200);
  const status = (await res.json()) as { id: string };

  await worker.drain();
  await arrived;
  t.strictSame(received.events(), ['notification mention'], 'handled by the worker, streamed by the web Rookery');
  const listed = await fetch(`${base}/api/v1/notifications`, { headers: { authorization: `Bearer ${bobToken}` } });
  t.strictSame(((await listed.json()) as { type: string; status: { id: string } }[]).map((n) => [n.type, n.status.id]), [['mention', status.id]]);
  await stream.close();
});

t.test('without Redis options: the in-process bus and the store’s own queue', async (t) => {
  const storage = createMemoryStorage();
  const rookery = await createNodeRookery({ config, storage });
  t.teardown(() => rookery.close());
  t.equal(rookery.core.queue, storage.jobs, "the store's queue");
  t.equal(rookery.core.bus.onReconnect, undefined, 'a bus that never reconnects');
});
