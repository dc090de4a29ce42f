// The outbox on MongoDB: a write and the jobs it records are one atomic step.
// - A write that spans documents runs in a transaction, and its jobs are inserted into `jobs`
//   inside it (insertIn).
// - A write that changes one document carries its jobs inside that document (`_jobs`, in the
//   same single-document update), and moves them to `jobs` right after: insert them (each under
//   its own `_id`, so inserting twice is harmless), then pull them out of the document. A crash
//   between the two leaves them in the document, where the sweep finds them and finishes the move.
// - Jobs that come with no write (an outbox asked about a write that changed nothing) enter as
//   one insert, or, for several, as one batch document of `outbox` moved the same way.
// Sequence numbers (the queue's order) are drawn from `counters` before the write, so a job of a
// write that began after another one returned comes after that one's jobs.

import type { Millis } from '../../core/domain/model.ts';
import type { NewJob } from '../../core/domain/ports/queue.ts';
import { DUPLICATE_KEY } from './errors.ts';
import { jobDoc, type JobDoc } from './jobs.ts';
import type { Doc } from './values.ts';

/** A job waiting inside a document: its document in `jobs`, and when it was recorded (wall
 * clock: the sweep leaves recent ones to the writer that is moving them). */
export type PendingJob = JobDoc & { at: Date };

/** How many job sequence numbers a write takes: `$inc` returns the last one. */
export function allocateUpdate(n: number): { filter: Doc; update: Doc } {
  return { filter: { _id: 'jobs' }, update: { $inc: { seq: n } } };
}

/** Job documents for the jobs a write records: due at once unless they say otherwise, created
 * at 0 (the store has no clock of its own; 0 is "now" whatever clock the workers use). */
export function pendingJobs(firstSeq: number, jobs: readonly NewJob[], at: Date, now: Millis = 0): PendingJob[] {
  return jobs.map((job, i) => ({ ...jobDoc(firstSeq + i, job, now), at }));
}

/** The document `jobs` gets for a pending job (without its `at`). */
export function jobDocOf(entry: PendingJob | JobDoc): JobDoc {
  const { at: _at, ...doc } = entry as PendingJob;
  return doc;
}

/** Takes moved jobs out of a document's `_jobs`, and `_jobs` itself once it is empty. */
export function pullJobs(ids: readonly number[]): Doc[] {
  return [
    { $set: { _jobs: { $filter: { input: { $ifNull: ['$_jobs', []] }, cond: { $not: [{ $in: ['$$this._id', ids] }] } } } } },
    { $set: { _jobs: { $cond: [{ $eq: [{ $size: '$_jobs' }, 0] }, '$$REMOVE', '$_jobs'] } } },
  ];
}

/** Documents of a collection that hold jobs recorded before `before`. */
export function sweepFilter(before: Date): Doc {
  return { '_jobs.at': { $lt: before } };
}

/** true when every failure of an insertMany is a duplicate `_id`: the jobs were there already. */
export function onlyDuplicates(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors === undefined ? [] : [writeErrors];
  if (list.length === 0) return (error as { code?: unknown }).code === DUPLICATE_KEY;
  return list.every((w) => typeof w === 'object' && w !== null && (w as { code?: unknown }).code === DUPLICATE_KEY);
}
