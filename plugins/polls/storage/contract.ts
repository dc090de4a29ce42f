// The polls plugin's storage contract, on every engine it supports, with the core's status
// writes (test/plugins/storage-contracts.test.ts runs it on memory and SQLite).

import { StorageConflict, type StorageWrite } from 'rookery/plugin-kit';
import { contractRunner, type ContractTest, count, idsOf, must, type OpenStore, poll, POST, rejectsConflict, status, T0 } from 'rookery/testing';
import { pollStorage } from './index.ts';

const HOUR = 3_600_000;

const failing = (sibling: StorageWrite): StorageWrite => ({
  store: sibling.store,
  check() {
    throw new StorageConflict('other');
  },
  apply() {},
});

export function pollStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, shared } = contractRunner(t, `${adapterName}: polls`, open);

  it('statuses.create: inserts the poll; polls are copies; a taken id or a refused sibling write inserts nothing', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const alice = await w.account();
    const p = poll(w.id(), alice.id, null, { multiple: true, hideTotals: true, expiresAt: null });
    const s = status(w.id(), alice.id, { pollId: p.id });
    p.statusId = s.id;
    await w.s.statuses.create(s, POST, { writes: [repo.store(p)] });
    t.strictSame(await repo.get(p.id), p, 'the poll is stored');
    t.equal((await w.st(s.id)).pollId, p.id, 'the status points at it');
    const gotPoll = must(await repo.get(p.id), 'poll');
    gotPoll.votes[0] = 99;
    t.strictSame((await repo.get(p.id))?.votes, [0, 0, 0], 'polls are copies');

    const again = status(w.id(), alice.id, { pollId: p.id });
    await rejectsConflict(t, w.s.statuses.create(again, POST, { writes: [repo.store({ ...p, statusId: again.id })] }), 'id', 'a taken poll id');
    t.equal(await w.s.statuses.get(again.id), null, 'the status is not written either');
    const q = poll(w.id(), alice.id, null);
    const refused = status(w.id(), alice.id, { pollId: q.id });
    const write = repo.store(q);
    await rejectsConflict(t, w.s.statuses.create(refused, POST, { writes: [write, failing(write)] }), 'other', 'another write refused');
    t.equal(await repo.get(q.id), null, 'the poll was not inserted');
  });

  it('store records its jobs with the status write', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const alice = await w.account();
    const p = poll(w.id(), alice.id, null);
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: p.id }), POST, { writes: [repo.store(p, { jobs: [{ name: 'expire', payload: { id: p.id }, runAt: T0 + 99 }] })] });
    const [job] = await w.s.jobs.claim(T0 + 99, 5, 1000);
    t.strictSame([job?.name, job?.payload, job?.runAt], ['expire', { id: p.id }, T0 + 99], 'the delayed job is queued with the poll, due at its runAt');
    t.strictSame(await w.s.jobs.claim(T0 + 98, 5, 1000), [], 'and not before');
  });

  it('vote once, counts, concurrency, votesBy, voters', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const p = poll(w.id(), alice.id, null);
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: p.id }), POST, { writes: [repo.store(p)] });
    const pm = poll(w.id(), alice.id, null, { multiple: true });
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: pm.id }), POST, { writes: [repo.store(pm)] });
    t.equal(await repo.vote(p.id, bob.id, [0]), 'voted', 'vote: voted');
    t.equal(await repo.vote(p.id, bob.id, [1]), 'already', 'again: already');
    t.strictSame(await repo.get(p.id), { ...p, votes: [1, 0, 0], votesCount: 1, votersCount: 1 }, 'counts after one vote');
    t.equal(await repo.vote(pm.id, carol.id, [0, 2]), 'voted', 'multiple choices');
    t.strictSame(await repo.get(pm.id), { ...pm, votes: [1, 0, 1], votesCount: 2, votersCount: 1 }, 'each choice counted, one voter');
    const both = await Promise.all([repo.vote(p.id, dave.id, [1]), repo.vote(p.id, dave.id, [2])]);
    t.strictSame([count(both, 'voted'), count(both, 'already')], [1, 1], 'two concurrent votes: one voted');
    const after = must(await repo.get(p.id), 'poll');
    t.strictSame([after.votesCount, after.votersCount, after.votes.reduce((a, b) => a + b, 0)], [2, 2, 2], 'counted once');
    t.strictSame([...(await repo.votesBy(bob.id, [p.id, pm.id, w.id()]))], [[p.id, [0]]], 'votesBy: the polls voted in');
    t.strictSame([...(await repo.votesBy(carol.id, [p.id, pm.id]))], [[pm.id, [0, 2]]], 'votesBy: choices');
    t.strictSame(idsOf(await repo.getMany([p.id, w.id(), pm.id])), [pm.id, p.id], 'getMany skips missing; newest first');
    t.equal(await repo.get(w.id()), null, 'get: missing');
    t.strictSame((await repo.voters(p.id)).sort(), [bob.id, dave.id].sort(), 'voters');
    t.strictSame([await repo.get('not-an-id'), await repo.vote('not-an-id', bob.id, [0]), await repo.voters('not-an-id')], [null, 'already', []], 'not an id: misses');
  });

  it('addChoice: one more option per call, each option once, the account one voter', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const p = poll(w.id(), alice.id, null, { multiple: true });
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: p.id }), POST, { writes: [repo.store(p)] });
    t.equal(await repo.addChoice(p.id, bob.id, 0), 'voted', 'a first choice');
    t.equal(await repo.addChoice(p.id, bob.id, 2), 'voted', 'a second option');
    t.equal(await repo.addChoice(p.id, bob.id, 2), 'already', 'the same option again');
    t.equal(await repo.addChoice(p.id, carol.id, 2), 'voted', 'another account');
    t.strictSame(await repo.get(p.id), { ...p, votes: [1, 0, 2], votesCount: 3, votersCount: 2 }, 'each choice counted, each account once');
    t.strictSame([...(await repo.votesBy(bob.id, [p.id]))], [[p.id, [0, 2]]], 'votesBy: the choices so far');
    t.equal(await repo.vote(p.id, bob.id, [1]), 'already', 'a whole vote after choices: already');
    t.equal(await repo.addChoice(w.id(), bob.id, 0), 'already', 'a missing poll');
  });

  it('vote and addChoice record their jobs with a counted vote, none with a refused one', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const p = poll(w.id(), alice.id, null);
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: p.id }), POST, { writes: [repo.store(p)] });
    const pm = poll(w.id(), alice.id, null, { multiple: true });
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: pm.id }), POST, { writes: [repo.store(pm)] });
    const job = (what: string) => ({ name: 'voted', payload: { what }, runAt: T0 + 50 });
    const queued = async () => (await w.s.jobs.claim(T0 + 1000, 100, 1000)).map((j) => [j.name, j.payload, j.runAt]);

    t.equal(await repo.vote(p.id, bob.id, [0], { jobs: [job('bob'), job('bob again')] }), 'voted');
    t.equal(await repo.vote(p.id, bob.id, [1], { jobs: [job('refused')] }), 'already');
    t.equal(await repo.vote(w.id(), bob.id, [1], { jobs: [job('no poll')] }), 'already');
    t.equal(await repo.addChoice(pm.id, carol.id, 1, { jobs: [job('carol 1')] }), 'voted');
    t.equal(await repo.addChoice(pm.id, carol.id, 1, { jobs: [job('carol 1 again')] }), 'already');
    const raced = await Promise.all([repo.vote(p.id, carol.id, [0], { jobs: [job('race 0')] }), repo.vote(p.id, carol.id, [2], { jobs: [job('race 2')] })]);
    const winner = raced[0] === 'voted' ? 'race 0' : 'race 2';
    t.strictSame(
      await queued(),
      [job('bob'), job('bob again'), job('carol 1'), job(winner)].map((j) => [j.name, j.payload, j.runAt]),
      "a counted vote's jobs are queued with it, at their runAt; a refused one's never",
    );
  });

  it('statuses.update: adds a poll; with the poll it already has: replaced; recorded votes dropped only when reset', async (t, w) => {
    const repo = w.s.extend(pollStorage);
    const [alice, bob] = [await w.account(), await w.account()];
    const s0 = await w.post(alice.id);
    const p0 = poll(w.id(), alice.id, s0.id);
    const base = { text: s0.text, content: s0.content, spoilerText: '', sensitive: false, language: 'en', mentionIds: [], tags: [], mediaIds: [], editedAt: T0 + 6000 };
    const withPoll = await w.s.statuses.update(s0.id, { ...base, pollId: p0.id }, [], { writes: [repo.store(p0)] });
    t.equal(withPoll?.pollId, p0.id, 'update can add a poll');
    t.strictSame(await repo.get(p0.id), p0, 'the poll is inserted');

    const p = poll(w.id(), alice.id, null);
    const s = status(w.id(), alice.id, { pollId: p.id });
    await w.s.statuses.create(s, POST, { writes: [repo.store(p)] });
    await repo.vote(p.id, bob.id, [1]);
    const voted = must(await repo.get(p.id), 'poll');
    const patch = { text: s.text, content: s.content, spoilerText: '', sensitive: false, language: 'en', mentionIds: [], tags: [], mediaIds: [], pollId: p.id, editedAt: T0 + 10 };
    const same = { ...voted, expiresAt: T0 + 2 * HOUR };
    await w.s.statuses.update(s.id, patch, [], { writes: [repo.store(same, { replace: true })] });
    t.strictSame(await repo.get(p.id), same, 'the poll is replaced by the given one');
    t.equal(await repo.vote(p.id, bob.id, [0]), 'already', 'votes are kept while the poll keeps its voters');
    const reset = { ...voted, options: ['red', 'green', 'blue'], votes: [0, 0, 0], votesCount: 0, votersCount: 0 };
    await w.s.statuses.update(s.id, { ...patch, editedAt: T0 + 20 }, [], { writes: [repo.store(reset, { replace: true })] });
    t.strictSame(await repo.get(p.id), reset, 'a reset poll is stored as given');
    t.strictSame([...(await repo.votesBy(bob.id, [p.id]))], [], 'its recorded votes are dropped');
    t.equal(await repo.vote(p.id, bob.id, [2]), 'voted', 'so the account can vote again');
    const stated = { ...reset, votes: [0, 0, 0], votesCount: 0, votersCount: 0 };
    await w.s.statuses.update(s.id, { ...patch, editedAt: T0 + 30 }, [], { writes: [repo.store(stated, { replace: true, keepVotes: true })] });
    t.strictSame(await repo.get(p.id), stated, 'keepVotes: the poll is stored as given');
    t.strictSame([...(await repo.votesBy(bob.id, [p.id]))], [[p.id, [2]]], 'with its recorded votes, though it states no voter');
  });

  shared('vote raced across two connections', async (t, w, other) => {
    const repo = w.s.extend(pollStorage);
    const otherRepo = other.extend(pollStorage);
    const alice = await w.account();
    const bob = await w.account();
    const p = poll(w.id(), alice.id, null);
    await w.s.statuses.create(status(w.id(), alice.id, { pollId: p.id }), POST, { writes: [repo.store(p)] });
    const votes = await Promise.all([repo, otherRepo].map((x) => x.vote(p.id, bob.id, [0])));
    t.equal(count(votes, 'voted'), 1, 'vote on both: one voted');
    t.strictSame((await otherRepo.get(p.id))?.votersCount, 1, 'counted once, seen from the second connection');
  });
}
