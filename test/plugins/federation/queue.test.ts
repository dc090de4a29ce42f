// Fedify's MessageQueue on Rookery's job queue (plugins/federation/queue.ts), through a plugin
// host, on every queue the instance can run: the store's own (memory, SQLite, MongoDB stand-in)
// and Redis (the shared server, ROOKERY_TEST_REDIS_URL). The clock is the harness's: delays are
// passed by moving it, and the worker is drained instead of waited for.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Temporal } from '@js-temporal/polyfill';
import type { Db, MongoClient } from 'mongodb';
import t from 'tap';
import { openMongoStorageOn } from '../../../adapters/mongodb/storage.ts';
import { createRedisQueue } from '../../../adapters/redis/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import type { JobQueue } from '../../../core/domain/ports/queue.ts';
import type { Storage } from '../../../core/domain/ports/storage.ts';
import { FEDERATION_MAX_ATTEMPTS, federationBackoff, queueTexts, rookeryMessageQueue, type RookeryMessageQueue } from '../../../plugins/federation/queue.ts';
import { FakeMongo } from '../../helpers/fake-mongo.ts';
import { harness, type Harness } from '../../helpers/harness.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-fed-queue-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const mongo = new FakeMongo();
let n = 0;

const MIN = 60_000;
const minutes = (m: number) => Temporal.Duration.from({ minutes: m }) as unknown as globalThis.Temporal.Duration;

interface Setup {
  storage?: Storage;
  queue?: JobQueue;
  cleanup?: () => Promise<void>;
}

const engines: Record<string, () => Promise<Setup>> = {
  'sqlite :memory:': async () => ({}),
  sqlite: async () => ({ storage: openSqliteStorage({ path: join(dir, `q${(n += 1)}.sqlite3`) }) }),
  'mongodb (stand-in)': async () => {
    const database = `fedqueue_${(n += 1)}`;
    return { storage: await openMongoStorageOn(mongo.client() as unknown as MongoClient, mongo.db(database) as unknown as Db), cleanup: async () => void mongo.databases.delete(database) };
  },
  redis: async () => {
    const prefix = testPrefix('federation-queue');
    return { queue: await createRedisQueue({ url: SHARED_REDIS, prefix }), cleanup: () => dropPrefix(prefix) };
  },
};

/** A Rookery whose plugin made the queue; `handle` decides what each delivered message does. */
async function withQueue(engine: string, options: { maxAttempts?: number } = {}) {
  const setup = await (engines[engine] as () => Promise<Setup>)();
  let queue: RookeryMessageQueue | null = null;
  const plugin: RookeryPlugin = {
    name: 'federation',
    register(host) {
      queue = rookeryMessageQueue(host, options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts });
    },
  };
  const h: Harness = await harness({ plugins: [plugin], ...(setup.storage ? { storage: setup.storage } : {}), ...(setup.queue ? { queue: setup.queue } : {}) });
  if (queue === null) throw new Error('the plugin did not register');
  const q: RookeryMessageQueue = queue;
  const controller = new AbortController();
  const seen: unknown[] = [];
  let handle: (message: unknown) => Promise<void> | void = () => {};
  const listening = q.listen(
    async (message) => {
      seen.push(message);
      await handle(message);
    },
    { signal: controller.signal },
  );
  return {
    h,
    q,
    seen,
    listening,
    controller,
    setHandler(fn: typeof handle) {
      handle = fn;
    },
    async close() {
      controller.abort();
      await listening;
      await h.close();
      await setup.cleanup?.();
    },
  };
}

for (const engine of Object.keys(engines)) {
  t.test(`${engine}: a delayed message runs once, after the clock passes its time`, async (t) => {
    const x = await withQueue(engine);
    t.teardown(() => x.close());
    t.equal(x.q.nativeRetrial, true, 'our queue retries: Fedify throws failures back');
    t.equal(x.q.jobName, 'federation:fedify');
    await x.q.enqueue({ type: 'outbox', id: 'later', n: 1 }, { delay: minutes(10) });
    await x.q.enqueue({ type: 'outbox', id: 'now' });
    await x.h.rookery.drain();
    t.strictSame(x.seen, [{ type: 'outbox', id: 'now' }], 'the undelayed one at once; the delayed one not yet');
    x.h.clock.advance(9 * MIN);
    await x.h.rookery.drain();
    t.equal(x.seen.length, 1, 'not before its time');
    x.h.clock.advance(MIN + 1);
    await x.h.rookery.drain();
    t.strictSame(x.seen, [{ type: 'outbox', id: 'now' }, { type: 'outbox', id: 'later', n: 1 }], 'then, with its payload as plain JSON');
    x.h.clock.advance(60 * MIN);
    await x.h.rookery.drain();
    t.equal(x.seen.length, 2, 'once');
    t.equal(await x.h.core.queue.size(), 0, 'nothing left queued');
  });

  t.test(`${engine}: a throwing handler is retried by our queue, then buried after its last attempt`, async (t) => {
    const x = await withQueue(engine, { maxAttempts: 3 });
    t.teardown(() => x.close());
    let failures = 1;
    x.setHandler((message) => {
      if ((message as { id: string }).id === 'flaky' && failures > 0) {
        failures -= 1;
        throw new Error('remote inbox answered 503');
      }
      if ((message as { id: string }).id === 'broken') throw new Error('always fails');
    });
    await x.q.enqueueMany([{ id: 'flaky' }, { id: 'broken' }]);
    await x.h.rookery.drain();
    t.strictSame(x.seen, [{ id: 'flaky' }, { id: 'broken' }], 'both ran and failed once');
    for (let i = 0; i < 3; i += 1) {
      x.h.clock.advance(3_600_000);
      await x.h.rookery.drain();
    }
    t.strictSame(x.seen.map((m) => (m as { id: string }).id), ['flaky', 'broken', 'flaky', 'broken', 'broken'], 'flaky ran again and passed; broken ran maxAttempts times');
    const dead = await x.h.core.queue.deadLetters(10);
    t.strictSame(dead.map((j) => [j.name, j.payload, j.attempts, j.lastError]), [['federation:fedify', { id: 'broken' }, 3, 'Error: always fails']], 'the last failure in the dead letters');
    t.equal(await x.h.core.queue.size(), 0);
  });

  t.test(`${engine}: by default a failed delivery is retried a minute later, then less and less often`, async (t) => {
    const x = await withQueue(engine);
    t.teardown(() => x.close());
    x.setHandler(() => {
      throw new Error('down');
    });
    await x.q.enqueue({ id: 'patient' });
    await x.h.rookery.drain();
    const due = async () => ((await x.h.core.queue.nextDue()) ?? 0) - x.h.clock.now();
    const first = await due();
    t.ok(first > 55_000 && first <= 60_000, `first retry about a minute later (${first} ms)`);
    x.h.clock.advance(60_000);
    await x.h.rookery.drain();
    const second = await due();
    t.ok(second > 115_000 && second <= 120_000, `then two minutes (${second} ms)`);
    t.equal(x.seen.length, 2);
    t.strictSame([federationBackoff(1), federationBackoff(9), federationBackoff(10), federationBackoff(11), FEDERATION_MAX_ATTEMPTS], [60_000, 256 * 60_000, 6 * 3_600_000, 6 * 3_600_000, 12], "at most 6 h apart, 12 runs");
  });

  t.test(`${engine}: messages with one ordering key run in order, a failure holding back the later ones`, async (t) => {
    const x = await withQueue(engine);
    t.teardown(() => x.close());
    let failFirst = true;
    x.setHandler((message) => {
      if ((message as { id: string }).id === 'a1' && failFirst) {
        failFirst = false;
        throw new Error('first try fails');
      }
    });
    await x.q.enqueue({ id: 'a1' }, { orderingKey: 'https://remote.example/users/a' });
    await x.q.enqueue({ id: 'b1' }, { orderingKey: 'https://remote.example/users/b' });
    await x.q.enqueueMany([{ id: 'a2' }, { id: 'a3' }], { orderingKey: 'https://remote.example/users/a' });
    await x.q.enqueue({ id: 'loose' });
    await x.h.rookery.drain();
    const ids = () => x.seen.map((m) => (m as { id: string }).id);
    t.strictSame(ids().sort(), ['a1', 'b1', 'loose'], 'a2 and a3 wait while a1 is to be retried');
    x.h.clock.advance(60_000);
    await x.h.rookery.drain();
    t.strictSame(ids().filter((id) => id.startsWith('a')), ['a1', 'a1', 'a2', 'a3'], 'then a1, a2, a3 in order');
    t.equal(await x.h.core.queue.size(), 0);
  });

  t.test(`${engine}: listen ends when its signal aborts; a message nobody listens for waits for a listener`, async (t) => {
    const x = await withQueue(engine);
    t.teardown(() => x.close());
    let ended = false;
    void x.listening.then(() => (ended = true));
    await x.h.rookery.drain();
    t.equal(ended, false, 'listening');
    x.controller.abort();
    await x.listening;
    t.equal(ended, true, 'resolved on abort');
    await x.q.enqueue({ id: 'orphan' });
    await x.h.rookery.drain();
    t.equal(x.seen.length, 0, 'not delivered to the handler that stopped');
    const [job] = await x.h.core.queue.claim(x.h.clock.now() + 3_600_000, 10, 1);
    t.strictSame([job?.payload, job?.attempts, job?.lastError], [{ id: 'orphan' }, 1, `Error: ${queueTexts.noListener}`], 'failed and kept for a retry');
    const again = new AbortController();
    const second: unknown[] = [];
    const listening = x.q.listen((m) => void second.push(m), { signal: again.signal });
    x.h.clock.advance(2 * 3_600_000); // past its retry time and past the lease the look above took
    await x.h.rookery.drain();
    t.strictSame(second, [{ id: 'orphan' }], 'a new listener gets it');
    again.abort();
    await listening;
    t.equal(await x.q.listen(() => {}, { signal: again.signal }), undefined, 'an aborted signal: ends at once');
  });
}

t.test('messages must be plain JSON; ordering keys and sizes are bounded', async (t) => {
  const x = await withQueue('sqlite :memory:');
  t.teardown(() => x.close());
  await t.rejects(x.q.enqueue({ big: 1n }), new TypeError(queueTexts.notJson));
  await t.rejects(x.q.enqueue(undefined), new TypeError(queueTexts.notJson));
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  await t.rejects(x.q.enqueue(cyclic), new TypeError(queueTexts.notJson));
  await t.rejects(x.q.enqueue({ s: 'x'.repeat(1024 * 1024) }), { name: 'RangeError' });
  await x.q.enqueue({ when: new Date(0), gone: undefined }, { orderingKey: 'k'.repeat(5000) });
  // As the queue hands it out: to this process's worker (kept for it), or to a claim.
  const [job] = [...(x.h.core.queue.takeOwn?.(10) ?? []), ...(await x.h.core.queue.claim(x.h.clock.now(), 10, 1000))];
  t.strictSame(job?.payload, { when: '1970-01-01T00:00:00.000Z' }, 'stored as its JSON');
  t.match(job?.orderingKey, /^federation:fedify\|sha256:[0-9a-f]{64}$/, 'a long key is hashed');
  t.equal(await x.h.core.queue.size(), 1, 'nothing else was queued');
});
