// The outbox relay: a write records its jobs in the store's own queue (storage.jobs), atomically
// with the write; when the instance's jobs wait in another queue (Redis, shared by every
// process), the relay moves them there. It runs in the worker: each pass leases a batch from
// the store, enqueues it into the other queue in the same order with the same ordering keys, and
// only then completes it in the store.
//
// - At least once: a relay that dies between the enqueue and the complete leaves its batch
//   leased in the store; once the lease runs out, a relay sends it again. Handlers are
//   idempotent, so a job that arrives twice does no harm.
// - In order per ordering key: the store hands out no later job of a key while an earlier one
//   is leased, so the next job of a key is relayed only after the one before it was enqueued.

import type { Millis } from '../model.ts';
import type { Clock } from '../ports/clock.ts';
import type { Job, JobQueue, NewJob } from '../ports/queue.ts';

export interface RelayOptions {
  /** The store's outbox (storage.jobs). */
  from: JobQueue;
  /** Where the instance's workers take their jobs. */
  to: JobQueue;
  clock: Clock;
  /** Jobs moved per pass (default 256). */
  batch?: number;
  /** How long a batch is this relay's before another may send it again (default 30 s). */
  leaseMs?: number;
}

export interface Relay {
  /** Moves one batch; the number of jobs moved (0: nothing was due). */
  pass(): Promise<number>;
  /** When the store's outbox next has something to move (null: empty). */
  nextDue(): Promise<Millis | null>;
}

function forward(job: Job): NewJob {
  return { name: job.name, payload: job.payload, orderingKey: job.orderingKey, runAt: job.runAt };
}

export function createRelay(options: RelayOptions): Relay {
  const { from, to, clock } = options;
  const batch = options.batch ?? 256;
  const leaseMs = options.leaseMs ?? 30_000;
  return {
    async pass() {
      const now = clock.now();
      const jobs = await from.claim(now, batch, leaseMs);
      if (jobs.length === 0) return 0;
      await to.enqueue(jobs.map(forward), now);
      await from.complete(jobs.map((job) => job.id));
      return jobs.length;
    },
    nextDue: () => from.nextDue(),
  };
}
