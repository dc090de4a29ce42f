// The durable job queue in the store's own database, and the outbox: a write with an outbox
// inserts its jobs in its own transaction (enqueueIn), so a committed write never lacks its
// events and a failed one leaves none.
//
// Order. Ids come from an identity column, in the order rows are inserted, which is not always
// the order transactions commit. For jobs of one ordering key that order matters (the later one
// must wait for the earlier): they are inserted under a transaction-scoped advisory lock of their
// key, so a second transaction with that key gets its ids only after the first committed.
//
// Claims lock rows with FOR UPDATE SKIP LOCKED: concurrent workers take disjoint jobs without
// waiting for each other; a row another worker leased and committed meanwhile is re-checked
// against the lease condition and left out.

import type { Millis } from '../../core/domain/model.ts';
import type { DeadJob, Job, JobQueue, NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import type { Db, Row, Sql } from './db.ts';
import { ceilMs, floorMs, id, int, intOrNull, json, key, keys, limitOf, lookupKey, text, textOrNull } from './values.ts';

const COLUMNS = 'id, name, payload, ordering_key, run_at, attempts, last_error, created_at';

function jobFromRow(r: Row): Job {
  return {
    id: id(r['id']),
    name: text(r['name']),
    payload: json<unknown>(r['payload']),
    orderingKey: textOrNull(r['ordering_key']),
    runAt: int(r['run_at']),
    attempts: int(r['attempts']),
    lastError: textOrNull(r['last_error']),
    createdAt: int(r['created_at']),
  };
}

/** An error's text for last_error: diagnostic, so a NUL (which text cannot hold) is replaced
 * rather than left to fail the retry or burial that records it. */
const errorText = (error: string): string => error.replaceAll('\u0000', '\uFFFD');

const byId = (a: Job, b: Job): number => {
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** One statement: takes the advisory locks of the jobs' ordering keys (sorted, so two inserts
 * never wait for each other in a cycle; an InitPlan, so before any id is drawn), then inserts
 * the jobs in their order. Inside a caller's transaction the locks last until it commits. */
const ENQUEUE = `
  WITH locked AS (
    SELECT pg_advisory_xact_lock(hashtextextended('rookery.jobs:' || k, 0))
    FROM (SELECT DISTINCT k FROM unnest($3::text[]) AS u(k) WHERE k IS NOT NULL ORDER BY k) AS ks
  )
  INSERT INTO jobs (name, payload, ordering_key, run_at, attempts, created_at)
  SELECT j.name, j.payload, j.ordering_key, j.run_at, 0, $5::bigint
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS j(name, payload, ordering_key, run_at, n)
  WHERE (SELECT count(*) FROM locked) >= 0
  ORDER BY j.n`;

/** Inserts jobs in one statement (inside the caller's transaction, when it has one). Without
 * runAt a job is due at `now`. */
export async function enqueueIn(sql: Sql, jobs: readonly NewJob[], now: Millis): Promise<void> {
  if (jobs.length === 0) return;
  await sql.run(ENQUEUE, [
    jobs.map((j) => j.name),
    jobs.map((j) => JSON.stringify(j.payload ?? null)),
    jobs.map((j) => j.orderingKey ?? null),
    // Whole milliseconds: a job is never due before the time it was given.
    jobs.map((j) => ceilMs(j.runAt ?? now)),
    floorMs(now),
  ]);
}

/** A write's outbox, inside its transaction. Jobs from an outbox are due at once: the store has
 * no clock of its own, and 0 is "now" whatever clock the workers use. */
export async function recordOutbox<R>(sql: Sql, outbox: Outbox<R> | undefined, result: R): Promise<void> {
  if (outbox === undefined) return;
  await enqueueIn(sql, outbox(result), 0);
}

/** A write and the jobs its outbox returns, atomically. Without an outbox the body runs on the
 * pool: it must then be one statement (or steps each safe on their own). With one, it runs in a
 * transaction, the outbox is asked once with the result, and its jobs are inserted before the
 * COMMIT (a deadlock after the outbox was asked is not retried: it must not be asked twice). */
export function writeWithOutbox<R>(db: Db, outbox: Outbox<R> | undefined, body: (sql: Sql) => Promise<R>): Promise<R> {
  if (outbox === undefined) return body(db);
  return db.transaction(async (tx, noRetry) => {
    const result = await body(tx);
    noRetry();
    await recordOutbox(tx, outbox, result);
    return result;
  });
}

export function jobQueue(db: Db): JobQueue {
  return {
    async enqueue(jobs, now) {
      await enqueueIn(db, jobs, now);
    },
    async claim(now, limit, leaseMs) {
      const n = limitOf(limit);
      if (n === 0) return [];
      const rows = await db.rows(
        `WITH picked AS (
           SELECT j.id FROM jobs j
           WHERE j.run_at <= $1 AND (j.lease_until IS NULL OR j.lease_until <= $1)
             AND (j.ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs e WHERE e.ordering_key = j.ordering_key AND e.id < j.id))
           ORDER BY j.id LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs SET lease_until = $3 FROM picked WHERE jobs.id = picked.id
         RETURNING jobs.id, jobs.name, jobs.payload, jobs.ordering_key, jobs.run_at, jobs.attempts, jobs.last_error, jobs.created_at`,
        [floorMs(now), n, ceilMs(now + leaseMs)],
      );
      return rows.map(jobFromRow).sort(byId);
    },
    async complete(ids) {
      const valid = keys(ids);
      if (valid.length > 0) await db.run('DELETE FROM jobs WHERE id = ANY($1::bigint[])', [valid]);
    },
    async retry(jobId, runAt, error, payload) {
      const k = lookupKey(jobId);
      if (k === null) return;
      if (payload === undefined) {
        await db.run('UPDATE jobs SET run_at = $1, lease_until = NULL, attempts = attempts + 1, last_error = $2 WHERE id = $3', [ceilMs(runAt), errorText(error), k]);
      } else {
        await db.run('UPDATE jobs SET run_at = $1, lease_until = NULL, attempts = attempts + 1, last_error = $2, payload = $3 WHERE id = $4', [
          ceilMs(runAt), errorText(error), JSON.stringify(payload), k,
        ]);
      }
    },
    async bury(jobId, error, now) {
      const k = lookupKey(jobId);
      if (k === null) return;
      await db.run(
        `WITH gone AS (DELETE FROM jobs WHERE id = $1 RETURNING ${COLUMNS})
         INSERT INTO dead_jobs (id, name, payload, ordering_key, run_at, attempts, last_error, created_at, died_at)
         SELECT id, name, payload, ordering_key, run_at, attempts + 1, $2, created_at, $3 FROM gone`,
        [k, errorText(error), floorMs(now)],
      );
    },
    async deadLetters(limit) {
      const rows = await db.rows(`SELECT ${COLUMNS}, died_at FROM dead_jobs ORDER BY died_at DESC, id DESC LIMIT $1`, [limitOf(limit)]);
      return rows.map((r): DeadJob => ({ ...jobFromRow(r), diedAt: int(r['died_at']) }));
    },
    async revive(jobId, now) {
      const k = lookupKey(jobId);
      if (k === null) return false;
      // Back at the end of the queue, under its key's lock like any enqueue.
      return db.transaction(async (tx) => {
        const dead = await tx.row(`DELETE FROM dead_jobs WHERE id = $1 RETURNING ${COLUMNS}`, [key(k)]);
        if (dead === undefined) return false;
        await tx.run(
          `WITH locked AS (SELECT pg_advisory_xact_lock(hashtextextended('rookery.jobs:' || $3::text, 0)) WHERE $3::text IS NOT NULL)
           INSERT INTO jobs (name, payload, ordering_key, run_at, attempts, last_error, created_at)
           SELECT $1::text, $2::text, $3::text, $4::bigint, 0, $5::text, $6::bigint WHERE (SELECT count(*) FROM locked) >= 0`,
          [dead['name'], dead['payload'], dead['ordering_key'], ceilMs(now), dead['last_error'], dead['created_at']],
        );
        return true;
      });
    },
    async nextDue() {
      return intOrNull((await db.row('SELECT min(greatest(run_at, coalesce(lease_until, 0))) AS due FROM jobs'))?.['due']);
    },
    async size() {
      return int((await db.row('SELECT count(*) AS n FROM jobs'))?.['n']);
    },
  };
}
