// SQLite storage with the instance's jobs in Redis: writes record their jobs in the store
// (atomically with the write), the worker relays them to Redis and runs them there. Nothing is
// lost when the relay dies between sending a batch to Redis and marking it sent.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createRedisBus, createRedisQueue } from '../../../adapters/redis/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import type { StreamEvent } from '../../../core/mastodon/streaming/hub.ts';
import { harness } from '../../helpers/harness.ts';
import { childEnv, cleanCommand, endsWithTest } from '../../helpers/processes.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';
import { sink } from '../../helpers/streams.ts';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rookery-relay-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('publish through the API: the notification and the stream event come through Redis', async (t) => {
  const prefix = testPrefix('relay-api');
  t.teardown(() => dropPrefix(prefix));
  const queue = await createRedisQueue({ url: SHARED_REDIS, prefix });
  const bus = await createRedisBus({ url: SHARED_REDIS, prefix });
  const h = await harness({ storage: openSqliteStorage({ path: join(dir, 'api.sqlite3') }), queue, bus });
  t.teardown(() => h.close());
  t.equal(h.core.queue, queue, 'jobs wait in Redis');
  const alice = await h.user('alice');
  const bob = await h.user('bob');

  const identity = await h.rookery.streaming.authenticate({ authorization: `Bearer ${bob.token}` });
  if ('error' in identity) throw new Error(identity.error);
  const received = sink();
  let arrived: () => void = () => {};
  const deliver = received.output.deliver;
  received.output.deliver = (event: StreamEvent) => {
    deliver(event);
    arrived();
  };
  const connection = h.rookery.streaming.connect(identity, received.output);
  t.equal(await connection.subscribe('user:notification', {}), null);
  const notified = new Promise<void>((resolve) => (arrived = resolve));

  const posted = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hello @bob' } });
  t.equal(posted.statusCode, 200);
  t.equal(await h.core.storage.jobs.size(), 0, 'the outbox was relayed');
  t.equal(await queue.size(), 0, 'and the jobs ran');
  const notifications = await h.request('GET', '/api/v1/notifications', { token: bob.token });
  t.strictSame(notifications.json.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id]), [['mention', posted.json.id]], 'bob is notified');
  await notified;
  t.strictSame(received.events(), ['notification mention'], "and told on his stream, through Redis's pub/sub");
  await connection.close();
});

t.test('a relay killed between sending a batch and marking it sent loses nothing', async (t) => {
  const prefix = testPrefix('relay-kill');
  t.teardown(() => dropPrefix(prefix));
  const path = join(dir, 'kill.sqlite3');

  // Writes by a process that runs no worker: their jobs wait in the store's outbox.
  const writer = await harness({ storage: openSqliteStorage({ path }), worker: false });
  const alice = await writer.user('alice');
  const bob = await writer.user('bob');
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await writer.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: `@bob number ${i}` }, drain: false });
    t.equal(res.statusCode, 200);
    ids.push(res.json.id);
  }
  const recorded = await writer.core.storage.jobs.size();
  t.ok(recorded >= 4, `${recorded} jobs in the outbox`);
  await writer.close();

  const child = endsWithTest(spawn(...cleanCommand(process.execPath, [join(here, '../../helpers/children/relay.ts'), path, SHARED_REDIS, prefix]), { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
  t.teardown(() => void child.kill('SIGKILL'));
  const sent = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^enqueued (\d+)$/m.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the relay exited with ${code}: ${output}`)));
  });
  await new Promise<void>((gone) => {
    child.removeAllListeners('exit');
    child.once('exit', () => gone());
    child.kill('SIGKILL');
  });
  t.ok(sent > 0, `the relay sent ${sent} jobs, then was killed`);

  const queue = await createRedisQueue({ url: SHARED_REDIS, prefix });
  t.equal(await queue.size(), sent, 'they are in Redis');
  const h = await harness({ storage: openSqliteStorage({ path }), queue });
  t.teardown(() => h.close());
  t.equal(await h.core.storage.jobs.size(), recorded, 'and still in the outbox, never marked sent');
  // Past the dead relay's lease, the outbox is sent again: some jobs arrive twice.
  h.clock.advance(60_000);
  await h.rookery.drain();
  t.equal(await h.core.storage.jobs.size(), 0, 'the outbox is empty');
  t.equal(await queue.size(), 0, 'every job ran');
  t.strictSame(await queue.deadLetters(10), [], 'none died');
  const notifications = await h.request('GET', '/api/v1/notifications', { token: bob.token });
  t.strictSame(
    notifications.json.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id]),
    [...ids].reverse().map((id) => ['mention', id]),
    'every mention notified bob, each once',
  );
});
