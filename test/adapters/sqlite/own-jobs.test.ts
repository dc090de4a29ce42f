// SQLite's queue hands this process's worker the jobs its writes record (keepOwn), but only
// those of writes that committed: not while the write is still open, never for one rolled back
// (alone in its savepoint of a group commit, or with its whole transaction).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { account, POST, status, T0 } from '../../../adapters/testing/fixtures.ts';
import type { Job } from '../../../core/domain/ports/queue.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-own-jobs-'));
const storage = openSqliteStorage({ path: join(dir, 'rookery.sqlite3') });
const queue = storage.jobs;
t.teardown(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});
const names = (jobs: readonly Job[]): string[] => jobs.map((j) => j.name);

t.before(async () => {
  await storage.accounts.create(account('100'));
  await queue.keepOwn?.({ now: () => T0, leaseMs: 60_000, max: 100 });
});

t.test('a committed write hands over its outbox jobs, after its COMMIT and not before', async (t) => {
  let inside: Job[] | null = null;
  const created = await storage.statuses.create(status('1001', '100'), POST, {
    outbox: () => {
      inside = queue.takeOwn?.(10) ?? null;
      return [{ name: 'created', payload: { id: '1001' }, orderingKey: 'status:1001' }];
    },
  });
  t.equal(created.created, true);
  t.strictSame(inside, [], 'nothing while the write is open');
  const taken = queue.takeOwn?.(10) ?? [];
  t.strictSame(taken.map((j) => [j.name, j.payload, j.orderingKey]), [['created', { id: '1001' }, 'status:1001']], 'once committed');
  await queue.complete(taken.map((j) => j.id));
});

t.test('a write that fails in a group commit hands over nothing; the one beside it does', async (t) => {
  const failing = storage.statuses.create(status('1001', '100'), POST, { outbox: () => [{ name: 'duplicate', payload: null }] });
  const passing = storage.statuses.create(status('1002', '100'), POST, { outbox: () => [{ name: 'second', payload: null }] });
  await t.rejects(failing, { name: 'StorageConflict' }, 'the id is taken: that write is rolled back alone');
  t.equal((await passing).created, true);
  const taken = queue.takeOwn?.(10) ?? [];
  t.strictSame(names(taken), ['second']);
  await queue.complete(taken.map((j) => j.id));
  t.equal(await queue.size(), 0, 'and the failed write queued nothing');
});

t.test('completing jobs while a group commit is on its way: done with it', async (t) => {
  await queue.enqueue([{ name: 'done soon', payload: null }], T0);
  const taken = queue.takeOwn?.(10) ?? [];
  t.strictSame(names(taken), ['done soon']);
  const created = storage.statuses.create(status('1003', '100'), POST);
  const completed = queue.complete(taken.map((j) => j.id));
  t.equal((await created).created, true, 'the write commits');
  await completed;
  t.equal(await queue.size(), 0, 'and the job is gone');
  t.equal((await storage.statuses.get('1003'))?.id, '1003');
});

t.test('completing jobs with no group commit on its way: after what the turn queued for its end', async (t) => {
  await queue.enqueue([{ name: 'done later', payload: null }], T0);
  const taken = queue.takeOwn?.(10) ?? [];
  t.strictSame(names(taken), ['done later']);
  // What a job left for the end of its turn (a live stream's write-out) runs before the
  // completion's own commit, which would block the event loop.
  const sizeAtTurnEnd = new Promise<number>((seen) => setImmediate(() => void queue.size().then(seen)));
  await queue.complete(taken.map((j) => j.id));
  t.equal(await sizeAtTurnEnd, 1, 'the job is still there at the end of the turn');
  t.equal(await queue.size(), 0, 'and gone once completed');
});

t.test('a job whose ordering key is already queued waits behind it, not handed over', async (t) => {
  // Two keys are looked up one by one, six in one statement (jobs.ts): both ways alike.
  for (const count of [2, 6]) {
    await queue.enqueue([{ name: 'first', payload: null, orderingKey: `key${count}:1` }], T0);
    const first = queue.takeOwn?.(10) ?? [];
    t.strictSame(names(first), ['first']);
    const keys = Array.from({ length: count }, (_, i) => `key${count}:${i}`);
    await queue.enqueue(keys.map((orderingKey) => ({ name: orderingKey, payload: null, orderingKey })), T0);
    const kept = keys.filter((k) => k !== `key${count}:1`);
    const handed = queue.takeOwn?.(10) ?? [];
    t.strictSame(names(handed).sort(), kept.sort(), `${count} keys: all but the one queued behind "first"`);
    await queue.complete([...first, ...handed].map((j) => j.id));
    const claimed = await queue.claim(T0 + 1, 10, 60_000);
    t.strictSame(names(claimed), [`key${count}:1`], 'which a claim finds once "first" is done');
    await queue.complete(claimed.map((j) => j.id));
  }
  t.equal(await queue.size(), 0);
});
