// adapters/mongodb/db.ts without a server: the version bump every update gets, the transaction
// runner's retries (on a fake session), and the compare-and-set writer (on fake deps).

import { MongoServerError } from 'mongodb';
import t from 'tap';
import type { NewJob } from '../../../core/domain/ports/queue.ts';
import { TRANSACTION_OPTIONS, bump, casWrite, pushJobs, runTransaction, type CasDeps, type RetryPolicy, type SessionLike } from '../../../adapters/mongodb/db.ts';
import { pendingJobs, type PendingJob } from '../../../adapters/mongodb/outbox.ts';

t.test('bump: every update adds one to _v', async (t) => {
  t.strictSame(bump({ $set: { a: 1 } }), { $set: { a: 1 }, $inc: { _v: 1 } });
  t.strictSame(bump({ $inc: { favouritesCount: -1 } }), { $inc: { favouritesCount: -1, _v: 1 } }, 'merged into an $inc');
  t.strictSame(bump([{ $set: { a: 1 } }]), [{ $set: { a: 1 } }, { $set: { _v: { $add: [{ $ifNull: ['$_v', 0] }, 1] } } }], 'a pipeline gets a last stage');
  const update = { $set: { a: 1 } };
  bump(update);
  t.strictSame(update, { $set: { a: 1 } }, 'the given update is not changed');
});

t.test('pushJobs: jobs go into _jobs with the update', async (t) => {
  const entries = pendingJobs(7, [{ name: 'x', payload: null }], new Date(0));
  t.strictSame(pushJobs({ $set: { a: 1 } }, entries), { $set: { a: 1 }, $push: { _jobs: { $each: entries } } });
  t.strictSame(pushJobs({ $push: { pins: 1 } }, entries), { $push: { pins: 1, _jobs: { $each: entries } } }, 'beside another $push');
  t.strictSame(pushJobs({ $set: { a: 1 } }, []), { $set: { a: 1 } }, 'no jobs: unchanged');
});

t.test('the transaction options: snapshot reads, majority commit, the primary', async (t) => {
  t.strictSame(TRANSACTION_OPTIONS, { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' });
});

// ---- runTransaction on a fake session -------------------------------------------------------------

class FakeSession implements SessionLike {
  readonly log: string[] = [];
  active = false;
  commitErrors: unknown[] = [];
  startTransaction(options?: unknown) {
    this.log.push(`start ${options === TRANSACTION_OPTIONS ? 'with the options' : 'without'}`);
    this.active = true;
  }
  async commitTransaction() {
    const error = this.commitErrors.shift();
    this.log.push(error === undefined ? 'commit' : 'commit failed');
    if (error !== undefined) throw error;
    this.active = false;
  }
  async abortTransaction() {
    this.log.push('abort');
    this.active = false;
  }
  inTransaction() {
    return this.active;
  }
  async endSession() {
    this.log.push('end');
  }
}

const transient = () => new MongoServerError({ code: 112, errmsg: 'WriteConflict', errorLabels: ['TransientTransactionError'] });
const unknownCommit = () => new MongoServerError({ code: 50, errmsg: 'MaxTimeMSExpired', errorLabels: ['UnknownTransactionCommitResult'] });

const policy = (o: Partial<RetryPolicy> & { pauses?: number[] } = {}): RetryPolicy => ({
  maxAttempts: o.maxAttempts ?? 5,
  retry: o.retry ?? (() => false),
  pause: async (attempt) => void o.pauses?.push(attempt),
});

t.test('runTransaction: one attempt, committed, session ended', async (t) => {
  const s = new FakeSession();
  t.equal(await runTransaction(s, async () => 'result', policy()), 'result');
  t.strictSame(s.log, ['start with the options', 'commit', 'end']);
});

t.test('runTransaction: a transient error in the body runs it again', async (t) => {
  const s = new FakeSession();
  const pauses: number[] = [];
  let calls = 0;
  const result = await runTransaction(s, async () => {
    calls += 1;
    if (calls < 3) throw transient();
    return calls;
  }, policy({ pauses }));
  t.equal(result, 3);
  t.strictSame(s.log, ['start with the options', 'abort', 'start with the options', 'abort', 'start with the options', 'commit', 'end']);
  t.strictSame(pauses, [1, 2], 'a pause before each new attempt');
});

t.test('runTransaction: a duplicate the policy names as a race runs it again; others are thrown', async (t) => {
  const race = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error collection: db.favourites index: favourites_pair dup key' });
  const s = new FakeSession();
  let calls = 0;
  t.equal(await runTransaction(s, async () => {
    calls += 1;
    if (calls === 1) throw race;
    return 'second';
  }, policy({ retry: (e) => e === race })), 'second');
  t.strictSame(s.log, ['start with the options', 'abort', 'start with the options', 'commit', 'end']);

  const other = new MongoServerError({ code: 11000, errmsg: 'E11000 … index: _id_ dup key' });
  const s2 = new FakeSession();
  await t.rejects(runTransaction(s2, async () => {
    throw other;
  }, policy({ retry: (e) => e === race })), other, 'not a race: thrown as it came');
  t.strictSame(s2.log, ['start with the options', 'abort', 'end'], 'aborted, ended, not retried');
});

t.test('runTransaction: a commit with an unknown result is committed again', async (t) => {
  const s = new FakeSession();
  s.commitErrors = [unknownCommit(), unknownCommit()];
  let calls = 0;
  t.equal(await runTransaction(s, async () => ++calls, policy()), 1, 'the body ran once');
  t.strictSame(s.log, ['start with the options', 'commit failed', 'commit failed', 'commit', 'end']);
});

t.test('runTransaction: a transient commit failure runs the whole transaction again', async (t) => {
  const s = new FakeSession();
  s.commitErrors = [transient()];
  let calls = 0;
  t.equal(await runTransaction(s, async () => ++calls, policy()), 2);
  t.strictSame(s.log, ['start with the options', 'commit failed', 'abort', 'start with the options', 'commit', 'end']);
});

t.test('runTransaction: gives up after maxAttempts, with the last error', async (t) => {
  const s = new FakeSession();
  let calls = 0;
  const last = transient();
  await t.rejects(runTransaction(s, async () => {
    calls += 1;
    throw calls === 3 ? last : transient();
  }, policy({ maxAttempts: 3 })), last);
  t.equal(calls, 3);
  t.equal(s.log.at(-1), 'end', 'the session is ended whatever happens');
});

t.test('runTransaction: a body that aborted on its own is not aborted again', async (t) => {
  const s = new FakeSession();
  await t.rejects(runTransaction(s, async (session) => {
    await session.abortTransaction();
    throw new Error('refused');
  }, policy()), { message: 'refused' });
  t.strictSame(s.log, ['start with the options', 'abort', 'end']);
});

// ---- casWrite on fake deps ------------------------------------------------------------------------

interface Fake {
  deps: CasDeps;
  log: string[];
  outboxCalls: unknown[];
}

function fakeDeps(o: { updateMatches?: number[]; insertErrors?: unknown[]; race?: (e: unknown) => boolean } = {}): Fake {
  const log: string[] = [];
  let seq = 100;
  const deps: CasDeps = {
    async entries(jobs: readonly NewJob[]): Promise<PendingJob[]> {
      const first = seq + 1;
      seq += jobs.length;
      log.push(`allocate ${jobs.length} from ${first}`);
      return pendingJobs(first, jobs, new Date(0));
    },
    async enqueue(entries) {
      log.push(`enqueue ${entries.map((e) => e._id).join(',')}`);
    },
    async move(collection, id, entries) {
      log.push(`move ${entries.map((e) => e._id).join(',')} from ${collection}/${String(id)}`);
    },
    async insert(collection, doc) {
      const error = o.insertErrors?.shift();
      log.push(`insert ${collection} ${JSON.stringify({ ...doc, _jobs: (doc['_jobs'] as PendingJob[] | undefined)?.map((e) => e._id) })}`);
      if (error !== undefined) throw error;
    },
    async update(collection, filter, update) {
      const matched = o.updateMatches?.shift() ?? 1;
      const push = (update['$push'] as { _jobs?: { $each: PendingJob[] } } | undefined)?._jobs;
      log.push(`update ${collection} ${JSON.stringify(filter)} ${JSON.stringify({ ...update, $push: push ? { _jobs: push.$each.map((e) => e._id) } : undefined })} → ${matched}`);
      return matched;
    },
    isRace: o.race ?? (() => false),
    maxAttempts: 4,
    pause: async () => undefined,
  };
  return { deps, log, outboxCalls: [] };
}

const outboxOf = (f: Fake) => (result: unknown) => {
  f.outboxCalls.push(result);
  return [{ name: `job-${String(result)}`, payload: result }];
};

t.test('casWrite: an insert carries its jobs, which are then moved', async (t) => {
  const f = fakeDeps();
  const result = await casWrite(f.deps, {
    collection: 'mutes',
    read: async () => null,
    decide: (current) => ({ result: current === null, write: { insert: { _id: '5', a: 1 } } }),
    outbox: outboxOf(f),
  });
  t.equal(result, true);
  t.strictSame(f.outboxCalls, [true], 'the outbox is asked once, with the result');
  t.strictSame(f.log, ['allocate 1 from 101', 'insert mutes {"_id":"5","a":1,"_jobs":[101]}', 'move 101 from mutes/5']);
});

t.test('casWrite: an update is conditional on the version read, and carries its jobs', async (t) => {
  const f = fakeDeps();
  await casWrite(f.deps, {
    collection: 'access_tokens',
    read: async () => ({ _id: '9', revokedAt: null, _v: 3 }),
    decide: () => ({ result: true, write: { update: { $set: { revokedAt: 5 } } } }),
    outbox: outboxOf(f),
  });
  t.strictSame(f.log, ['allocate 1 from 101', 'update access_tokens {"_id":"9","_v":3} {"$set":{"revokedAt":5},"$push":{"_jobs":[101]}} → 1', 'move 101 from access_tokens/9']);
});

t.test('casWrite: a document without _v yet is matched by _v null (missing)', async (t) => {
  const f = fakeDeps();
  await casWrite(f.deps, { collection: 'c', read: async () => ({ _id: 'x' }), decide: () => ({ result: 1, write: { update: { $set: { a: 1 } } } }) });
  t.strictSame(f.log, ['update c {"_id":"x","_v":null} {"$set":{"a":1}} → 1'], 'no outbox: no jobs, nothing moved');
});

t.test('casWrite: the document changed between read and write: read and decide again', async (t) => {
  const f = fakeDeps({ updateMatches: [0, 1] });
  const reads = [{ _id: '9', revokedAt: null, _v: 3 }, { _id: '9', revokedAt: null, _v: 4 }];
  const result = await casWrite(f.deps, {
    collection: 'access_tokens',
    read: async () => reads.shift() ?? null,
    decide: (current) => ({ result: current?.['_v'], write: { update: { $set: { revokedAt: 5 } } } }),
    outbox: outboxOf(f),
  });
  t.equal(result, 4, 'the second decision');
  t.strictSame(f.outboxCalls, [3, 4], 'asked again for the new decision (its first jobs were never written)');
  t.strictSame(f.log, [
    'allocate 1 from 101',
    'update access_tokens {"_id":"9","_v":3} {"$set":{"revokedAt":5},"$push":{"_jobs":[101]}} → 0',
    'allocate 1 from 102',
    'update access_tokens {"_id":"9","_v":4} {"$set":{"revokedAt":5},"$push":{"_jobs":[102]}} → 1',
    'move 102 from access_tokens/9',
  ]);
});

t.test('casWrite: nothing to write: the jobs go in alone', async (t) => {
  const f = fakeDeps();
  t.equal(await casWrite(f.deps, { collection: 'c', read: async () => ({ _id: '1', revokedAt: 3 }), decide: () => ({ result: false, write: null }), outbox: outboxOf(f) }), false);
  t.strictSame(f.log, ['allocate 1 from 101', 'enqueue 101']);
  const quiet = fakeDeps();
  await casWrite(quiet.deps, { collection: 'c', read: async () => null, decide: () => ({ result: null, write: null }), outbox: () => [] });
  t.strictSame(quiet.log, [], 'an outbox that returns no job: nothing at all');
});

t.test('casWrite: an insert that loses a race reads again; any other error is thrown', async (t) => {
  const race = new Error('duplicate pair');
  const f = fakeDeps({ insertErrors: [race], race: (e) => e === race });
  const reads: (Record<string, unknown> | null)[] = [null, { _id: 'winner', _v: 1 }];
  const result = await casWrite(f.deps, {
    collection: 'follows',
    read: async () => reads.shift() ?? null,
    decide: (current) => (current === null ? { result: 'created', write: { insert: { _id: 'mine' } } } : { result: 'exists', write: { update: { $set: { notify: true } } } }),
    outbox: outboxOf(f),
  });
  t.equal(result, 'exists');
  t.strictSame(f.log, [
    'allocate 1 from 101',
    'insert follows {"_id":"mine","_jobs":[101]}',
    'allocate 1 from 102',
    'update follows {"_id":"winner","_v":1} {"$set":{"notify":true},"$push":{"_jobs":[102]}} → 1',
    'move 102 from follows/winner',
  ]);
  const taken = new Error('taken id');
  const g = fakeDeps({ insertErrors: [taken], race: (e) => e === race });
  await t.rejects(casWrite(g.deps, { collection: 'c', read: async () => null, decide: () => ({ result: 1, write: { insert: { _id: 'x' } } }) }), taken);
});

t.test('casWrite: gives up when the document keeps changing', async (t) => {
  const f = fakeDeps({ updateMatches: [0, 0, 0, 0] });
  await t.rejects(casWrite(f.deps, { collection: 'accounts', read: async () => ({ _id: '1', _v: 1 }), decide: () => ({ result: 1, write: { update: { $set: { a: 1 } } } }) }), {
    message: 'a write to accounts gave up: the document kept changing under it',
  });
  t.equal(f.log.length, 4, 'maxAttempts updates');
});

t.test('casWrite: an update decided without a document is a bug, said so', async (t) => {
  const f = fakeDeps();
  await t.rejects(casWrite(f.deps, { collection: 'c', read: async () => null, decide: () => ({ result: 1, write: { update: { $set: {} } } }) }), {
    message: 'casWrite: an update of a c document that was not read',
  });
});
