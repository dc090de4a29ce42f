// Runs queued jobs: claims due jobs in batches, runs each with its handler, completes the ones
// that succeeded, retries the ones that failed with backoff, and buries a job in the dead
// letters after its last attempt (logged, and listed by the operator CLI). Jobs of one ordering
// key never run at the same time (the queue does not hand them out together), so a batch runs
// concurrently. One pass runs at a time in a process; drain() runs passes until nothing is due.
// A run that takes longer than its time limit counts as failed and is retried: a remote server
// that never answers must not hold back every other job of the pass (the streams'
// and notifications' among them) for the minutes a socket may wait.
// With a relay (the queue is not the store's own), each pass first moves what writes recorded
// in the store's outbox into the queue (relay.ts). A queue that can (JobQueue.keepOwn) hands the
// worker the jobs this process's writes record as they commit; it still claims what others
// queued (and retries now due) whenever it has none of its own, and at least every pollMs.

import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Job, JobQueue } from '../ports/queue.ts';
import { defaultBackoff, type JobRegistry } from './registry.ts';
import type { Relay } from './relay.ts';
import { checkOptions, option, type OptionSpec } from '../options.ts';

/** Runs of a job nobody here handles before it goes to the dead letters. */
const UNKNOWN_JOB_ATTEMPTS = 5;

export interface WorkerOptions {
  queue: JobQueue;
  registry: JobRegistry;
  clock: Clock;
  logger: Logger;
  /** Jobs claimed per pass (default 64). */
  batch?: number;
  /** How long a claimed job is ours before another worker may take it (default 60 s). */
  leaseMs?: number;
  /** How long a run may take, unless its handler says otherwise (default 30 s, the time
   * Mastodon gives a delivery); never more than the lease. */
  jobTimeoutMs?: number;
  /** How often an idle worker looks for jobs other processes queued (default 200 ms). */
  pollMs?: number;
  /** Moves jobs from the store's outbox into `queue` before each claim. */
  relay?: Relay | null;
  /** Called before the claimed jobs run: they must see the writes that queued them, whichever
   * process made those (Storage.freshen). */
  freshen?: () => void;
}

export interface Worker {
  /** Starts the background loop. */
  start(): void;
  /** Runs a pass soon (jobs were just queued in this process). */
  wake(): void;
  /** Resolves once no due job is left and none is running; jobs queued meanwhile included. */
  drain(): Promise<void>;
  /** Stops the loop and waits for the running pass. */
  stop(): Promise<void>;
}

class JobTimeout extends Error {
  constructor(ms: number) {
    super(`no result within ${ms} ms`);
    this.name = 'JobTimeout';
  }
}

/** `work`, or a JobTimeout after `ms`. Nothing can stop the work itself: once given up on, its
 * result is ignored (the retry runs it again: handlers are idempotent, they run at least once). */
function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new JobTimeout(ms)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 2000);
  return String(err).slice(0, 2000);
}

/** What RookeryOptions.worker may tune. */
export const WORKER_TUNING: OptionSpec = {
  batch: option.integer(1, 10_000),
  leaseMs: option.integer(1, 86_400_000),
  pollMs: option.integer(1, 3_600_000),
  jobTimeoutMs: option.integer(1, 86_400_000),
};

const WORKER_OPTIONS: OptionSpec = {
  ...WORKER_TUNING,
  queue: option.required(option.implementing('a JobQueue', ['enqueue', 'claim', 'complete'])),
  registry: option.required(option.implementing('a JobRegistry', ['get'])),
  clock: option.required(option.implementing('a Clock', ['now'])),
  logger: option.required(option.implementing('a Logger', ['info', 'warn', 'error'])),
  relay: option.either({ what: 'null', test: (v) => v === null }, option.implementing('a Relay', ['pass', 'nextDue'])),
  freshen: option.function(),
};

export function createWorker(options: WorkerOptions): Worker {
  checkOptions('worker', options, WORKER_OPTIONS);
  const { queue, registry, clock, logger } = options;
  const batch = options.batch ?? 64;
  const leaseMs = options.leaseMs ?? 60_000;
  const jobTimeoutMs = options.jobTimeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 200;
  const relay = options.relay ?? null;
  let running = false;
  /** When the last claim was made (jobs of this process's own may make claims rarer). */
  let claimedAt = -Infinity;
  /** The next pass, when one is scheduled. */
  let next: { cancel(): void } | null = null;
  let chain: Promise<unknown> = Promise.resolve();

  async function runOne(job: Job): Promise<boolean> {
    const registered = registry.get(job.name);
    if (registered === undefined) {
      // Perhaps a process with another set of plugins queued it (a deploy half done): it is
      // retried like a failure, and buried only when nobody took it for that long.
      const attempt = job.attempts + 1;
      const error = `no handler registered for "${job.name}"`;
      if (attempt >= UNKNOWN_JOB_ATTEMPTS) {
        logger.error({ job: job.name, id: job.id, attempts: attempt }, 'no handler for job: moved to the dead letters');
        await queue.bury(job.id, error, clock.now());
      } else {
        logger.warn({ job: job.name, id: job.id, attempt }, 'no handler for job in this process; it will be retried');
        await queue.retry(job.id, clock.now() + defaultBackoff(attempt), error);
      }
      return false;
    }
    try {
      await within(registered.handler(job.payload, job), Math.min(registered.timeoutMs ?? jobTimeoutMs, leaseMs));
      return true;
    } catch (err) {
      const attempt = job.attempts + 1;
      if (attempt >= registered.maxAttempts) {
        logger.error({ err, job: job.name, id: job.id, attempts: attempt }, 'job failed for the last time: moved to the dead letters');
        await queue.bury(job.id, describe(err), clock.now());
      } else {
        logger.warn({ err, job: job.name, id: job.id, attempt }, 'job failed; it will be retried');
        await queue.retry(job.id, clock.now() + registered.backoff(attempt), describe(err));
      }
      return false;
    }
  }

  /** One relay pass, one claim and its jobs; the number of jobs relayed and claimed. */
  async function pass(): Promise<number> {
    const relayed = relay === null ? 0 : await relay.pass();
    const own = queue.takeOwn?.(batch) ?? [];
    const now = clock.now();
    let jobs = own;
    if (own.length === 0 || now - claimedAt >= pollMs) {
      claimedAt = now;
      const claimed = await queue.claim(now, batch, leaseMs);
      jobs = own.length === 0 ? claimed : [...own, ...claimed];
    }
    if (jobs.length === 0) return relayed;
    options.freshen?.();
    const outcomes = await Promise.all(jobs.map((job) => runOne(job).catch((err: unknown) => {
      logger.error({ err, job: job.name, id: job.id }, 'the queue failed to record a job outcome');
      return false;
    })));
    const done = jobs.filter((_, i) => outcomes[i]).map((job) => job.id);
    if (done.length > 0) await queue.complete(done);
    return relayed + jobs.length;
  }

  async function nextDue(): Promise<number | null> {
    const [queued, recorded] = await Promise.all([queue.nextDue(), relay === null ? null : relay.nextDue()]);
    if (queued === null) return recorded;
    return recorded === null ? queued : Math.min(queued, recorded);
  }

  /** Passes never overlap within one process: drain() and the loop share one chain. */
  function serialPass(): Promise<number> {
    const next = chain.then(pass, pass);
    chain = next.catch(() => undefined);
    return next;
  }

  /** `idle`: only polling for work other processes may queue, which must never keep this
   * process alive on its own; work known to be due keeps it alive until it ran. */
  function schedule(delay: number, idle: boolean): void {
    if (!running) return;
    next?.cancel();
    if (delay === 0 && !idle) {
      // Woken for jobs just committed: a timer would wait a whole millisecond first, and every
      // live stream's delivery waits with it.
      const immediate = setImmediate(loop);
      next = { cancel: () => clearImmediate(immediate) };
      return;
    }
    const timer = setTimeout(loop, delay);
    if (idle) (timer as { unref?: () => void }).unref?.();
    next = { cancel: () => clearTimeout(timer) };
  }

  async function loop(): Promise<void> {
    next = null;
    if (!running) return;
    try {
      // Between passes the loop lets a turn go by: what the jobs just did queued for it (a live
      // stream's write-out) and waiting requests come before the next claim.
      while (running && (await serialPass()) > 0) await new Promise((turn) => setImmediate(turn));
      const due = await nextDue();
      schedule(due === null ? pollMs : Math.max(0, Math.min(pollMs, due - clock.now())), true);
    } catch (err) {
      logger.error({ err }, 'job worker pass failed');
      schedule(pollMs, true);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      void queue.keepOwn?.({ now: () => clock.now(), leaseMs, max: batch * 4 }).catch((err: unknown) => logger.error({ err }, 'the queue could not keep the jobs of this process'));
      schedule(0, true);
    },
    wake() {
      if (running) schedule(0, false);
    },
    async drain() {
      while ((await serialPass()) > 0);
    },
    async stop() {
      running = false;
      next?.cancel();
      next = null;
      await chain;
      // What was kept and not run goes back to the queue at once, not when its lease ends.
      await queue.keepOwn?.(null);
    },
  };
}
