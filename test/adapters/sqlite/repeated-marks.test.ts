// A repeated favourite or bookmark (a double tap, a client's retry) reads nothing once the
// store has seen whether the mark is there: the answer is kept per reader and status, and made
// stale by any change to the marks' table, ours or another process's.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { account, IdSeq, mark, POST, status } from '../../../adapters/testing/fixtures.ts';
import { countStatements } from '../../helpers/sqlite-statements.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-repeated-marks-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Two stores on one file (two connections, as two processes have), alice's status and bob. */
async function setUp(t: Test, name: string) {
  const path = join(dir, `${name}.sqlite3`);
  const storage = openSqliteStorage({ path });
  const other = openSqliteStorage({ path });
  t.teardown(() => {
    storage.close();
    other.close();
  });
  const ids = new IdSeq();
  const alice = account(ids.next(), { username: 'alice' });
  const bob = account(ids.next(), { username: 'bob' });
  await storage.accounts.create(alice);
  await storage.accounts.create(bob);
  const post = status(ids.next(), alice.id);
  await storage.statuses.create(post, POST);
  return { storage, other, ids, bob, post };
}

/** The statements a call runs, from a turn of its own (the store's first look included). */
async function statementsOf(call: () => Promise<unknown>): Promise<{ result: unknown; statements: string[] }> {
  await new Promise((next) => setImmediate(next));
  const counting = countStatements();
  try {
    const result = await call();
    return { result, statements: counting.stop() };
  } catch (error) {
    counting.stop();
    throw error;
  }
}

t.test('a repeated favourite reads nothing; every change to favourites is seen', async (t) => {
  const { storage, other, ids, bob, post } = await setUp(t, 'favourites');
  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, post.id)), true, 'favourited');

  const first = await statementsOf(() => storage.interactions.favourite(mark(ids.next(), bob.id, post.id)));
  t.equal(first.result, false, 'already there');
  t.same(
    first.statements,
    ['PRAGMA data_version', 'PRAGMA data_version', 'SELECT 1 AS found FROM favourites WHERE account_id = ? AND status_id = ?'],
    "read once after the write (the turn's look, and the read snapshot's own)",
  );
  const again = await statementsOf(() => storage.interactions.favourite(mark(ids.next(), bob.id, post.id)));
  t.equal(again.result, false, 'still there');
  t.same(again.statements, ['PRAGMA data_version'], "kept: the one statement is the turn's look for other connections' commits");

  // Another connection (another process) takes it away: the next favourite is a real one.
  t.equal(await other.interactions.unfavourite(bob.id, post.id), true);
  storage.freshen?.();
  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, post.id)), true, "another process's unfavourite is seen");
  t.equal((await storage.statuses.get(post.id))?.favouritesCount, 1, 'counted once');

  // Our own write makes the kept answer stale too, for this reader and any other.
  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, post.id)), false);
  t.equal(await storage.interactions.unfavourite(bob.id, post.id), true, 'unfavourited');
  t.equal(await storage.interactions.unfavourite(bob.id, post.id), false, 'a repeated unfavourite changes nothing');
  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, post.id)), true, 'favourited again');
  t.equal((await storage.statuses.get(post.id))?.favouritesCount, 1);
});

t.test('a repeated bookmark reads nothing; every change to bookmarks is seen', async (t) => {
  const { storage, other, ids, bob, post } = await setUp(t, 'bookmarks');
  t.equal(await storage.interactions.bookmark(mark(ids.next(), bob.id, post.id)), true, 'bookmarked');
  t.equal(await storage.interactions.bookmark(mark(ids.next(), bob.id, post.id)), false, 'already there');
  const again = await statementsOf(() => storage.interactions.bookmark(mark(ids.next(), bob.id, post.id)));
  t.equal(again.result, false);
  t.same(again.statements, ['PRAGMA data_version'], 'kept');

  t.equal(await other.interactions.unbookmark(bob.id, post.id), true);
  storage.freshen?.();
  t.equal(await storage.interactions.unbookmark(bob.id, post.id), false, "another process's unbookmark is seen");
  t.equal(await storage.interactions.bookmark(mark(ids.next(), bob.id, post.id)), true, 'bookmarked again');
  t.same((await storage.interactions.bookmarksBy(bob.id, { limit: 10 })).map((m) => m.statusId), [post.id]);

  // A favourite does not stand for a bookmark, nor the other way round.
  t.equal(await storage.interactions.favourite(mark(ids.next(), bob.id, post.id)), true, 'a bookmarked status is not taken as favourited');
});
