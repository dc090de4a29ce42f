// The in-process job queue (the memory store's, or alone for a process that needs no
// durability), and the outbox: a write's jobs are queued in the same synchronous step as the
// write, so they are as atomic as the write itself.

import type { Id, Millis } from '../../core/domain/model.ts';
import type { DeadJob, Job, JobQueue, NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { clone } from './shared.ts';

interface QueuedJob extends Job {
  leaseUntil: Millis | null;
}

export interface JobState {
  nextId: number;
  /** In enqueue order; a retried job keeps its place. */
  readonly queued: Map<Id, QueuedJob>;
  readonly dead: DeadJob[];
}

export function createJobState(): JobState {
  return { nextId: 1, queued: new Map(), dead: [] };
}

/** Queues jobs at once (inside a write). Without runAt a job is due now. */
export function enqueueNow(jobs: JobState, list: readonly NewJob[], now: Millis): void {
  for (const job of list) {
    const id = String(jobs.nextId++);
    jobs.queued.set(id, {
      id,
      name: job.name,
      payload: clone(job.payload ?? null),
      orderingKey: job.orderingKey ?? null,
      runAt: job.runAt ?? now,
      attempts: 0,
      lastError: null,
      createdAt: now,
      leaseUntil: null,
    });
  }
}

/** Runs a write's outbox right after the write, in the same synchronous step; its jobs are due
 * at once (0: the store has no clock of its own). */
export function recordOutbox<R>(jobs: JobState, outbox: Outbox<R> | undefined, result: R): R {
  if (outbox !== undefined) enqueueNow(jobs, outbox(result), 0);
  return result;
}

function publicJob(job: QueuedJob): Job {
  const { leaseUntil: _lease, ...rest } = job;
  return clone(rest);
}

export function jobQueue(jobs: JobState): JobQueue {
  return {
    async enqueue(list, now) {
      enqueueNow(jobs, list, now);
    },
    async claim(now, limit, leaseMs) {
      const claimed: Job[] = [];
      const blockedKeys = new Set<string>();
      for (const job of jobs.queued.values()) {
        if (claimed.length >= limit) break;
        const key = job.orderingKey;
        if (key !== null) {
          if (blockedKeys.has(key)) continue;
          blockedKeys.add(key); // whatever happens to it, it comes before the later ones
        }
        if (job.runAt > now || (job.leaseUntil !== null && job.leaseUntil > now)) continue;
        job.leaseUntil = now + leaseMs;
        claimed.push(publicJob(job));
      }
      return claimed;
    },
    async complete(ids) {
      for (const id of ids) jobs.queued.delete(id);
    },
    async retry(id, runAt, error, payload) {
      const job = jobs.queued.get(id);
      if (job === undefined) return;
      job.attempts += 1;
      job.runAt = runAt;
      job.leaseUntil = null;
      job.lastError = error;
      if (payload !== undefined) job.payload = clone(payload);
    },
    async bury(id, error, now) {
      const job = jobs.queued.get(id);
      if (job === undefined) return;
      jobs.queued.delete(id);
      jobs.dead.push({ ...publicJob(job), attempts: job.attempts + 1, lastError: error, diedAt: now });
    },
    async deadLetters(limit) {
      return jobs.dead.slice(-Math.max(0, limit)).reverse().map(clone);
    },
    async revive(id, now) {
      const index = jobs.dead.findIndex((job) => job.id === id);
      const dead = jobs.dead[index];
      if (dead === undefined) return false;
      jobs.dead.splice(index, 1);
      enqueueNow(jobs, [{ name: dead.name, payload: dead.payload, orderingKey: dead.orderingKey }], now);
      return true;
    },
    async nextDue() {
      let next: Millis | null = null;
      for (const job of jobs.queued.values()) {
        const at = Math.max(job.runAt, job.leaseUntil ?? 0);
        if (next === null || at < next) next = at;
      }
      return next;
    },
    async size() {
      return jobs.queued.size;
    },
  };
}

/** A queue that lives in this process only: for one-process setups that want no durability
 * for their jobs, and for tests of the queue semantics themselves. */
export function createInProcessQueue(): JobQueue {
  return jobQueue(createJobState());
}
