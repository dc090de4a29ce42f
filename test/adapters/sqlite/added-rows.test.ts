// A cache of rows by their own key (RowCache byOwnKey: a status by its id, a token by its hash)
// keeps its entries when rows are only added to its table: a publish leaves every cached status
// cached. Any write that may change a row already there (an UPDATE, a DELETE, an INSERT that can
// replace or update on conflict), and any other connection's commit, still makes them stale; and
// a cache over a table where added rows matter (a viewer's boosts) still forgets on every insert.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RowCache } from '../../../adapters/sqlite/cache.ts';
import { openDb, type Db } from '../../../adapters/sqlite/db.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { account, boost, IdSeq, POST, status } from '../../../adapters/testing/fixtures.ts';
import { countStatements } from '../../helpers/sqlite-statements.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-added-rows-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function rowsTable(path: string): Db {
  const db = openDb({ path });
  db.writeNow(() => {
    db.run('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    db.run("INSERT OR IGNORE INTO rows (id, v) VALUES (1, 'one'), (2, 'two')");
  });
  return db;
}

/** A cache of each kind over `rows`, both holding rows 1 and 2 as read now. */
function caches(db: Db) {
  const byKey = new RowCache<number, string>(db, 'rows', 10, (v) => v, { byOwnKey: true });
  const any = new RowCache<number, string>(db, 'rows', 10, (v) => v);
  const fill = () => {
    for (const id of [1, 2]) {
      const v = (db.get('SELECT v FROM rows WHERE id = ?', id) as { v: string }).v;
      byKey.set(id, v);
      any.set(id, v);
    }
  };
  fill();
  return { byKey, any, fill };
}

t.test('rows only added leave a cache by own key as it was; other caches of the table forget', async (t) => {
  const db = rowsTable(join(dir, 'added.sqlite3'));
  t.teardown(() => db.close());
  const { byKey, any, fill } = caches(db);
  const [ownGeneration, generation] = [db.generation('rows', true), db.generation('rows')];

  await db.write(() => db.run("INSERT INTO rows (id, v) VALUES (3, 'three')"));
  t.equal(byKey.get(1), 'one', 'a group-committed insert: still cached');
  t.equal(byKey.get(2), 'two');
  t.equal(db.generation('rows', true), ownGeneration, 'the generation of rows already there did not move');
  t.not(db.generation('rows'), generation, 'the generation of every change moved');
  t.equal(any.get(1), undefined, 'a cache where added rows matter forgets');
  t.equal(byKey.get(3), undefined, 'the added row was never cached (absence is not kept)');

  fill();
  db.writeNow(() => db.run("INSERT INTO rows (id, v) VALUES (4, 'four')"));
  db.run("INSERT INTO rows (id, v) VALUES (5, 'five')");
  t.equal(byKey.get(1), 'one', 'an insert in writeNow, and one committed on its own: still cached');
  t.equal(any.get(1), undefined);
});

t.test('every write that may change a row already there moves both generations', async (t) => {
  const db = rowsTable(join(dir, 'rewritten.sqlite3'));
  t.teardown(() => db.close());
  const { byKey, any, fill } = caches(db);
  const writes: [string, () => unknown][] = [
    ['an UPDATE', () => db.run("UPDATE rows SET v = 'uno' WHERE id = 1")],
    ['a DELETE (the row put back after)', () => {
      db.run('DELETE FROM rows WHERE id = 2');
      db.run("INSERT INTO rows (id, v) VALUES (2, 'two')");
    }],
    ['INSERT OR REPLACE', () => db.run("INSERT OR REPLACE INTO rows (id, v) VALUES (1, 'ein')")],
    ['REPLACE INTO', () => db.run("REPLACE INTO rows (id, v) VALUES (1, 'un')")],
    ['INSERT … ON CONFLICT DO UPDATE', () => db.run("INSERT INTO rows (id, v) VALUES (1, 'one') ON CONFLICT (id) DO UPDATE SET v = excluded.v")],
    ['an insert and an update in one transaction', () => {
      db.run("INSERT INTO rows (id, v) VALUES (8, 'eight')");
      db.run("UPDATE rows SET v = 'one' WHERE id = 1");
    }],
  ];
  for (const [what, write] of writes) {
    const before = db.generation('rows', true);
    await db.write(write);
    t.not(db.generation('rows', true), before, `${what}: moved`);
    t.equal(byKey.get(1), undefined, `${what}: the cache by own key forgets`);
    t.equal(any.get(1), undefined, `${what}: so does the other`);
    fill();
  }
  t.equal(byKey.get(1), 'one', 'read again: the row as it is now');
});

t.test("another connection's insert makes both kinds stale: data_version says only that something changed", async (t) => {
  const path = join(dir, 'shared.sqlite3');
  const db = rowsTable(path);
  const other = rowsTable(path);
  t.teardown(() => {
    db.close();
    other.close();
  });
  const { byKey, any } = caches(db);
  await other.write(() => other.run("INSERT INTO rows (id, v) VALUES (7, 'seven')"));
  db.freshen();
  t.equal(byKey.get(1), undefined);
  t.equal(any.get(1), undefined);
});

t.test('a cache by own key reads one table', async (t) => {
  const db = rowsTable(join(dir, 'one-table.sqlite3'));
  t.teardown(() => db.close());
  t.throws(() => new RowCache(db, ['rows', 'others'], 10, (v) => v, { byOwnKey: true }), { message: 'a cache of rows by their own key reads one table' });
});

t.test('through the store: a publish leaves cached statuses and accounts unread, and nothing read is stale', async (t) => {
  const storage = openSqliteStorage({ path: join(dir, 'store.sqlite3') });
  t.teardown(() => storage.close());
  const ids = new IdSeq();
  const alice = account(ids.next(), { username: 'alice' });
  const bob = account(ids.next(), { username: 'bob' });
  await storage.accounts.create(alice);
  await storage.accounts.create(bob);
  const old = Array.from({ length: 5 }, () => status(ids.next(), alice.id));
  for (const s of old) await storage.statuses.create(s, POST);
  const oldIds = old.map((s) => s.id);
  // Read once, so cached.
  t.equal((await storage.statuses.getMany(oldIds)).length, 5);
  t.equal((await storage.accounts.getMany([alice.id])).length, 1);

  const published = status(ids.next(), bob.id);
  await storage.statuses.create(published, POST);
  const statements = countStatements();
  t.same((await storage.statuses.getMany(oldIds)).map((s) => s.id).sort(), oldIds, 'the statuses read before');
  t.equal((await storage.accounts.get(alice.id))?.username, 'alice');
  t.same(statements.stop(), ['PRAGMA data_version'], "served from the cache: the one statement is this turn's look for other connections' commits");

  t.equal((await storage.statuses.get(published.id))?.id, published.id, 'the new status is read');
  t.equal((await storage.accounts.get(bob.id))?.statusesCount, 1, "its author's count is the new one (runOnRow forgot the row)");

  // Added rows still count where they change what is cached: bob's boost of alice's status.
  t.equal((await storage.interactions.viewerState(bob.id, [oldIds[0] as string], [])).reblogged.has(oldIds[0] as string), false);
  await storage.statuses.create(boost(ids.next(), bob.id, old[0] as (typeof old)[number]), POST);
  t.equal((await storage.interactions.viewerState(bob.id, [oldIds[0] as string], [])).reblogged.has(oldIds[0] as string), true, 'a new boost shows at once');
});
