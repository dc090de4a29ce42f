// A change to one row's counters (Db.runOnRow: a post counted, a favourite) makes the caches
// keyed by that row forget it and leaves the table's generation where it was, so every other
// cached account or status stays cached; a change made any other way still moves the table.
// Through the store: the counts read after a publish, a favourite and a follow are the new ones.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RowCache } from '../../../adapters/sqlite/cache.ts';
import { openDb } from '../../../adapters/sqlite/db.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { account, follow, IdSeq, mark, POST, replyTo, status } from '../../../adapters/testing/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-row-changes-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('runOnRow forgets its row in the caches keyed by it, and moves no generation', async (t) => {
  const db = openDb({ path: join(dir, 'rows.sqlite3') });
  t.teardown(() => db.close());
  db.writeNow(() => {
    db.run('CREATE TABLE counted (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    db.run('INSERT INTO counted (id, n) VALUES (1, 0), (2, 0)');
  });
  const byRow = new RowCache<string, number>(db, 'counted', 10, (n) => n);
  db.onRowChange('counted', (id) => byRow.forget(id));
  const fill = () => {
    for (const id of ['1', '2']) byRow.set(id, Number((db.get('SELECT n FROM counted WHERE id = ?', BigInt(id)) as { n: bigint }).n));
  };
  fill();
  const generation = db.generation('counted');
  const stamp = db.stamp();

  t.equal(await db.write(() => db.runOnRow('counted', '1', 'UPDATE counted SET n = n + 1 WHERE id = ?', 1n)), 1, 'one row changed');
  t.equal(byRow.get('1'), undefined, 'the changed row is forgotten');
  t.equal(byRow.get('2'), 0, 'the other row stays cached');
  t.equal(db.generation('counted'), generation, "the table's generation did not move");
  t.not(db.stamp(), stamp, 'the stamp moved: a row changed');

  fill();
  t.equal(byRow.get('1'), 1, 'read again: the new count');
  const outside = db.stamp();
  t.equal(db.runOnRow('counted', '2', 'UPDATE counted SET n = n + 5 WHERE id = ?', 2n), 1, 'outside a write: committed on its own');
  t.equal(byRow.get('2'), undefined, 'forgotten at once');
  t.equal(byRow.get('1'), 1);
  t.not(db.stamp(), outside);

  fill();
  await t.rejects(
    db.write(() => {
      db.runOnRow('counted', '1', 'UPDATE counted SET n = n + 1 WHERE id = ?', 1n);
      throw new Error('changed its mind');
    }),
    { message: 'changed its mind' },
  );
  t.equal(Number((db.get('SELECT n FROM counted WHERE id = 1') as { n: bigint }).n), 1, 'rolled back: the row is as it was');
  t.equal(byRow.get('2'), 5, 'and the other row still cached');

  t.equal(await db.write(() => db.runOnRow('counted', '3', 'UPDATE counted SET n = n + 1 WHERE id = ?', 3n)), 0, 'no such row: nothing changed');
  t.equal(byRow.get('2'), 5);

  await db.write(() => db.run('UPDATE counted SET n = 0 WHERE id = 2'));
  t.not(db.generation('counted'), generation, 'any other write moves the generation');
  t.equal(byRow.get('1'), undefined, 'and every entry of the table goes');
  t.equal(byRow.get('2'), undefined);
});

t.test('through the store, counters read after they moved are the new ones', async (t) => {
  const storage = openSqliteStorage({ path: join(dir, 'store.sqlite3') });
  t.teardown(() => storage.close());
  const ids = new IdSeq();
  const alice = account(ids.next(), { username: 'alice' });
  const bob = account(ids.next(), { username: 'bob' });
  await storage.accounts.create(alice);
  await storage.accounts.create(bob);
  const first = status(ids.next(), alice.id);
  await storage.statuses.create(first, POST);
  // Read (and so cached) before each change.
  t.equal((await storage.accounts.get(alice.id))?.statusesCount, 1);
  t.equal((await storage.accounts.get(bob.id))?.statusesCount, 0);
  t.equal((await storage.statuses.get(first.id))?.favouritesCount, 0);

  await storage.statuses.create(status(ids.next(), alice.id), POST);
  t.equal((await storage.accounts.get(alice.id))?.statusesCount, 2, 'a post counted');
  await storage.statuses.create(status(ids.next(), bob.id, { inReplyToId: first.id, inReplyToAccountId: alice.id }), replyTo(first.id));
  t.same((await storage.accounts.getMany([alice.id, bob.id])).map((a) => a.statusesCount), [2, 1], "the other author's post counted");
  t.equal((await storage.statuses.get(first.id))?.repliesCount, 1, 'a reply counted');

  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, first.id)), true);
  t.equal((await storage.statuses.get(first.id))?.favouritesCount, 1, 'a favourite counted');
  t.same((await storage.statuses.getMany([first.id])).map((s) => s.favouritesCount), [1], 'by the batch read too');

  t.equal(await storage.relationships.follow(follow(ids.next(), bob.id, alice.id)), 'created');
  t.same((await storage.accounts.getMany([alice.id, bob.id])).map((a) => [a.followersCount, a.followingCount]), [[1, 0], [0, 1]], 'a follow counted on both sides');
});
