// The durable job queue in the store's own database, with no multi-document transaction.
//
// A job is one document of `jobs`: `_id` its id (a number from the `counters` sequence), `seq`
// its place in the order (the same number, or a later one once revived), `state` 'queued' or
// 'dead' (a dead letter stays in place with `diedAt`), `payload` as JSON text (the port's "plain
// JSON data", kept exactly). Every write here changes one document:
// - claim leases each job with a conditional update (runAt due, no live lease), so a job is
//   handed to one claimer; a job with an ordering key is claimable only while it is the first
//   queued job of its key (read just before its lease is taken: earlier jobs of a key can only
//   go away, never appear, except for the case the README describes);
// - retry, bury and revive are conditional single-document updates.
// Jobs recorded by a write (the outbox) enter `jobs` in that write's transaction, or, for a
// single-document write, inside that document first (outbox.ts).

import type { Id, Millis } from '../../core/domain/model.ts';
import type { DeadJob, Job, JobQueue, NewJob } from '../../core/domain/ports/queue.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import type { Doc } from './values.ts';

export interface JobDoc {
  _id: number;
  seq: number;
  state: 'queued' | 'dead';
  name: string;
  payload: string;
  orderingKey: string | null;
  runAt: Millis;
  leaseUntil: Millis | null;
  attempts: number;
  lastError: string | null;
  createdAt: Millis;
  diedAt?: Millis;
}

/** A new job's document, with its sequence number. Without runAt a job is due at `now`. */
export function jobDoc(seq: number, job: NewJob, now: Millis): JobDoc {
  return {
    _id: seq,
    seq,
    state: 'queued',
    name: job.name,
    payload: JSON.stringify(job.payload ?? null),
    orderingKey: job.orderingKey ?? null,
    runAt: job.runAt ?? now,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    createdAt: now,
  };
}

export function jobFromDoc(d: Doc): Job {
  return {
    id: String(d['_id']),
    name: d['name'] as string,
    payload: JSON.parse(d['payload'] as string) as unknown,
    orderingKey: (d['orderingKey'] as string | null) ?? null,
    runAt: d['runAt'] as number,
    attempts: d['attempts'] as number,
    lastError: (d['lastError'] as string | null) ?? null,
    createdAt: d['createdAt'] as number,
  };
}

export function deadJobFromDoc(d: Doc): DeadJob {
  return { ...jobFromDoc(d), diedAt: d['diedAt'] as number };
}

/** A job id as its `_id`; null for a string that no job can have. */
export function jobKey(id: Id): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(id)) return null;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : null;
}

/** Not leased, or its lease has run out. */
const unleased = (now: Millis): Doc => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });

/** Due, unleased queued jobs after `afterSeq`, oldest first: a claim's candidates. */
export function claimCandidates(now: Millis, afterSeq: number | null, batch: number): { filter: Doc; sort: Record<string, 1 | -1>; limit: number } {
  const filter: Doc = { state: 'queued', runAt: { $lte: now }, ...unleased(now) };
  if (afterSeq !== null) filter['seq'] = { $gt: afterSeq };
  return { filter, sort: { seq: 1 }, limit: batch };
}

/** The first queued job (any state of lease or due time) of each of these ordering keys. */
export function firstOfKeys(keys: readonly string[]): Doc[] {
  return [{ $match: { state: 'queued', orderingKey: { $in: keys } } }, { $group: { _id: '$orderingKey', first: { $min: '$seq' } } }];
}

/** Takes the lease of one job, if it is still due and unleased. */
export function leaseUpdate(id: number, now: Millis, leaseMs: number): { filter: Doc; update: Doc } {
  return { filter: { _id: id, state: 'queued', runAt: { $lte: now }, ...unleased(now) }, update: { $set: { leaseUntil: now + leaseMs } } };
}

export function retryUpdate(id: number, runAt: Millis, error: string, payload?: unknown): { filter: Doc; update: Doc } {
  const set: Doc = { runAt, leaseUntil: null, lastError: error };
  if (payload !== undefined) set['payload'] = JSON.stringify(payload);
  return { filter: { _id: id, state: 'queued' }, update: { $set: set, $inc: { attempts: 1 } } };
}

/** A dead letter stays where it is, out of the queue; the failed run counts as an attempt. */
export function buryUpdate(id: number, error: string, now: Millis): { filter: Doc; update: Doc } {
  return { filter: { _id: id, state: 'queued' }, update: { $set: { state: 'dead', leaseUntil: null, lastError: error, diedAt: now }, $inc: { attempts: 1 } } };
}

/** Back in the queue at the end of the order (`seq`, newly drawn), due now, attempts reset. */
export function reviveUpdate(id: number, seq: number, now: Millis): { filter: Doc; update: Doc } {
  return {
    filter: { _id: id, state: 'dead' },
    update: { $set: { state: 'queued', seq, runAt: now, leaseUntil: null, attempts: 0 }, $unset: { diedAt: '' } },
  };
}

export function deadLettersQuery(limit: number): { filter: Doc; sort: Record<string, 1 | -1>; limit: number } {
  return { filter: { state: 'dead' }, sort: { diedAt: -1, _id: -1 }, limit: Math.max(0, Math.trunc(limit)) };
}

/** The earliest time a queued job can next be claimed: its runAt, or the end of its lease. */
export const NEXT_DUE: Doc[] = [
  { $match: { state: 'queued' } },
  { $group: { _id: null, due: { $min: { $max: ['$runAt', { $ifNull: ['$leaseUntil', 0] }] } } } },
];

/** Which candidates a claim may take: each in order, unless an earlier queued job of its key
 * exists (`firstOfKey`) or an earlier candidate of this claim already took the key. */
export function claimable(candidates: readonly JobDoc[], firstOfKey: ReadonlyMap<string, number>, keysTaken: Set<string>): JobDoc[] {
  const out: JobDoc[] = [];
  for (const job of candidates) {
    const key = job.orderingKey;
    if (key !== null) {
      if (keysTaken.has(key)) continue;
      keysTaken.add(key); // whether or not it is this one, the key's next job comes after it
      if (firstOfKey.get(key) !== job.seq) continue;
    }
    out.push(job);
  }
  return out;
}

// ---- the queue ----------------------------------------------------------------------------------

/** How often (wall clock) a claim first finishes interrupted outbox moves. */
export const SWEEP_EVERY_MS = 10_000;

export function jobQueue(m: Mongo): JobQueue {
  const jobs = m.collection(C.jobs);
  let lastSweep = Number.NEGATIVE_INFINITY;
  return {
    async enqueue(list, now) {
      if (list.length > 0) await m.enqueue(list, now);
    },
    async claim(now, limit, leaseMs) {
      const wall = m.wallNow();
      if (wall - lastSweep >= SWEEP_EVERY_MS) {
        lastSweep = wall;
        await m.sweep();
      }
      const want = Math.max(0, Math.trunc(limit));
      const claimed: Job[] = [];
      const keysTaken = new Set<string>();
      let after: number | null = null;
      // Walk the due jobs in order; another claimer may lease some first, so read on until this
      // claim has its `limit` or nothing is left.
      while (claimed.length < want) {
        const q = claimCandidates(now, after, Math.max(32, 2 * (want - claimed.length)));
        const candidates = (await jobs.find(q.filter).sort(q.sort).limit(q.limit).toArray()) as unknown as JobDoc[];
        const last = candidates[candidates.length - 1];
        if (last === undefined) break;
        after = last.seq;
        const keys = [...new Set(candidates.flatMap((c) => (c.orderingKey === null || keysTaken.has(c.orderingKey) ? [] : [c.orderingKey])))];
        const firsts = new Map<string, number>();
        if (keys.length > 0) for (const d of await jobs.aggregate(firstOfKeys(keys)).toArray()) firsts.set(d['_id'] as string, d['first'] as number);
        for (const job of claimable(candidates, firsts, keysTaken)) {
          if (claimed.length >= want) break;
          const { filter, update } = leaseUpdate(job._id, now, leaseMs);
          const leased = await jobs.findOneAndUpdate(filter, update, { returnDocument: 'after' });
          if (leased !== null) claimed.push(jobFromDoc(leased));
        }
      }
      return claimed;
    },
    async complete(ids) {
      const keys = ids.flatMap((id) => jobKey(id) ?? []);
      if (keys.length > 0) await jobs.deleteMany({ _id: { $in: keys }, state: 'queued' });
    },
    async retry(id, runAt, error, payload) {
      const key = jobKey(id);
      if (key === null) return;
      const { filter, update } = retryUpdate(key, runAt, error, payload);
      await jobs.updateOne(filter, update);
    },
    async bury(id, error, now) {
      const key = jobKey(id);
      if (key === null) return;
      const { filter, update } = buryUpdate(key, error, now);
      await jobs.updateOne(filter, update);
    },
    async deadLetters(limit) {
      const q = deadLettersQuery(limit);
      if (q.limit === 0) return [];
      return (await jobs.find(q.filter).sort(q.sort).limit(q.limit).toArray()).map(deadJobFromDoc);
    },
    async revive(id, now) {
      const key = jobKey(id);
      if (key === null || (await jobs.countDocuments({ _id: key, state: 'dead' }, { limit: 1 })) === 0) return false;
      const { filter, update } = reviveUpdate(key, await m.allocate(1), now);
      return (await jobs.updateOne(filter, update)).modifiedCount === 1;
    },
    async nextDue() {
      const [d] = await jobs.aggregate(NEXT_DUE).toArray();
      return d === undefined ? null : (d['due'] as number);
    },
    async size() {
      return jobs.countDocuments({ state: 'queued' });
    },
  };
}
