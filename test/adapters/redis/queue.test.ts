// The Redis queue beyond the shared contract (test/contract/queue.test.ts runs that): its key
// layout keeps claim independent of how many jobs wait behind an ordering key, large batches
// keep their order, ids that were never ours are harmless, ties among dead letters, and a
// server that is not there fails creation with a message.

import t, { type Test } from 'tap';
import { createRedisQueue, type RedisQueue } from '../../../adapters/redis/index.ts';
import type { Job } from '../../../core/domain/ports/queue.ts';
import { freePort } from '../../helpers/processes.ts';
import { dropPrefix, rawClient, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

async function open(t: Test): Promise<RedisQueue> {
  const prefix = testPrefix('queue');
  const queue = await createRedisQueue({ url: SHARED_REDIS, prefix });
  t.teardown(async () => {
    await queue.close();
    await dropPrefix(prefix);
  });
  return queue;
}

t.test('only the job that may run next of each key is looked at by claim', async (t) => {
  const queue = await open(t);
  await queue.enqueue(
    [...Array.from({ length: 3000 }, (_, i) => ({ name: `k${i}`, payload: i, orderingKey: 'busy' })), { name: 'free', payload: null }],
    T0,
  );
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  const sizes = async () => [await redis.zCard(`${queue.prefix}jobs:ready`), await redis.zCard(`${queue.prefix}jobs:timed`), await redis.lLen(`${queue.prefix}jobs:key:busy`)];
  t.strictSame(await sizes(), [2, 0, 3000], 'the head of the key and the free job are ready; 2,999 wait in their list');
  t.equal(await queue.size(), 3001);
  const first = await queue.claim(T0, 100, LEASE);
  t.strictSame(first.map((j) => j.name), ['k0', 'free'], 'one job of the key, and the free one');
  t.strictSame(await sizes(), [0, 2, 3000], 'both leased (timed by the end of their lease)');
  await queue.complete(first.map((j) => j.id));
  t.strictSame(await sizes(), [0, 1, 2999], 'the next of the key takes its place');
  t.strictSame((await queue.claim(T0, 100, LEASE)).map((j) => j.name), ['k1']);
});

t.test('a batch larger than one script keeps its order; ids follow it', async (t) => {
  const queue = await open(t);
  await queue.enqueue(Array.from({ length: 1234 }, (_, i) => ({ name: `j${i}`, payload: { i } })), T0);
  const claimed: Job[] = await queue.claim(T0, 5000, LEASE);
  t.equal(claimed.length, 1234);
  t.ok(claimed.every((job, i) => job.name === `j${i}` && (job.payload as { i: number }).i === i), 'claimed in enqueue order');
  const ids = claimed.map((job) => BigInt(job.id));
  t.ok(ids.every((id, i) => i === 0 || id > (ids[i - 1] as bigint)), 'ids increase with the order');
  await queue.complete(claimed.map((job) => job.id));
  t.equal(await queue.size(), 0, 'completed in one call, however many');
});

t.test('ids that are not ours, and empty limits, change nothing', async (t) => {
  const queue = await open(t);
  await queue.enqueue([{ name: 'a', payload: 1 }], T0);
  await queue.complete(['abc', '0', '', '99999999999999999999', '-1']);
  await queue.retry('nope', T0, 'x');
  await queue.bury('1e5', 'x', T0);
  t.equal(await queue.revive('abc', T0), false);
  t.strictSame(await queue.claim(T0, 0, LEASE), [], 'limit 0 claims nothing');
  t.strictSame(await queue.deadLetters(0), [], 'limit 0 lists nothing');
  t.equal(await queue.size(), 1, 'the job is still there');
  t.strictSame((await queue.claim(T0, 1, LEASE)).map((j) => j.name), ['a']);
  await t.rejects(queue.enqueue([{ name: 'b', payload: 1, runAt: Number.NaN }], T0), new TypeError('runAt must be an integer number of milliseconds'));
});

t.test('dead letters that died at the same time: the later job first', async (t) => {
  const queue = await open(t);
  await queue.enqueue([{ name: 'x', payload: 1 }, { name: 'y', payload: 2 }, { name: 'z', payload: 3, orderingKey: 'k' }], T0);
  const jobs = await queue.claim(T0, 10, LEASE);
  for (const job of jobs) await queue.bury(job.id, `dead ${job.name}`, T0 + 5);
  const dead = await queue.deadLetters(10);
  t.strictSame(
    dead.map((j) => [j.name, j.orderingKey, j.lastError, j.attempts, j.diedAt, j.createdAt]),
    [
      ['z', 'k', 'dead z', 1, T0 + 5, T0],
      ['y', null, 'dead y', 1, T0 + 5, T0],
      ['x', null, 'dead x', 1, T0 + 5, T0],
    ],
  );
  t.equal(await queue.size(), 0, 'nothing queued');
  t.equal(await queue.nextDue(), null, 'nothing due');
});

t.test('no server there: creation fails, saying where it tried', async (t) => {
  const port = await freePort();
  await t.rejects(
    createRedisQueue({ url: `redis://:secret@127.0.0.1:${port}`, connectTimeoutMs: 300 }),
    new Error(`could not connect to redis at redis://:***@127.0.0.1:${port} within 300 ms`),
    'the password is not in the message',
  );
});
