// The thin layer over the driver that every repository shares: transactions with their retries,
// single-document compare-and-set writes that carry their jobs, the outbox's moves and sweep,
// and the translation of driver errors. The documents each operation sends are built by pure
// functions in the repository files; this file decides how they are sent.
//
// Versions. Every update this adapter sends also adds one to the document's `_v` (bump). A
// compare-and-set write (cas) reads a document, decides from it, and updates it only if `_v` is
// still what it read: the decision still holds when it lands, as it would under a lock.

import type { ClientSession, Collection, Db, MongoClient, TransactionOptions } from 'mongodb';
import type { Millis } from '../../core/domain/model.ts';
import type { NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { duplicateKeyOf, isTransientTransactionError, isUnknownCommitResult, translateError } from './errors.ts';
import type { JobDoc } from './jobs.ts';
import { allocateUpdate, jobDocOf, onlyDuplicates, pendingJobs, pullJobs, sweepFilter, type PendingJob } from './outbox.ts';
import { C, duplicateName, type IndexRegistry } from './schema.ts';
import { stored, type Doc, type StoredDoc } from './values.ts';

/** Adds one to `_v` in an update: an update document gets `$inc: {_v: 1}`, a pipeline a last
 * stage that does the same. */
export function bump(update: Doc | Doc[]): Doc | Doc[] {
  if (Array.isArray(update)) return [...update, { $set: { _v: { $add: [{ $ifNull: ['$_v', 0] }, 1] } } }];
  const inc = (update['$inc'] as Doc | undefined) ?? {};
  return { ...update, $inc: { ...inc, _v: 1 } };
}

/** Adds jobs to an update's `$push` of `_jobs`. */
export function pushJobs(update: Doc, entries: readonly PendingJob[]): Doc {
  if (entries.length === 0) return update;
  const push = (update['$push'] as Doc | undefined) ?? {};
  return { ...update, $push: { ...push, _jobs: { $each: entries } } };
}

// ---- transactions -------------------------------------------------------------------------------

export const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
};

/** What the runner needs of a ClientSession (the driver's fits; tests give a fake). */
export interface SessionLike {
  startTransaction(options?: TransactionOptions): void;
  commitTransaction(): Promise<void>;
  abortTransaction(): Promise<void>;
  inTransaction(): boolean;
  endSession(): Promise<void>;
}

export interface RetryPolicy {
  maxAttempts: number;
  /** Beyond transient errors: an error after which the body is run again (a duplicate key that
   * means a concurrent write got there first: the next attempt reads it and answers from it). */
  retry(error: unknown): boolean;
  /** Waits a little before the next attempt (spreads colliding writers apart). */
  pause(attempt: number): Promise<void>;
}

const COMMIT_ATTEMPTS = 5;

async function commit(session: SessionLike): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await session.commitTransaction();
      return;
    } catch (error) {
      // The commit may have happened: committing again is safe and says which.
      if (isUnknownCommitResult(error) && attempt < COMMIT_ATTEMPTS) continue;
      throw error;
    }
  }
}

/** Runs `body` in a transaction on one session, committing it; runs it again after a transient
 * error (a write conflict with another transaction …) or one `policy.retry` accepts, up to
 * `maxAttempts` times. The body must be safe to run again: it reads, decides, then writes, all
 * on the session. */
export async function runTransaction<S extends SessionLike, R>(session: S, body: (session: S) => Promise<R>, policy: RetryPolicy): Promise<R> {
  try {
    for (let attempt = 1; ; attempt += 1) {
      session.startTransaction(TRANSACTION_OPTIONS);
      let result: R;
      try {
        result = await body(session);
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        if (attempt < policy.maxAttempts && (isTransientTransactionError(error) || policy.retry(error))) {
          await policy.pause(attempt);
          continue;
        }
        throw error;
      }
      try {
        await commit(session);
        return result;
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
        if (attempt < policy.maxAttempts && isTransientTransactionError(error)) {
          await policy.pause(attempt);
          continue;
        }
        throw error;
      }
    }
  } finally {
    await session.endSession();
  }
}

// ---- compare-and-set writes of one document -----------------------------------------------------

/** What a single-document write does, decided from the document as it was read. */
export interface CasPlan<R> {
  result: R;
  /** A new document; an update of the one read (applied only if it did not change meanwhile);
   * or nothing to write. */
  write: { insert: Doc } | { update: Doc } | null;
}

export interface CasDeps {
  entries(jobs: readonly NewJob[]): Promise<PendingJob[]>;
  enqueue(entries: readonly PendingJob[]): Promise<void>;
  move(collection: string, id: StoredDoc['_id'], entries: readonly PendingJob[]): Promise<void>;
  insert(collection: string, doc: Doc): Promise<void>;
  /** Sends the update (bumped); the number of documents matched. */
  update(collection: string, filter: Doc, update: Doc): Promise<number>;
  /** A duplicate key meaning another writer inserted first: read again. */
  isRace(error: unknown): boolean;
  maxAttempts: number;
  pause(attempt: number): Promise<void>;
}

export interface CasSpec<R> {
  collection: string;
  read(): Promise<Doc | null>;
  decide(current: Doc | null): CasPlan<R>;
  outbox?: Outbox<R> | undefined;
}

/** Reads a document, decides, asks the outbox for the decision's jobs, and writes the decision
 * with the jobs inside the document, if the document is as it was read; else reads again. */
export async function casWrite<R>(deps: CasDeps, spec: CasSpec<R>): Promise<R> {
  for (let attempt = 1; attempt <= deps.maxAttempts; attempt += 1) {
    const current = await spec.read();
    const plan = spec.decide(current);
    const jobs = spec.outbox === undefined ? [] : spec.outbox(plan.result);
    const entries = jobs.length === 0 ? [] : await deps.entries(jobs);
    const write = plan.write;
    if (write === null) {
      // Nothing changes: the decision holds as of the read, and the jobs go in alone.
      if (entries.length > 0) await deps.enqueue(entries);
      return plan.result;
    }
    let id: StoredDoc['_id'];
    if ('insert' in write) {
      const doc = entries.length === 0 ? write.insert : { ...write.insert, _jobs: entries };
      try {
        await deps.insert(spec.collection, doc);
      } catch (error) {
        if (deps.isRace(error)) {
          await deps.pause(attempt);
          continue;
        }
        throw error;
      }
      id = doc['_id'] as StoredDoc['_id'];
    } else {
      if (current === null) throw new Error(`casWrite: an update of a ${spec.collection} document that was not read`);
      id = current['_id'] as StoredDoc['_id'];
      const filter = { _id: id, _v: (current['_v'] as number | undefined) ?? null };
      if ((await deps.update(spec.collection, filter, pushJobs(write.update, entries))) === 0) {
        await deps.pause(attempt);
        continue;
      }
    }
    if (entries.length > 0) await deps.move(spec.collection, id, entries);
    return plan.result;
  }
  throw new Error(`a write to ${spec.collection} gave up: the document kept changing under it`);
}

// ---- the store's runtime ------------------------------------------------------------------------

/** What a write inside a transaction works with: the session every operation must pass. */
export interface MongoTx {
  readonly session: ClientSession;
  readonly db: Db;
  collection(name: string): Collection<StoredDoc>;
  /** Records jobs in this transaction (they enter the queue if and when it commits). */
  enqueue(jobs: readonly NewJob[]): Promise<void>;
}

export interface Mongo {
  readonly client: MongoClient;
  readonly db: Db;
  readonly registry: IndexRegistry;
  collection(name: string): Collection<StoredDoc>;
  /** Driver error → the port's (StorageConflict for a duplicate key). */
  translate(error: unknown): unknown;
  /** A transaction (see runTransaction); `race` names the unique indexes ("collection.index")
   * whose duplicate means "run again". Errors are translated. */
  transaction<R>(body: (tx: MongoTx) => Promise<R>, race?: readonly string[]): Promise<R>;
  /** A transaction that also records the jobs its outbox returns for the result. */
  withOutbox<R>(outbox: Outbox<R> | undefined, body: (tx: MongoTx) => Promise<R>, race?: readonly string[]): Promise<R>;
  /** A single-document compare-and-set write (casWrite), with its jobs in the document. */
  cas<R>(spec: CasSpec<R>, race?: readonly string[]): Promise<R>;
  /** Inserts one document with jobs decided beforehand (a write whose result is known before it
   * is made), then moves them. */
  insertWithJobs(collection: string, doc: Doc, jobs: readonly NewJob[]): Promise<void>;
  /** Updates (or upserts) the document whose `_id` the filter names (bumped), with jobs decided
   * beforehand; the number matched or upserted. */
  updateWithJobs(collection: string, filter: Doc, update: Doc, jobs: readonly NewJob[], options?: { upsert?: boolean }): Promise<number>;
  /** Deletes the document `filter` selects; with an outbox, in a transaction with its jobs (a
   * deleted document cannot carry them). true when there was one. */
  deleteOne(collection: string, filter: Doc, outbox?: Outbox<boolean>): Promise<boolean>;
  /** Queues jobs that come with no write. */
  enqueue(jobs: readonly NewJob[], now: Millis): Promise<void>;
  /** Draws `n` sequence numbers; the first. */
  allocate(n: number): Promise<number>;
  /** Registers a collection whose single-document writes carry `_jobs` (the sweep reads it). */
  carriesJobs(collection: string): void;
  /** Finishes the moves of jobs recorded before `graceMs` ago; the number of jobs moved. */
  sweep(graceMs?: number): Promise<number>;
  /** The wall clock (for TTL dates only; the model's times come from the core's clock). */
  wallNow(): Millis;
}

export interface MongoOptions {
  client: MongoClient;
  db: Db;
  registry: IndexRegistry;
  wallNow?: () => Millis;
  maxAttempts?: number;
}

const SWEEP_GRACE_MS = 60_000;

const randomPause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 4)));

export function createMongo(options: MongoOptions): Mongo {
  const { client, db, registry } = options;
  const wallNow = options.wallNow ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 40;
  const collection = (name: string) => db.collection<StoredDoc>(name);
  const translate = (error: unknown) => translateError(error, (duplicate) => registry.ruleFor(duplicate));
  const isRaceOn = (race: readonly string[]) => (error: unknown): boolean => {
    if (race.length === 0) return false;
    const duplicate = duplicateKeyOf(error);
    if (duplicate === null) return false;
    const name = duplicateName(registry, duplicate);
    return name !== null && race.includes(name);
  };
  const carrying = new Set<string>([C.outbox]);

  const allocate = async (n: number): Promise<number> => {
    const { filter, update } = allocateUpdate(n);
    const doc = await collection(C.counters).findOneAndUpdate(filter, update, { upsert: true, returnDocument: 'after' });
    const last = doc?.['seq'];
    if (typeof last !== 'number') throw new Error('the job sequence (counters.jobs) is not a number');
    return last - n + 1;
  };
  const entries = async (jobs: readonly NewJob[], now: Millis = 0): Promise<PendingJob[]> =>
    jobs.length === 0 ? [] : pendingJobs(await allocate(jobs.length), jobs, new Date(wallNow()), now);

  const insertJobs = async (docs: readonly JobDoc[], session?: ClientSession): Promise<void> => {
    if (docs.length === 0) return;
    try {
      await collection(C.jobs).insertMany(docs.map((d) => stored({ ...jobDocOf(d) })), session ? { ordered: true, session } : { ordered: false });
    } catch (error) {
      if (session !== undefined || !onlyDuplicates(error)) throw error;
    }
  };

  const move = async (name: string, id: StoredDoc['_id'], moved: readonly PendingJob[]): Promise<void> => {
    await insertJobs(moved);
    if (name === C.outbox) await collection(C.outbox).deleteOne({ _id: id });
    else {
      const ids = moved.map((e) => e._id);
      await collection(name).updateOne({ _id: id, '_jobs._id': { $in: ids } }, pullJobs(ids));
    }
  };

  const enqueueEntries = async (list: readonly PendingJob[]): Promise<void> => {
    if (list.length === 0) return;
    if (list.length === 1) return insertJobs(list);
    // Several jobs and no write to carry them: one batch document (one atomic insert), moved.
    const first = list[0] as PendingJob;
    await collection(C.outbox).insertOne({ _id: first._id, _jobs: list });
    await move(C.outbox, first._id, list);
  };

  const casDeps: Omit<CasDeps, 'isRace'> = {
    entries: (jobs) => entries(jobs),
    enqueue: enqueueEntries,
    move,
    insert: async (name, doc) => {
      await collection(name).insertOne(stored(doc));
    },
    update: async (name, filter, update) => (await collection(name).updateOne(filter, bump(update))).matchedCount,
    maxAttempts,
    pause: randomPause,
  };

  const transaction = async <R>(body: (tx: MongoTx) => Promise<R>, race: readonly string[] = []): Promise<R> => {
    try {
      return await runTransaction(client.startSession(), (session) => {
        const tx: MongoTx = {
          session,
          db,
          collection,
          enqueue: async (jobs) => insertJobs(await entries(jobs), session),
        };
        return body(tx);
      }, { maxAttempts, retry: isRaceOn(race), pause: randomPause });
    } catch (error) {
      throw translate(error);
    }
  };

  return {
    client,
    db,
    registry,
    collection,
    translate,
    transaction,
    withOutbox: (outbox, body, race) =>
      transaction(async (tx) => {
        const result = await body(tx);
        if (outbox !== undefined) await tx.enqueue(outbox(result));
        return result;
      }, race),
    async cas(spec, race = []) {
      try {
        return await casWrite({ ...casDeps, isRace: isRaceOn(race) }, spec);
      } catch (error) {
        throw translate(error);
      }
    },
    async insertWithJobs(name, doc, jobs) {
      const list = await entries(jobs);
      try {
        await collection(name).insertOne(stored(list.length === 0 ? doc : { ...doc, _jobs: list }));
      } catch (error) {
        throw translate(error);
      }
      if (list.length > 0) await move(name, doc['_id'] as StoredDoc['_id'], list);
    },
    async updateWithJobs(name, filter, update, jobs, options = {}) {
      if (filter['_id'] === undefined) throw new Error('updateWithJobs: the filter must name the document by its _id');
      const list = await entries(jobs);
      let matched: number;
      let id: StoredDoc['_id'] | undefined;
      try {
        const r = await collection(name).updateOne(filter, bump(pushJobs(update, list)), options);
        matched = r.matchedCount + r.upsertedCount;
        id = (r.upsertedId ?? filter['_id']) as StoredDoc['_id'] | undefined;
      } catch (error) {
        throw translate(error);
      }
      if (list.length > 0) {
        if (matched > 0 && id !== undefined) await move(name, id, list);
        else await enqueueEntries(list); // nothing was written to carry them
      }
      return matched;
    },
    async deleteOne(name, filter, outbox) {
      if (outbox === undefined) return (await collection(name).deleteOne(filter)).deletedCount === 1;
      return transaction(async (tx) => {
        const deleted = (await tx.collection(name).deleteOne(filter, { session: tx.session })).deletedCount === 1;
        await tx.enqueue(outbox(deleted));
        return deleted;
      });
    },
    enqueue: async (jobs, now) => enqueueEntries(await entries(jobs, now)),
    allocate,
    carriesJobs: (name) => void carrying.add(name),
    async sweep(graceMs = SWEEP_GRACE_MS) {
      const before = new Date(wallNow() - graceMs);
      let moved = 0;
      for (const name of carrying) {
        const docs = await collection(name).find(sweepFilter(before), { projection: { _jobs: 1 } }).limit(100).toArray();
        for (const doc of docs) {
          const pending = ((doc['_jobs'] as PendingJob[] | undefined) ?? []).filter((e) => e.at < before);
          if (pending.length === 0) continue;
          await move(name, doc['_id'], pending);
          moved += pending.length;
        }
      }
      return moved;
    },
    wallNow,
  };
}
