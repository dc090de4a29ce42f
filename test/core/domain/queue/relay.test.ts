// The outbox relay on real queues: it moves what writes recorded in the store's queue into the
// instance's queue, in order and one job of a key at a time, completes nothing it has not
// enqueued, and the worker drains it along with the jobs.

import t from 'tap';
import { createMemoryStorage } from '../../../../adapters/memory/index.ts';
import { createRedisQueue } from '../../../../adapters/redis/index.ts';
import { silentLogger } from '../../../../core/domain/ports/logger.ts';
import type { Job, JobQueue } from '../../../../core/domain/ports/queue.ts';
import { JobRegistry } from '../../../../core/domain/queue/registry.ts';
import { createRelay } from '../../../../core/domain/queue/relay.ts';
import { createWorker } from '../../../../core/domain/queue/worker.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../../helpers/redis.ts';

/** A job queue of its own: the one of a store in memory (closed when the file's tests end). */
const stores: { close(): Promise<void> }[] = [];
t.teardown(async () => {
  for (const store of stores) await store.close();
});
function queueInMemory(): JobQueue {
  const store = createMemoryStorage();
  stores.push(store);
  return store.jobs;
}

class ManualClock {
  at = 1_700_000_000_000;
  now(): number {
    return this.at;
  }
}

async function everything(queue: JobQueue, at: number): Promise<Job[]> {
  return queue.claim(at, 1000, 1);
}

t.test('jobs move in order; a key is relayed one job at a time, so its order holds', async (t) => {
  const clock = new ManualClock();
  const from = queueInMemory();
  const to = queueInMemory();
  await from.enqueue(
    [
      { name: 'a', payload: { n: 1 }, orderingKey: 'k1' },
      { name: 'b', payload: null, orderingKey: 'k1' },
      { name: 'c', payload: 'text' },
      { name: 'd', payload: [1, 2], orderingKey: 'k2' },
      { name: 'e', payload: null, orderingKey: 'k1' },
      { name: 'later', payload: null, runAt: clock.at + 5000 },
    ],
    0,
  );
  const relay = createRelay({ from, to, clock });
  t.equal(await relay.nextDue(), 0, 'the outbox has something due');
  t.equal(await relay.pass(), 3, 'a, c and d: b and e wait behind a');
  t.equal(await relay.pass(), 1, 'then b');
  t.equal(await relay.pass(), 1, 'then e');
  t.equal(await relay.pass(), 0, 'nothing else is due');
  t.equal(await relay.nextDue(), clock.at + 5000, 'the delayed job is due later');
  t.equal(await from.size(), 1, 'only it is left in the outbox');
  const moved = await everything(to, clock.at);
  t.strictSame(
    moved.map((j) => [j.name, j.payload, j.orderingKey]),
    [
      ['a', { n: 1 }, 'k1'],
      ['c', 'text', null],
      ['d', [1, 2], 'k2'],
    ],
    'with their payloads and keys; the rest of k1 waits behind a, in the queue too',
  );
  await to.complete(moved.map((j) => j.id));
  t.strictSame((await everything(to, clock.at)).map((j) => j.name), ['b'], 'then b');
  clock.at += 5000;
  t.equal(await relay.pass(), 1, 'the delayed job once due');
});

t.test('a relay that fails to enqueue completes nothing: the batch is sent again after its lease', async (t) => {
  const clock = new ManualClock();
  const from = queueInMemory();
  const prefix = testPrefix('relay');
  t.teardown(() => dropPrefix(prefix));
  const gone = await createRedisQueue({ url: SHARED_REDIS, prefix });
  await gone.close();
  await from.enqueue([{ name: 'x', payload: 1 }, { name: 'y', payload: 2, orderingKey: 'k' }], 0);
  const broken = createRelay({ from, to: gone, clock, leaseMs: 1000 });
  await t.rejects(broken.pass(), 'the closed queue refuses the batch');
  t.equal(await from.size(), 2, 'both still in the outbox');
  const to = await createRedisQueue({ url: SHARED_REDIS, prefix });
  t.teardown(() => to.close());
  const relay = createRelay({ from, to, clock, leaseMs: 1000 });
  t.equal(await relay.pass(), 0, 'held by the failed relay until its lease runs out');
  clock.at += 1000;
  t.equal(await relay.pass(), 2, 'then sent');
  t.strictSame((await everything(to, clock.at)).map((j) => j.name), ['x', 'y']);
  t.equal(await from.size(), 0);
});

t.test("the worker relays before it claims, and drain covers the store's outbox", async (t) => {
  const clock = new ManualClock();
  const outbox = queueInMemory();
  const queue = queueInMemory();
  const registry = new JobRegistry();
  const ran: string[] = [];
  registry.register('step', async (payload) => {
    ran.push(payload as string);
    if (payload === 'one') await outbox.enqueue([{ name: 'step', payload: 'two', orderingKey: 's' }], 0);
  });
  const worker = createWorker({ queue, registry, clock, logger: silentLogger, relay: createRelay({ from: outbox, to: queue, clock }) });
  await outbox.enqueue([{ name: 'step', payload: 'one', orderingKey: 's' }], 0);
  await worker.drain();
  t.strictSame(ran, ['one', 'two'], 'the job, and the job it recorded in the outbox');
  t.equal(await outbox.size(), 0);
  t.equal(await queue.size(), 0);
  await worker.stop();
});
