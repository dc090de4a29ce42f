// The job queue port: work that runs after a write committed, off the request path, at least
// once. Jobs are named; the runtime (core/queue/) holds a handler per name, retries failures
// with backoff and moves a job that keeps failing to a dead-letter list an operator can read.
//
// Contract (test/contract/ checks it on every implementation):
// - A job is handed out by `claim` to one caller at a time: claiming leases it until
//   now + leaseMs; a lease that runs out (its worker died) makes the job claimable again.
// - Jobs are claimed in the order they were enqueued. A job with an ordering key is not
//   claimable while an earlier job with the same key is still queued or leased, so the jobs of
//   one key run one after the other, in order, retries included.
// - `complete` removes jobs; `retry` keeps a job in its place in the order, releases its lease,
//   counts an attempt and makes it due again at `runAt`; `bury` moves it to the dead letters.
// - Nothing is lost by a restart for a durable implementation (every storage adapter's own).

import type { Id, Millis } from '../model.ts';

export interface NewJob {
  /** The handler that runs it. */
  name: string;
  /** Plain JSON data. */
  payload: unknown;
  /** Jobs with one key run one at a time, in the order they were enqueued. */
  orderingKey?: string | null;
  /** Not before this time (default: at once). */
  runAt?: Millis;
}

export interface Job {
  id: Id;
  name: string;
  payload: unknown;
  orderingKey: string | null;
  runAt: Millis;
  /** Failed runs so far. */
  attempts: number;
  lastError: string | null;
  createdAt: Millis;
}

export interface DeadJob extends Job {
  diedAt: Millis;
}

export interface JobQueue {
  /** Enqueues in order; `now` is the enqueue time (and the default runAt). */
  enqueue(jobs: readonly NewJob[], now: Millis): Promise<void>;
  /** ATOMIC. Leases up to `limit` due jobs (runAt <= now, no live lease, no earlier job with
   * the same ordering key), oldest first. */
  claim(now: Millis, limit: number, leaseMs: number): Promise<Job[]>;
  /** Removes finished jobs. */
  complete(ids: readonly Id[]): Promise<void>;
  /** A failed run: attempts + 1, due again at runAt, lease released; `payload` replaces the
   * job's payload when given. */
  retry(id: Id, runAt: Millis, error: string, payload?: unknown): Promise<void>;
  /** Moves a job that will not be retried to the dead letters. */
  bury(id: Id, error: string, now: Millis): Promise<void>;
  /** Dead letters, most recent first. */
  deadLetters(limit: number): Promise<DeadJob[]>;
  /** Puts a dead job back in the queue, due now, attempts reset; false when there is none. */
  revive(id: Id, now: Millis): Promise<boolean>;
  /** The earliest time a queued job can next be claimed (its runAt, or the end of its lease),
   * null when the queue is empty: how long an idle worker may sleep. */
  nextDue(): Promise<Millis | null>;
  /** Queued jobs (leased or not), for operators and tests. */
  size(): Promise<number>;
  /** For a queue apart from the store (Redis): releases its connections. The store's own queue
   * closes with the store and need not have it. */
  close?(): Promise<void>;
  /** Optional (the store's own queue): hands this process's worker the jobs this process's
   * writes record, instead of leaving them for it to claim back from the store. From this call
   * on, a job recorded due now is leased to this process by the write that records it (until
   * `keep.now() + keep.leaseMs`, as a claim would) when no earlier job has its ordering key and
   * fewer than `keep.max` wait; once that write commits, takeOwn hands it out. null stops it
   * and releases the leases of the jobs not yet taken. */
  keepOwn?(keep: OwnJobs | null): Promise<void>;
  /** Up to `limit` of the jobs kept for this process (keepOwn), oldest first: each is leased to
   * the caller, as if claimed. */
  takeOwn?(limit: number): Job[];
}

/** How a queue keeps the jobs its own process records (JobQueue.keepOwn). */
export interface OwnJobs {
  now(): Millis;
  leaseMs: number;
  /** Jobs kept at most; past it, jobs wait to be claimed as usual. */
  max: number;
}

/** Jobs a storage write records in the same atomic step (a transactional outbox). The adapter
 * calls it once, inside the write, with the write's result, and enqueues what it returns with
 * the write: both happen or neither does. */
export type Outbox<R> = (result: R) => readonly NewJob[];
