// The durable job queue in the store's own file, and the outbox: writes with an outbox insert
// their jobs in their own transaction (enqueueIn), so a committed write never lacks its events.
// Leases, completions and retries commit without an fsync (writeRelaxed): losing one in a power
// cut only means a job runs again, which at-least-once delivery allows; enqueues stay durable.
// With a worker in this process (keepOwn), the jobs its writes record are inserted leased to it
// and handed over in memory once they commit: reading them back (a claim) cost a query, a lease
// update and a parse per job, about a tenth of a publish.

import type { Millis } from '../../core/domain/model.ts';
import type { DeadJob, Job, JobQueue, NewJob, Outbox, OwnJobs } from '../../core/domain/ports/queue.ts';
import { id, int, intOrNull, json, key, keyList, lookupKey, text, textOrNull, type Db, type Row } from './db.ts';

const COLUMNS = 'id, name, payload, ordering_key, run_at, attempts, last_error, created_at';

function jobFromRow(r: Row): Job {
  return {
    id: id(r.id),
    name: text(r.name),
    payload: json<unknown>(r.payload),
    orderingKey: textOrNull(r.ordering_key),
    runAt: int(r.run_at),
    attempts: int(r.attempts),
    lastError: textOrNull(r.last_error),
    createdAt: int(r.created_at),
  };
}

/** The jobs kept for a connection's own worker (keepOwn): those handed over once committed,
 * and how many are still inside open writes. */
interface Keeper {
  keep: OwnJobs;
  kept: { job: Job; leaseUntil: Millis }[];
  pending: number;
}
const keepers = new WeakMap<Db, Keeper>();

/** Inserts jobs inside the caller's transaction. Without runAt a job is due at once (an
 * outbox's `now` is 0: the store has no clock). Kept for this process's worker when it asked. */
export function enqueueIn(db: Db, jobs: readonly NewJob[], now: Millis): void {
  const keeper = keepers.get(db);
  const leaseNow = keeper === undefined ? 0 : keeper.keep.now();
  // The ordering keys already queued, looked up once for the whole call: a job waits behind an
  // earlier one of its key, as a claim would make it, so such a job is not kept.
  const queuedKeys = keeper === undefined ? null : keysQueued(db, jobs);
  const staged: { job: Job; leaseUntil: Millis }[] = [];
  // The jobs of one event (one per handler) share its payload, the whole status: encoded once,
  // and, for those kept, parsed back once (frozen: the handlers share it).
  const encoded = new Map<unknown, { text: string; parsed?: unknown }>();
  for (const job of jobs) {
    const payload = job.payload ?? null;
    let entry = encoded.get(payload);
    if (entry === undefined) {
      entry = { text: JSON.stringify(payload) };
      encoded.set(payload, entry);
    }
    const runAt = job.runAt ?? now;
    const orderingKey = job.orderingKey ?? null;
    const kept =
      keeper !== undefined &&
      queuedKeys !== null &&
      runAt <= leaseNow &&
      keeper.kept.length + keeper.pending + staged.length < keeper.keep.max &&
      (orderingKey === null || !queuedKeys.has(orderingKey));
    if (queuedKeys !== null && orderingKey !== null) queuedKeys.add(orderingKey);
    const leaseUntil = kept ? leaseNow + keeper.keep.leaseMs : null;
    const rowId = db.insert(
      'INSERT INTO jobs (name, payload, ordering_key, run_at, lease_until, attempts, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)',
      job.name, entry.text, orderingKey, runAt, leaseUntil, now,
    );
    if (leaseUntil === null) continue;
    if (!('parsed' in entry)) entry.parsed = deepFreeze(JSON.parse(entry.text));
    staged.push({ job: { id: rowId.toString(), name: job.name, payload: entry.parsed, orderingKey, runAt, attempts: 0, lastError: null, createdAt: now }, leaseUntil });
  }
  if (keeper === undefined || staged.length === 0) return;
  keeper.pending += staged.length;
  db.onCommit((committed) => {
    keeper.pending -= staged.length;
    if (!committed) return;
    if (keepers.get(db) === keeper) keeper.kept.push(...staged);
    // The worker stopped meanwhile: its leases are given back, for any worker to claim.
    else release(db, staged.map((entry) => entry.job));
  });
}

/** Up to this many ordering keys are looked up one by one (an event's few handlers); more in
 * one statement over json_each, which costs more than a few lookups by the index. */
const KEYS_LOOKED_UP_ALONE = 4;

/** Those of the jobs' ordering keys that jobs already queued have. */
function keysQueued(db: Db, jobs: readonly NewJob[]): Set<string> {
  const keys: string[] = [];
  for (const job of jobs) if (job.orderingKey !== undefined && job.orderingKey !== null) keys.push(job.orderingKey);
  if (keys.length > KEYS_LOOKED_UP_ALONE) {
    return new Set(db.all('SELECT DISTINCT ordering_key FROM jobs WHERE ordering_key IN (SELECT value FROM json_each(?))', JSON.stringify(keys)).map((r) => text(r.ordering_key)));
  }
  const queued = new Set<string>();
  for (const orderingKey of keys) if (db.get('SELECT 1 FROM jobs WHERE ordering_key = ? LIMIT 1', orderingKey) !== undefined) queued.add(orderingKey);
  return queued;
}

/** Parsed JSON made read-only, as a payload several handlers share. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

function release(db: Db, jobs: readonly Job[]): void {
  if (jobs.length === 0 || !db.raw.isOpen) return;
  db.writeRelaxed(() => {
    db.run('UPDATE jobs SET lease_until = NULL WHERE id IN (SELECT value FROM json_each(?))', keyList(jobs.map((job) => job.id)));
  });
}

/** Runs a write's outbox inside its transaction. Jobs from an outbox are due at once: the
 * store has no clock of its own, and 0 is "now" whatever clock the workers use. */
export function recordOutbox<R>(db: Db, outbox: Outbox<R> | undefined, result: R): void {
  if (outbox === undefined) return;
  const jobs = outbox(result);
  if (jobs.length > 0) enqueueIn(db, jobs, 0);
}

export function jobQueue(db: Db): JobQueue {
  return {
    async enqueue(jobs, now) {
      if (jobs.length > 0) await db.write(() => enqueueIn(db, jobs, now));
    },
    async claim(now, limit, leaseMs) {
      return db.writeRelaxed(() => {
        const rows = db.all(
          `SELECT ${COLUMNS} FROM jobs j
           WHERE run_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
             AND (ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs e WHERE e.ordering_key = j.ordering_key AND e.id < j.id))
           ORDER BY id LIMIT +?`,
          now, now, Math.max(0, Math.trunc(limit)),
        );
        // One statement for the batch: a statement per job cost more than the update itself.
        if (rows.length > 0) db.run('UPDATE jobs SET lease_until = ? WHERE id IN (SELECT value FROM json_each(?))', now + leaseMs, `[${rows.map((r) => String(r.id)).join(',')}]`);
        return rows.map(jobFromRow);
      });
    },
    async complete(ids) {
      if (ids.length === 0) return;
      const remove = () => void db.run('DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))', keyList(ids));
      // A commit of its own blocks the event loop: it waits for the next turn, so that what the
      // finished jobs left for the end of this one (a live stream's write-out) goes out first.
      if (!db.commitPending()) await new Promise((turn) => setImmediate(turn));
      // Under load a group commit is usually on its way: the deletion joins it rather than
      // commit on its own (in the HTTP bench, two completions in three did).
      if (db.commitPending()) await db.write(remove);
      else db.writeRelaxed(remove);
    },
    async retry(jobId, runAt, error, payload) {
      db.writeRelaxed(() => {
        if (payload === undefined) {
          db.run('UPDATE jobs SET run_at = ?, lease_until = NULL, attempts = attempts + 1, last_error = ? WHERE id = ?', runAt, error, key(jobId));
        } else {
          db.run('UPDATE jobs SET run_at = ?, lease_until = NULL, attempts = attempts + 1, last_error = ?, payload = ? WHERE id = ?', runAt, error, JSON.stringify(payload), key(jobId));
        }
      });
    },
    async bury(jobId, error, now) {
      await db.write(() => {
        db.run(
          `INSERT INTO dead_jobs (id, name, payload, ordering_key, run_at, attempts, last_error, created_at, died_at)
           SELECT id, name, payload, ordering_key, run_at, attempts + 1, ?, created_at, ? FROM jobs WHERE id = ?`,
          error, now, key(jobId),
        );
        db.run('DELETE FROM jobs WHERE id = ?', key(jobId));
      });
    },
    async deadLetters(limit) {
      return db
        .all(`SELECT ${COLUMNS}, died_at FROM dead_jobs ORDER BY died_at DESC, id DESC LIMIT +?`, Math.max(0, Math.trunc(limit)))
        .map((r): DeadJob => ({ ...jobFromRow(r), diedAt: int(r.died_at) }));
    },
    async revive(jobId, now) {
      const k = lookupKey(jobId);
      if (k === null) return false;
      return db.write(() => {
        const moved = db.run(
          `INSERT INTO jobs (name, payload, ordering_key, run_at, attempts, last_error, created_at)
           SELECT name, payload, ordering_key, ?, 0, last_error, created_at FROM dead_jobs WHERE id = ?`,
          now, k,
        );
        db.run('DELETE FROM dead_jobs WHERE id = ?', k);
        return moved > 0;
      });
    },
    async keepOwn(keep) {
      const keeper = keepers.get(db);
      keepers.delete(db);
      if (keeper !== undefined) release(db, keeper.kept.splice(0).map((entry) => entry.job));
      if (keep !== null) keepers.set(db, { keep, kept: [], pending: 0 });
    },
    takeOwn(limit) {
      const keeper = keepers.get(db);
      if (keeper === undefined) return [];
      const now = keeper.keep.now();
      const taken: Job[] = [];
      let used = 0;
      while (used < keeper.kept.length && taken.length < limit) {
        const entry = keeper.kept[used++] as { job: Job; leaseUntil: Millis };
        // A lease that ran out while the job waited here (a worker long busy, a clock moved on):
        // any worker may have claimed it since; it is left to the claims.
        if (entry.leaseUntil > now) taken.push(entry.job);
      }
      keeper.kept.splice(0, used);
      return taken;
    },
    async nextDue() {
      return intOrNull(db.get('SELECT min(max(run_at, ifnull(lease_until, 0))) AS due FROM jobs')?.due);
    },
    async size() {
      return int(db.get('SELECT count(*) AS n FROM jobs')?.n);
    },
  };
}

/** The result of a write seen to have nothing to do before it began: its outbox is still
 * given the result, and only jobs it returns for it need a commit. */
export async function unchanged<R>(db: Db, outbox: Outbox<R> | undefined, result: R): Promise<R> {
  const jobs = outbox === undefined ? [] : outbox(result);
  if (jobs.length > 0) await db.write(() => enqueueIn(db, jobs, 0));
  return result;
}

/** One write transaction whose outbox jobs are inserted with it. */
export function writeWithOutbox<R>(db: Db, outbox: Outbox<R> | undefined, fn: () => R): Promise<R> {
  return db.write(() => {
    const result = fn();
    recordOutbox(db, outbox, result);
    return result;
  });
}
