// The job queue and the outbox on MongoDB without a server: the documents each queue operation
// sends, which jobs a claim may take, and how recorded jobs are moved.

import { BSON } from 'mongodb';
import t from 'tap';
import {
  NEXT_DUE,
  buryUpdate,
  claimCandidates,
  claimable,
  deadJobFromDoc,
  deadLettersQuery,
  firstOfKeys,
  jobDoc,
  jobFromDoc,
  jobKey,
  leaseUpdate,
  retryUpdate,
  reviveUpdate,
  type JobDoc,
} from '../../../adapters/mongodb/jobs.ts';
import { allocateUpdate, jobDocOf, onlyDuplicates, pendingJobs, pullJobs, sweepFilter } from '../../../adapters/mongodb/outbox.ts';

const T0 = 1_700_000_000_000;

t.test('jobDoc: a new job, numbered, queued, its payload as JSON text', async (t) => {
  t.strictSame(jobDoc(7, { name: 'notify', payload: { a: [1, 'x'], n: null } }, T0), {
    _id: 7,
    seq: 7,
    state: 'queued',
    name: 'notify',
    payload: '{"a":[1,"x"],"n":null}',
    orderingKey: null,
    runAt: T0,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    createdAt: T0,
  });
  const keyed = jobDoc(8, { name: 'later', payload: undefined, orderingKey: 'status:1', runAt: T0 + 5 }, T0);
  t.strictSame([keyed.payload, keyed.orderingKey, keyed.runAt], ['null', 'status:1', T0 + 5], 'no payload is null; key and runAt kept');
});

t.test('jobFromDoc: the port\'s Job, after a trip through BSON', async (t) => {
  const doc = BSON.deserialize(BSON.serialize({ ...jobDoc(9007199254, { name: 'x', payload: { deep: { list: [1.5, true, 'é'] } }, orderingKey: 'k' }, T0), leaseUntil: T0 + 1 }));
  t.strictSame(jobFromDoc(doc), { id: '9007199254', name: 'x', payload: { deep: { list: [1.5, true, 'é'] } }, orderingKey: 'k', runAt: T0, attempts: 0, lastError: null, createdAt: T0 });
  t.strictSame(deadJobFromDoc({ ...doc, state: 'dead', diedAt: T0 + 9, attempts: 3, lastError: 'boom' }), {
    id: '9007199254',
    name: 'x',
    payload: { deep: { list: [1.5, true, 'é'] } },
    orderingKey: 'k',
    runAt: T0,
    attempts: 3,
    lastError: 'boom',
    createdAt: T0,
    diedAt: T0 + 9,
  });
});

t.test('jobKey: a job id as its numeric _id', async (t) => {
  t.strictSame([jobKey('1'), jobKey('999999999'), jobKey('9007199254740991')], [1, 999999999, 9007199254740991]);
  t.strictSame([jobKey('0'), jobKey('01'), jobKey('x'), jobKey('9007199254740993'), jobKey('1.5'), jobKey('')], [null, null, null, null, null, null], 'nothing else');
});

t.test('claim: candidates, the first job of each key, the lease', async (t) => {
  t.strictSame(claimCandidates(T0, null, 32), {
    filter: { state: 'queued', runAt: { $lte: T0 }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: T0 } }] },
    sort: { seq: 1 },
    limit: 32,
  }, 'due, not leased or lease run out (a lease ends at its time), oldest first');
  t.strictSame(claimCandidates(T0, 40, 10).filter['seq'], { $gt: 40 }, 'the next batch starts after the last one read');
  t.strictSame(firstOfKeys(['a', 'b']), [{ $match: { state: 'queued', orderingKey: { $in: ['a', 'b'] } } }, { $group: { _id: '$orderingKey', first: { $min: '$seq' } } }], 'queued jobs of any lease or due time count');
  t.strictSame(leaseUpdate(5, T0, 30_000), {
    filter: { _id: 5, state: 'queued', runAt: { $lte: T0 }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: T0 } }] },
    update: { $set: { leaseUntil: T0 + 30_000 } },
  }, 'conditional: a job another claimer leased first is not matched');
});

const job = (seq: number, orderingKey: string | null = null): JobDoc => jobDoc(seq, { name: `j${seq}`, payload: null, orderingKey }, T0);

t.test('claimable: in order; one job per key, and only the first queued one of its key', async (t) => {
  const candidates = [job(1, 'a'), job(2, 'a'), job(3, 'b'), job(4), job(5, 'c'), job(6, 'a')];
  const firsts = new Map([['a', 1], ['b', 3], ['c', 2]]);
  const taken = new Set<string>();
  t.strictSame(claimable(candidates, firsts, taken).map((j) => j.seq), [1, 3, 4], 'c waits for its earlier job (seq 2, leased or not due)');
  t.strictSame([...taken], ['a', 'b', 'c'], 'every key seen is taken for the rest of this claim');
  t.strictSame(claimable([job(7, 'a'), job(8)], firsts, taken).map((j) => j.seq), [8], 'a later batch of the same claim skips taken keys');
  t.strictSame(claimable([job(9, 'z')], new Map(), new Set()).map((j) => j.seq), [], 'a key the server did not report first is not taken (its first job may be pending)');
});

t.test('retry, bury, revive: conditional single-document updates', async (t) => {
  t.strictSame(retryUpdate(5, T0 + 10, 'boom'), { filter: { _id: 5, state: 'queued' }, update: { $set: { runAt: T0 + 10, leaseUntil: null, lastError: 'boom' }, $inc: { attempts: 1 } } });
  t.strictSame(retryUpdate(5, T0, 'e', { step: 2 }).update['$set'], { runAt: T0, leaseUntil: null, lastError: 'e', payload: '{"step":2}' }, 'a new payload');
  t.strictSame(retryUpdate(5, T0, 'e', null).update['$set'], { runAt: T0, leaseUntil: null, lastError: 'e', payload: 'null' }, 'null is a payload too');
  t.strictSame(buryUpdate(5, 'gave up', T0 + 1), {
    filter: { _id: 5, state: 'queued' },
    update: { $set: { state: 'dead', leaseUntil: null, lastError: 'gave up', diedAt: T0 + 1 }, $inc: { attempts: 1 } },
  }, 'a dead letter stays in place, out of the queue; the failed run counts');
  t.strictSame(reviveUpdate(5, 77, T0 + 2), {
    filter: { _id: 5, state: 'dead' },
    update: { $set: { state: 'queued', seq: 77, runAt: T0 + 2, leaseUntil: null, attempts: 0 }, $unset: { diedAt: '' } },
  }, 'back at the end of the order, due now, attempts reset');
  t.strictSame(deadLettersQuery(10), { filter: { state: 'dead' }, sort: { diedAt: -1, _id: -1 }, limit: 10 });
  t.equal(deadLettersQuery(-1).limit, 0);
  t.strictSame(NEXT_DUE, [{ $match: { state: 'queued' } }, { $group: { _id: null, due: { $min: { $max: ['$runAt', { $ifNull: ['$leaseUntil', 0] }] } } } }]);
});

t.test('the outbox: sequence numbers, pending jobs, their move and sweep', async (t) => {
  t.strictSame(allocateUpdate(3), { filter: { _id: 'jobs' }, update: { $inc: { seq: 3 } } });
  const at = new Date(T0);
  const pending = pendingJobs(41, [{ name: 'a', payload: 1 }, { name: 'b', payload: 2, runAt: T0 }], at);
  t.strictSame(pending, [
    { ...jobDoc(41, { name: 'a', payload: 1 }, 0), at },
    { ...jobDoc(42, { name: 'b', payload: 2, runAt: T0 }, 0), at },
  ], 'consecutive numbers; due at once (0) unless they say; created at 0: the store has no clock');
  t.strictSame(jobDocOf(pending[0] as (typeof pending)[0]), jobDoc(41, { name: 'a', payload: 1 }, 0), 'what jobs gets: without `at`');
  t.strictSame(pullJobs([41, 42]), [
    { $set: { _jobs: { $filter: { input: { $ifNull: ['$_jobs', []] }, cond: { $not: [{ $in: ['$$this._id', [41, 42]] }] } } } } },
    { $set: { _jobs: { $cond: [{ $eq: [{ $size: '$_jobs' }, 0] }, '$$REMOVE', '$_jobs'] } } },
  ], 'only the moved ones leave; an empty _jobs goes');
  t.strictSame(sweepFilter(at), { '_jobs.at': { $lt: at } });
  t.equal(onlyDuplicates({ writeErrors: [{ code: 11000 }, { code: 11000 }] }), true, 'jobs already there');
  t.equal(onlyDuplicates({ writeErrors: [{ code: 11000 }, { code: 2 }] }), false);
  t.equal(onlyDuplicates({ code: 11000 }), true);
  t.equal(onlyDuplicates(new Error('network')), false);
});
