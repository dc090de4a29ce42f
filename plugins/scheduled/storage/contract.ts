// The scheduled statuses plugin's storage contract, on every engine it supports
// (test/plugins/storage-contracts.test.ts runs it on memory and SQLite).

import type { Id } from 'rookery/plugin-kit';
import { contractRunner, type ContractTest, idsOf, type OpenStore, POST, rejectsConflict, scheduled, status, T0 } from 'rookery/testing';
import { scheduledStorage } from './index.ts';

const HOUR = 3_600_000;

export function scheduledStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, shared } = contractRunner(t, `${adapterName}: scheduled`, open);

  it('CRUD, counts, claimDue leases', async (t, w) => {
    const repo = w.s.extend(scheduledStorage);
    const [alice, bob] = [await w.account(), await w.account()];
    const s1 = scheduled(w.id(), alice.id, T0 + HOUR);
    const s2 = scheduled(w.id(), alice.id, T0 + 2 * HOUR);
    const s3 = scheduled(w.id(), alice.id, T0 + 25 * HOUR);
    const s4 = scheduled(w.id(), bob.id, T0 + HOUR);
    for (const s of [s1, s2, s3, s4]) await repo.create(s);
    t.strictSame(await repo.get(s3.id), s3, 'get');
    t.equal(await repo.get(w.id()), null, 'get: missing');
    t.strictSame(idsOf(await repo.listBy(alice.id, { limit: 10 })), idsOf([s3, s2, s1]), 'listBy: newest id first');
    t.strictSame(idsOf(await repo.listBy(alice.id, { limit: 1, maxId: s3.id })), idsOf([s2]), 'listBy: maxId');
    t.strictSame(idsOf(await repo.listBy(alice.id, { limit: 1, minId: s1.id })), idsOf([s2]), 'listBy: minId');
    t.equal(await repo.countBetween(alice.id, T0, T0 + 2 * HOUR), 1, 'countBetween: [from, to) excludes to');
    t.equal(await repo.countBetween(alice.id, T0 + HOUR, T0 + 2 * HOUR + 1), 2, 'countBetween includes from');
    t.strictSame([await repo.countPending(alice.id), await repo.countPending(bob.id)], [3, 1], 'countPending');
    t.strictSame(await repo.update(s1.id, T0 + HOUR / 2), { ...s1, scheduledAt: T0 + HOUR / 2 }, 'update');
    t.equal(await repo.update(w.id(), T0), null, 'update: missing');

    const now = T0 + 2 * HOUR;
    const lease = 60_000;
    const first = await repo.claimDue(now, lease, 10);
    t.strictSame(idsOf(first), idsOf([s1, s4, s2]), 'claimDue: due ones, oldest first');
    t.strictSame(first.map((s) => s.claimedUntil), [now + lease, now + lease, now + lease], 'leased until now + leaseMs');
    t.equal((await repo.get(s4.id))?.claimedUntil, now + lease, 'the lease is stored');
    t.strictSame(await repo.claimDue(now + 1000, lease, 10), [], 'live leases are not claimed again');
    t.strictSame(idsOf(await repo.claimDue(now + lease, lease, 2)), idsOf([s1, s4]), 'after the lease expires: claimable again, limit honoured');
    t.strictSame(idsOf(await repo.claimDue(now + lease, lease, 10)), idsOf([s2]), 'the rest');
    t.equal(await repo.delete(s3.id), true, 'delete: true');
    t.equal(await repo.delete(s3.id), false, 'again: false');
    t.equal(await repo.countPending(alice.id), 2, 'countPending after delete');

    const due: Id[] = [];
    for (let i = 0; i < 6; i += 1) {
      const s = scheduled(w.id(), bob.id, T0 + i);
      due.push(s.id);
      await repo.create(s);
    }
    const later = T0 + 100 * HOUR;
    const [x, y] = await Promise.all([repo.claimDue(later, lease, 5), repo.claimDue(later, lease, 5)]);
    const claimed = [...idsOf(x), ...idsOf(y)];
    t.equal(new Set(claimed).size, claimed.length, 'two concurrent claims never return the same row');
    t.equal(claimed.length, 9, 'between them they claim every due row (6 new + 3 old)');
    t.strictSame([await repo.get('not-an-id'), await repo.update('not-an-id', T0), await repo.delete('not-an-id')], [null, null, false], 'not an id: misses');
    await rejectsConflict(t, repo.create(scheduled(s1.id, alice.id, T0)), 'id', 'a taken id');
  });

  it('create and update with an outbox; consume publishes once', async (t, w) => {
    const repo = w.s.extend(scheduledStorage);
    const alice = await w.account();
    const s = scheduled(w.id(), alice.id, T0 + HOUR);
    await repo.create(s, () => [{ name: 'publish', payload: { id: s.id }, runAt: s.scheduledAt }]);
    const moved = await repo.update(s.id, T0 + 2 * HOUR, (row) => (row === null ? [] : [{ name: 'publish', payload: { id: row.id }, runAt: row.scheduledAt }]));
    t.equal(moved?.scheduledAt, T0 + 2 * HOUR);
    const jobs = await w.s.jobs.claim(T0 + 3 * HOUR, 10, 1000);
    t.strictSame(jobs.map((j) => j.runAt), [T0 + HOUR, T0 + 2 * HOUR], 'each write queued its job, due at the time it set');

    const first = status(w.id(), alice.id);
    t.equal((await w.s.statuses.create(first, POST, { writes: [repo.consume(s.id)] })).created, true, 'the status is published with the row consumed');
    t.equal(await repo.get(s.id), null, 'the row is gone with it');
    const second = status(w.id(), alice.id);
    await rejectsConflict(t, w.s.statuses.create(second, POST, { writes: [repo.consume(s.id)] }), 'scheduled', 'a second publication of the same row is refused');
    t.equal(await w.s.statuses.get(second.id), null, 'and writes nothing');
    t.equal((await w.acct(alice.id)).statusesCount, 1, 'published once');
  });

  shared('claimDue and consume raced across two connections', async (t, w, other) => {
    const repo = w.s.extend(scheduledStorage);
    const otherRepo = other.extend(scheduledStorage);
    const alice = await w.account();
    for (let i = 0; i < 4; i += 1) await repo.create(scheduled(w.id(), alice.id, T0 + i));
    const claims = await Promise.all([repo, otherRepo].map((x) => x.claimDue(T0 + HOUR, 60_000, 3)));
    const claimed = claims.flatMap(idsOf);
    t.strictSame([claimed.length, new Set(claimed).size], [4, 4], 'claimDue on both: disjoint, all claimed');
    const row = claimed[0] as Id;
    const results = await Promise.allSettled([
      w.s.statuses.create(status(w.id(), alice.id), POST, { writes: [repo.consume(row)] }),
      other.statuses.create(status(w.id(), alice.id), POST, { writes: [otherRepo.consume(row)] }),
    ]);
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'consume on both: one status published');
    t.equal((await w.acct(alice.id)).statusesCount, 1, 'counted once');
  });
}
