// The worker over a real queue: what runs, when it is retried, when it is given up, and that the
// events of one status are handled in order even when a handler fails on the way.

import t from 'tap';
import { createMemoryStorage } from '../../../../adapters/memory/index.ts';
import type { DomainEvent, RecordedEvent } from '../../../../core/domain/events/events.ts';
import type { Status } from '../../../../core/domain/model.ts';
import type { Logger } from '../../../../core/domain/ports/logger.ts';
import type { JobQueue } from '../../../../core/domain/ports/queue.ts';
import { JobRegistry } from '../../../../core/domain/queue/registry.ts';
import { createWorker, type Worker } from '../../../../core/domain/queue/worker.ts';

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

/** Time moves only when the test says so. */
class ManualClock {
  at = 1_700_000_000_000;
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

interface Setup {
  queue: JobQueue;
  registry: JobRegistry;
  clock: ManualClock;
  worker: Worker;
  logged: { level: string; msg: string | undefined; obj: object }[];
}

function setup(): Setup {
  const queue = queueInMemory();
  const registry = new JobRegistry();
  const clock = new ManualClock();
  const logged: Setup['logged'] = [];
  const log = (level: string) => (obj: object, msg?: string) => void logged.push({ level, msg, obj });
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { queue, registry, clock, logged, worker: createWorker({ queue, registry, clock, logger }) };
}

t.test('drain runs what is due, and what those jobs queue, but nothing that is not due', async (t) => {
  const { queue, registry, clock, worker } = setup();
  const ran: string[] = [];
  registry.register('first', async () => {
    ran.push('first');
    await queue.enqueue([{ name: 'second', payload: null }], clock.now());
  });
  registry.register('second', async () => void ran.push('second'));
  registry.register('later', async () => void ran.push('later'));
  await queue.enqueue([{ name: 'first', payload: null }, { name: 'later', payload: null, runAt: clock.now() + 60_000 }], clock.now());
  await worker.drain();
  t.strictSame(ran, ['first', 'second']);
  t.equal(await queue.size(), 1, 'the later job waits');
  clock.advance(60_000);
  await worker.drain();
  t.strictSame(ran, ['first', 'second', 'later']);
  t.equal(await queue.size(), 0);
});

t.test('a failing job is retried with backoff, then succeeds', async (t) => {
  const { queue, registry, clock, worker, logged } = setup();
  let calls = 0;
  registry.register('flaky', async () => {
    calls += 1;
    if (calls < 3) throw new Error(`failure ${calls}`);
  }, { backoff: (attempt) => attempt * 1000 });
  await queue.enqueue([{ name: 'flaky', payload: null }], clock.now());
  await worker.drain();
  t.equal(calls, 1);
  t.equal(await queue.nextDue(), clock.now() + 1000, 'due again a second later');
  await worker.drain();
  t.equal(calls, 1, 'not before its time');
  clock.advance(1000);
  await worker.drain();
  t.equal(calls, 2, 'the second run');
  clock.advance(1999);
  await worker.drain();
  t.equal(calls, 2, 'the backoff grows: attempt 2 waits two seconds');
  clock.advance(1);
  await worker.drain();
  t.equal(calls, 3, 'and then it succeeds');
  t.equal(await queue.size(), 0, 'done');
  t.strictSame(logged.filter((l) => l.level === 'warn').map((l) => l.msg), ['job failed; it will be retried', 'job failed; it will be retried']);
});

t.test('after its last attempt a job goes to the dead letters, logged; a job without handler too', async (t) => {
  const { queue, registry, clock, worker, logged } = setup();
  registry.register('doomed', async () => {
    throw new TypeError('never works');
  }, { maxAttempts: 3, backoff: () => 10 });
  await queue.enqueue([{ name: 'doomed', payload: { x: 1 } }, { name: 'unknown', payload: null }], clock.now());
  for (let i = 0; i < 3; i++) {
    await worker.drain();
    clock.advance(10);
  }
  t.equal(await queue.size(), 1, 'a job nobody here handles waits for another process for a while');
  for (let i = 0; i < 5; i++) {
    clock.advance(3_600_000);
    await worker.drain();
  }
  t.equal(await queue.size(), 0, 'nothing left queued');
  const dead = await queue.deadLetters(10);
  t.strictSame(
    dead.map((j) => [j.name, j.attempts, j.lastError, j.payload]).sort(),
    [
      ['doomed', 3, 'TypeError: never works', { x: 1 }],
      ['unknown', 5, 'no handler registered for "unknown"', null],
    ],
  );
  t.strictSame(logged.filter((l) => l.level === 'error').map((l) => l.msg).sort(), ['job failed for the last time: moved to the dead letters', 'no handler for job: moved to the dead letters']);
});

t.test("one status's events run in order for each handler, even when one of them has to be retried", async (t) => {
  const { queue, registry, clock, worker } = setup();
  const handled: string[] = [];
  let failUpdateOnce = true;
  registry.subscribe('streams', ['status.created', 'status.updated', 'status.deleted'], async ({ event }: RecordedEvent) => {
    if (event.type === 'status.updated' && failUpdateOnce) {
      failUpdateOnce = false;
      throw new Error('bus unavailable');
    }
    handled.push(`${event.type} ${'status' in event ? event.status.id : ''}`);
  }, { backoff: () => 5000 });
  const status = (id: string) => ({ id, reblogOfId: null }) as Status;
  const events: DomainEvent[] = [
    { type: 'status.created', status: status('1') },
    { type: 'status.updated', status: status('1') },
    { type: 'status.created', status: status('2') },
    { type: 'status.deleted', status: status('1'), boosts: [] },
  ];
  await queue.enqueue(events.flatMap((event, i) => registry.jobsFor({ id: String(100 + i), event })), clock.now());
  await worker.drain();
  t.strictSame(handled, ['status.created 1', 'status.created 2'], "status 2 is not held up; status 1's delete waits for its update");
  clock.advance(5000);
  await worker.drain();
  t.strictSame(handled, ['status.created 1', 'status.created 2', 'status.updated 1', 'status.deleted 1'], 'the update, then the delete');
});

t.test('the background loop runs jobs without drain, and stop() ends it', async (t) => {
  const { queue, registry, clock, worker } = setup();
  const ran = new Promise<string>((resolve) => registry.register('ping', async (payload) => resolve(String(payload))));
  worker.start();
  await queue.enqueue([{ name: 'ping', payload: 'pong' }], clock.now());
  worker.wake();
  t.equal(await ran, 'pong');
  await worker.stop();
  t.equal(await queue.size(), 0);
});

t.test('woken, the worker runs the jobs on the next turns of the loop, without waiting for a timer', async (t) => {
  const { queue, registry, clock, worker } = setup();
  let ran = false;
  registry.register('ping', async () => {
    ran = true;
  });
  worker.start();
  await worker.drain();
  await queue.enqueue([{ name: 'ping', payload: null }], clock.now());
  // Timers never fire while the worker is woken: only what needs none can run the job.
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((() => ({ unref() {}, ref() {} })) as unknown) as typeof setTimeout;
  try {
    worker.wake();
    for (let turn = 0; turn < 50 && !ran; turn++) await new Promise((next) => setImmediate(next));
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  t.ok(ran, 'the job ran with every timer held back');
  await worker.stop();
});

t.test("a started worker runs its own process's jobs without claiming them, and still claims others' at least every pollMs", async (t) => {
  const store = queueInMemory();
  const ran: string[] = [];
  /** How many jobs had run when each claim was made. */
  const claims: number[] = [];
  // The store's queue, with its claims noted; what another process queued is claimed from it.
  const queue: JobQueue = {
    ...store,
    claim: (now, limit, leaseMs) => {
      claims.push(ran.length);
      return store.claim(now, limit, leaseMs);
    },
    keepOwn: (keep) => store.keepOwn!(keep),
    takeOwn: (limit) => store.takeOwn!(limit),
  };
  const registry = new JobRegistry();
  const clock = new ManualClock();
  const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
  const worker = createWorker({ queue, registry, clock, logger, pollMs: 200 });
  registry.register('job', async (payload) => void ran.push(String(payload)));
  worker.start();
  await worker.drain();
  claims.length = 0;

  await queue.enqueue([{ name: 'job', payload: 'own 1' }, { name: 'job', payload: 'own 2' }], clock.now());
  // Another process's job: in the store, not kept here (enqueued before keepOwn could see it).
  await store.keepOwn!(null);
  await store.enqueue([{ name: 'job', payload: 'elsewhere' }], clock.now());
  await queue.keepOwn!({ now: () => clock.now(), leaseMs: 60_000, max: 256 });
  await queue.enqueue([{ name: 'job', payload: 'own 3' }], clock.now());
  await worker.drain();
  t.strictSame(ran.sort(), ['elsewhere', 'own 1', 'own 2', 'own 3'], 'all ran, once each');
  t.equal(await queue.size(), 0, 'and completed');

  // Its own jobs do not wait for a claim: the pass that runs them claims nothing, unless
  // pollMs went by since the last claim.
  const ownAndOther = async (advance: number): Promise<number[]> => {
    ran.length = 0;
    await store.keepOwn!(null);
    await store.enqueue([{ name: 'job', payload: 'elsewhere' }], clock.now());
    await queue.keepOwn!({ now: () => clock.now(), leaseMs: 60_000, max: 256 });
    await queue.enqueue([{ name: 'job', payload: 'own 1' }, { name: 'job', payload: 'own 2' }], clock.now());
    clock.advance(advance);
    claims.length = 0;
    await worker.drain();
    return [...claims];
  };
  t.strictSame(await ownAndOther(0), [2, 3], 'within pollMs of the last claim: a claim only once its own two ran (and one more to find nothing)');
  t.strictSame(ran, ['own 1', 'own 2', 'elsewhere'], 'its own first, then the claimed one');
  t.strictSame(await ownAndOther(200), [0, 3], 'pollMs after the last claim: the first pass claims too');
  t.strictSame(ran, ['own 1', 'own 2', 'elsewhere'], 'all in that pass');
  await worker.stop();
});

t.test('stop() gives back the leases of the jobs kept and not run', async (t) => {
  const { queue, registry, clock, worker } = setup();
  registry.register('job', async () => {});
  worker.start();
  await worker.stop();
  // Kept once more, by hand, as a write committed while the worker stopped would have left it.
  await queue.keepOwn!({ now: () => clock.now(), leaseMs: 60_000, max: 256 });
  await queue.enqueue([{ name: 'job', payload: 1 }], clock.now());
  await queue.keepOwn!(null);
  t.strictSame((await queue.claim(clock.now(), 10, 60_000)).map((j) => j.payload), [1], 'claimable at once');
});

t.test('a run that never ends is given up on after its time limit: the pass goes on, the job is retried', async (t) => {
  const { queue, registry, clock, worker, logged } = setup();
  let runs = 0;
  let stuck = true;
  registry.register('tarpit', () => {
    runs += 1;
    // A first run that never ends (a server that never answers); the retry is served.
    return stuck ? new Promise<void>(() => {}) : Promise.resolve();
  }, { timeoutMs: 20, backoff: () => 1000 });
  const ran: string[] = [];
  registry.register('quick', async () => void ran.push('quick'));
  await queue.enqueue([{ name: 'tarpit', payload: null }, { name: 'quick', payload: null }], clock.now());
  await worker.drain();
  t.strictSame(ran, ['quick'], 'the other job of the pass ran');
  t.equal(runs, 1);
  t.equal(await queue.size(), 1, 'the stuck one waits for its retry');
  t.equal(await queue.nextDue(), clock.now() + 1000, 'with its backoff');
  t.match(logged.find((l) => l.level === 'warn')?.obj, { job: 'tarpit', attempt: 1, err: { name: 'JobTimeout', message: 'no result within 20 ms' } });
  stuck = false;
  clock.advance(1000);
  await worker.drain();
  t.equal(runs, 2);
  t.equal(await queue.size(), 0, 'done on the retry');
});

t.test('worker and job options are checked', async (t) => {
  const { queue, registry, clock } = setup();
  const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
  const ranges: Record<string, string> = { batch: '1 to 10000', leaseMs: '1 to 86400000', pollMs: '1 to 3600000', jobTimeoutMs: '1 to 86400000' };
  for (const [name, range] of Object.entries(ranges)) {
    for (const value of [0, -5, 1.5, Number.NaN]) {
      t.throws(() => createWorker({ queue, registry, clock, logger, [name]: value }), { name: 'ConfigError', message: `Invalid config: worker: "${name}" must be a whole number from ${range}, got ${value}` });
    }
  }
  t.throws(() => createWorker({ queue, registry, clock, logger, batchSize: 5 } as never), { name: 'ConfigError', message: 'Invalid config: worker: unknown option "batchSize"' });
  t.throws(() => registry.register('x', async () => {}, { timeoutMs: 0 }), { name: 'ConfigError', message: 'Invalid config: job "x": "timeoutMs" must be a whole number from 1 to 86400000, got 0' });
});
