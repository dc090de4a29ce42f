// The job queue contract (core/domain/ports/queue.ts): one suite every queue must pass — every
// store's own (SQLite's, PostgreSQL's, MongoDB's) and any other (Redis). Like the storage
// contract it ships as `rookery/testing`:
//
//   import t from 'tap';
//   import { queueContract } from 'rookery/testing';
//   queueContract(t, 'my queue', async () => {
//     const queue = await openMyQueue();
//     return { queue, cleanup: () => queue.close() };
//   });
//
// `connect` (a second independent connection to the same queue) makes the suite race claims
// across connections; `reopen` checks that queued jobs survive a restart.

import type { Job, JobQueue } from '../../core/domain/ports/queue.ts';
import type { ContractTest } from './storage-contract.ts';

export interface QueueHandle {
  queue: JobQueue;
  connect?: () => Promise<JobQueue>;
  reopen?: () => Promise<JobQueue>;
  cleanup(): Promise<void>;
}

export type OpenQueue = () => Promise<QueueHandle>;

const T0 = 1_700_000_000_000;
const LEASE = 30_000;

const names = (jobs: readonly Job[]): string[] => jobs.map((j) => j.name);

export function queueContract(t: ContractTest, adapterName: string, open: OpenQueue): void {
  const it = (name: string, body: (t: ContractTest, handle: QueueHandle) => Promise<void>): void => {
    void t.test(`${adapterName}: ${name}`, async (t) => {
      const handle = await open();
      try {
        await body(t, handle);
      } finally {
        await handle.cleanup();
      }
    });
  };

  it('enqueue and claim: in order, with every field, up to the limit', async (t, { queue }) => {
    await queue.enqueue([{ name: 'a', payload: { n: 1, nested: ['x'] } }, { name: 'b', payload: null, orderingKey: 'k' }, { name: 'c', payload: 'text' }], T0);
    t.equal(await queue.size(), 3, 'three queued');
    const first = await queue.claim(T0, 2, LEASE);
    t.strictSame(
      first.map((j) => ({ name: j.name, payload: j.payload, orderingKey: j.orderingKey, runAt: j.runAt, attempts: j.attempts, lastError: j.lastError, createdAt: j.createdAt })),
      [
        { name: 'a', payload: { n: 1, nested: ['x'] }, orderingKey: null, runAt: T0, attempts: 0, lastError: null, createdAt: T0 },
        { name: 'b', payload: null, orderingKey: 'k', runAt: T0, attempts: 0, lastError: null, createdAt: T0 },
      ],
      'the oldest two, as enqueued',
    );
    t.equal(new Set(first.map((j) => j.id)).size, 2, 'each has its own id');
    const [c] = await queue.claim(T0 + 1, 10, LEASE);
    t.strictSame(c?.name, 'c', 'a leased job is not handed out again');
    t.strictSame(names(await queue.claim(T0 + LEASE - 1, 10, LEASE)), [], 'not before its lease ends');
    t.strictSame(names(await queue.claim(T0 + LEASE, 10, LEASE)), ['a', 'b'], 'a lease that ran out (its worker died) frees the job');
    await queue.complete(first.map((j) => j.id));
    t.equal(await queue.size(), 1, 'completed jobs are gone');
    t.strictSame(names(await queue.claim(T0 + 10 * LEASE, 10, LEASE)), ['c'], 'the one left');
    await queue.complete([]);
    t.equal(await queue.size(), 1, 'completing nothing changes nothing');
  });

  it('runAt: a job is not due before its time; nextDue says when the next one is', async (t, { queue }) => {
    t.equal(await queue.nextDue(), null, 'an empty queue: nothing due');
    await queue.enqueue([{ name: 'later', payload: 1, runAt: T0 + 5000 }, { name: 'soon', payload: 2, runAt: T0 + 1000 }], T0);
    t.equal(await queue.nextDue(), T0 + 1000, 'the earliest runAt');
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), [], 'nothing due yet');
    t.strictSame(names(await queue.claim(T0 + 1000, 10, LEASE)), ['soon']);
    t.equal(await queue.nextDue(), T0 + 5000, 'a leased job counts from the end of its lease');
    t.strictSame(names(await queue.claim(T0 + 5000, 10, LEASE)), ['later']);
  });

  it('ordering keys: one job of a key at a time, in order, retries included', async (t, { queue }) => {
    await queue.enqueue(
      [
        { name: 'k1', payload: null, orderingKey: 'status:1' },
        { name: 'k2', payload: null, orderingKey: 'status:1' },
        { name: 'j1', payload: null, orderingKey: 'status:2' },
        { name: 'free', payload: null },
        { name: 'k3', payload: null, orderingKey: 'status:1' },
      ],
      T0,
    );
    const first = await queue.claim(T0, 10, LEASE);
    t.strictSame(names(first), ['k1', 'j1', 'free'], 'a later job of a key waits for the earlier one');
    await queue.complete(first.slice(1).map((j) => j.id));
    const k1 = first[0] as Job;
    await queue.retry(k1.id, T0 + 60_000, 'boom');
    t.strictSame(names(await queue.claim(T0 + 1000, 10, LEASE)), [], 'a retry keeps its place: k2 still waits behind k1');
    const again = await queue.claim(T0 + 60_000, 10, LEASE);
    t.strictSame(names(again), ['k1'], 'k1 again, when due');
    t.equal(again[0]?.attempts, 1, 'with its attempt counted');
    t.equal(again[0]?.lastError, 'boom');
    await queue.complete([k1.id]);
    t.strictSame(names(await queue.claim(T0 + 60_000, 10, LEASE)), ['k2'], 'then k2, and only k2');
  });

  it('retry: counts the attempt, reschedules, releases the lease, may replace the payload', async (t, { queue }) => {
    await queue.enqueue([{ name: 'x', payload: { step: 1 } }], T0);
    const [job] = await queue.claim(T0, 1, LEASE);
    await queue.retry((job as Job).id, T0 + 10, 'first failure', { step: 2 });
    const [second] = await queue.claim(T0 + 10, 1, LEASE);
    t.strictSame([second?.id, second?.attempts, second?.lastError, second?.payload, second?.runAt], [job?.id, 1, 'first failure', { step: 2 }, T0 + 10]);
    await queue.retry((second as Job).id, T0 + 20, 'second failure');
    const [third] = await queue.claim(T0 + 20, 1, LEASE);
    t.strictSame([third?.attempts, third?.payload], [2, { step: 2 }], 'the payload stays when none is given');
  });

  it('bury: the dead letters, newest first; revive puts a job back', async (t, { queue }) => {
    await queue.enqueue([{ name: 'd1', payload: 1, orderingKey: 'k' }, { name: 'd2', payload: 2 }, { name: 'after', payload: 3, orderingKey: 'k' }], T0);
    const [d1, d2] = await queue.claim(T0, 2, LEASE);
    await queue.retry((d1 as Job).id, T0, 'once');
    await queue.claim(T0, 1, LEASE);
    await queue.bury((d1 as Job).id, 'gave up', T0 + 1);
    await queue.bury((d2 as Job).id, 'no handler', T0 + 2);
    const dead = await queue.deadLetters(10);
    t.strictSame(
      dead.map((j) => [j.name, j.attempts, j.lastError, j.diedAt, j.payload]),
      [
        ['d2', 1, 'no handler', T0 + 2, 2],
        ['d1', 2, 'gave up', T0 + 1, 1],
      ],
      'each with its attempts (the last one counted), its error and when it died',
    );
    t.strictSame(names(await queue.deadLetters(1)), ['d2'], 'limit');
    const after = await queue.claim(T0 + 3, 10, LEASE);
    t.strictSame(names(after), ['after'], 'a buried job no longer holds its key');
    await queue.complete(after.map((j) => j.id));
    t.equal(await queue.revive('999999999', T0), false, 'reviving an unknown job');
    t.equal(await queue.revive((d1 as Job).id, T0 + 4), true);
    t.strictSame(names(await queue.deadLetters(10)), ['d2'], 'no longer dead');
    const revived = await queue.claim(T0 + 4, 10, LEASE);
    t.strictSame(revived.map((j) => [j.name, j.attempts, j.payload]), [['d1', 0, 1]], 'queued again with its attempts reset');
  });

  it('claims race across connections: every job goes to exactly one', async (t, handle) => {
    if (handle.connect === undefined) {
      t.pass('single-connection queue: nothing to race');
      return;
    }
    const other = await handle.connect();
    await handle.queue.enqueue(Array.from({ length: 200 }, (_, i) => ({ name: `j${i}`, payload: i })), T0);
    const claims: Promise<Job[]>[] = [];
    for (let i = 0; i < 20; i++) claims.push((i % 2 === 0 ? handle.queue : other).claim(T0, 15, LEASE));
    const got = (await Promise.all(claims)).flat().map((j) => j.name);
    t.equal(got.length, 200, 'all 200 handed out');
    t.equal(new Set(got).size, 200, 'none twice');
  });

  it('jobs survive a restart', async (t, handle) => {
    if (handle.reopen === undefined) {
      t.pass('a queue that lives in memory: nothing to reopen');
      return;
    }
    await handle.queue.enqueue([{ name: 'kept', payload: { a: 1 }, orderingKey: 'k', runAt: T0 + 5 }], T0);
    const reopened = await handle.reopen();
    const [job] = await reopened.claim(T0 + 5, 1, LEASE);
    t.strictSame([job?.name, job?.payload, job?.orderingKey], ['kept', { a: 1 }, 'k']);
  });

  // keepOwn and takeOwn are optional: a queue that has them hands its own process's jobs over.
  const ownJobs = (name: string, body: (t: ContractTest, handle: QueueHandle, queue: Required<Pick<JobQueue, 'keepOwn' | 'takeOwn'>> & JobQueue) => Promise<void>): void =>
    it(name, async (t, handle) => {
      const { queue } = handle;
      if (queue.keepOwn === undefined || queue.takeOwn === undefined) {
        t.pass('this queue does not keep its own jobs');
        return;
      }
      await body(t, handle, queue as Required<Pick<JobQueue, 'keepOwn' | 'takeOwn'>> & JobQueue);
    });

  ownJobs('keepOwn: the jobs enqueued here are handed over, leased, as a claim hands them', async (t, handle, queue) => {
    await queue.keepOwn({ now: () => T0, leaseMs: LEASE, max: 10 });
    await queue.enqueue([{ name: 'a', payload: { n: 1 } }, { name: 'b', payload: null, orderingKey: 'k' }, { name: 'c', payload: 'text' }], T0);
    const taken = queue.takeOwn(2);
    t.strictSame(
      taken.map((j) => ({ name: j.name, payload: j.payload, orderingKey: j.orderingKey, runAt: j.runAt, attempts: j.attempts, lastError: j.lastError, createdAt: j.createdAt })),
      [
        { name: 'a', payload: { n: 1 }, orderingKey: null, runAt: T0, attempts: 0, lastError: null, createdAt: T0 },
        { name: 'b', payload: null, orderingKey: 'k', runAt: T0, attempts: 0, lastError: null, createdAt: T0 },
      ],
      'the oldest two, up to the limit',
    );
    t.strictSame(names(queue.takeOwn(10)), ['c'], 'then the rest');
    t.strictSame(queue.takeOwn(10), [], 'each once');
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), [], 'leased: no claim gets them');
    if (handle.connect !== undefined) t.strictSame(names(await (await handle.connect()).claim(T0, 10, LEASE)), [], 'not from another connection either');
    t.strictSame(names(await queue.claim(T0 + LEASE, 10, LEASE)), ['a', 'b', 'c'], 'until the lease runs out (the process died)');
    await queue.complete(taken.map((j) => j.id));
    t.equal(await queue.size(), 1, 'completed as claimed jobs are');
    await queue.keepOwn(null);
  });

  ownJobs('keepOwn: a job behind an earlier one of its key, one not yet due, and those past the most kept wait for a claim', async (t, _handle, queue) => {
    await queue.enqueue([{ name: 'first', payload: 1, orderingKey: 'k' }], T0);
    await queue.keepOwn({ now: () => T0, leaseMs: LEASE, max: 2 });
    await queue.enqueue([{ name: 'second', payload: 2, orderingKey: 'k' }, { name: 'later', payload: 3, runAt: T0 + 5000 }], T0);
    await queue.enqueue([{ name: 'p', payload: 4 }, { name: 'q', payload: 5, orderingKey: 'other' }, { name: 'r', payload: 6 }], T0);
    t.strictSame(names(queue.takeOwn(10)), ['p', 'q'], 'two kept, no more');
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), ['first', 'r'], 'the others are claimed as usual; second waits behind first');
    await queue.keepOwn(null);
  });

  ownJobs('keepOwn: of two jobs of one key enqueued together, only the first is kept', async (t, _handle, queue) => {
    await queue.keepOwn({ now: () => T0, leaseMs: LEASE, max: 10 });
    await queue.enqueue([{ name: 'x', payload: 1, orderingKey: 'same' }, { name: 'y', payload: 1, orderingKey: 'same' }], T0);
    const taken = queue.takeOwn(10);
    t.strictSame(names(taken), ['x']);
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), [], 'y waits behind x');
    await queue.complete(taken.map((j) => j.id));
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), ['y'], 'until x is done');
    await queue.keepOwn(null);
  });

  ownJobs('keepOwn: a job whose lease ran out before it was taken is left to the claims', async (t, _handle, queue) => {
    let now = T0;
    await queue.keepOwn({ now: () => now, leaseMs: LEASE, max: 10 });
    await queue.enqueue([{ name: 'waited', payload: 1 }], T0);
    now = T0 + LEASE;
    await queue.enqueue([{ name: 'fresh', payload: 2 }], now);
    t.strictSame(names(queue.takeOwn(10)), ['fresh'], 'only the one still leased');
    t.strictSame(names(await queue.claim(now, 10, LEASE)), ['waited'], 'the other is claimed, once');
    await queue.keepOwn(null);
  });

  ownJobs('keepOwn(null) gives back the leases of the jobs not taken', async (t, _handle, queue) => {
    await queue.keepOwn({ now: () => T0, leaseMs: LEASE, max: 10 });
    await queue.enqueue([{ name: 'taken', payload: 1 }, { name: 'left', payload: 2 }], T0);
    t.strictSame(names(queue.takeOwn(1)), ['taken']);
    await queue.keepOwn(null);
    t.strictSame(queue.takeOwn(10), [], 'nothing is kept any more');
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), ['left'], 'what was not taken is claimable at once; what was taken stays leased');
    await queue.enqueue([{ name: 'after', payload: 3 }], T0);
    t.strictSame(names(await queue.claim(T0, 10, LEASE)), ['after'], 'jobs enqueued after it are claimed as usual');
  });
}
