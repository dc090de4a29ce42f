// The SQLite connection's reads outside a write share one snapshot per turn of the event loop
// (one read lock instead of one per statement). What must hold: another connection's commit is
// seen from the next turn, and at once after freshen() or stamp(); a write is never made inside
// that snapshot, so it commits, durable and visible, when its promise settles; what a write
// reads is never cached. And a savepoint's journal stays in memory (temp_store), not in files.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { RowCache } from '../../../adapters/sqlite/cache.ts';
import { openDb } from '../../../adapters/sqlite/db.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-snapshot-'));
const path = join(dir, 'snapshot.sqlite3');
const db = openDb({ path });
db.writeNow(() => {
  db.raw.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, value TEXT NOT NULL) STRICT');
  db.run("INSERT INTO rows (id, value) VALUES (1, 'first')");
});
// Another connection to the same file: what another process would be.
const other = new DatabaseSync(path, { timeout: 5000 });
t.teardown(() => {
  other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const valueOf = (id: number): string | undefined => db.get('SELECT value FROM rows WHERE id = ?', id)?.value as string | undefined;
const nextTurn = () => new Promise((turn) => setImmediate(turn));

t.test("reads of one turn share a snapshot; the next turn sees another connection's commit", async (t) => {
  await nextTurn();
  t.equal(valueOf(1), 'first');
  other.prepare("UPDATE rows SET value = 'second' WHERE id = 1").run();
  t.equal(valueOf(1), 'first', 'the same turn reads its snapshot');
  await nextTurn();
  t.equal(valueOf(1), 'second', 'the next turn reads what was committed');
});

t.test('freshen() and stamp() take a new snapshot at once', async (t) => {
  await nextTurn();
  t.equal(valueOf(1), 'second');
  other.prepare("UPDATE rows SET value = 'third' WHERE id = 1").run();
  db.freshen();
  t.equal(valueOf(1), 'third', 'after freshen()');
  const before = db.stamp();
  other.prepare("UPDATE rows SET value = 'fourth' WHERE id = 1").run();
  t.not(db.stamp(), before, "stamp() moves for the other connection's commit");
  t.equal(valueOf(1), 'fourth', 'after stamp()');
});

t.test("seen() moves only when a read or a write began on another connection's later commit, or ours", async (t) => {
  await nextTurn();
  const stamp = db.stamp();
  t.equal(valueOf(1), 'fourth');
  t.equal(db.seen(), stamp, 'reads that found the file as stamp() did: the same');
  await nextTurn();
  other.prepare("UPDATE rows SET value = 'fourth, again' WHERE id = 1").run();
  t.equal(db.seen(), stamp, 'a commit nothing read yet: not seen');
  t.equal(valueOf(1), 'fourth, again', 'a new snapshot, on that commit');
  t.not(db.seen(), stamp, 'its snapshot began on the commit: seen');

  await nextTurn();
  const beforeWrite = db.stamp();
  other.prepare("UPDATE rows SET value = 'fourth' WHERE id = 1").run();
  t.equal(await db.write(() => db.get('SELECT value FROM rows WHERE id = 1')?.value), 'fourth');
  t.not(db.seen(), beforeWrite, 'a write that changed nothing, begun on the commit: seen');

  await nextTurn();
  const beforeOurs = db.stamp();
  await db.write(() => db.run("UPDATE rows SET value = 'fourth!' WHERE id = 1"));
  t.not(db.seen(), beforeOurs, 'our own commit: seen');
  const after = db.stamp();
  t.equal(db.seen(), after, 'and a stamp() after it finds nothing newer');
  await db.write(() => db.run("UPDATE rows SET value = 'fourth' WHERE id = 1"));
});

t.test('a write after reads in the same turn commits on its own, seen by another connection', async (t) => {
  await nextTurn();
  t.equal(valueOf(1), 'fourth');
  await db.write(() => db.run("INSERT INTO rows (id, value) VALUES (2, 'written')"));
  t.same(other.prepare('SELECT value FROM rows WHERE id = 2').get(), { value: 'written' }, 'committed when the promise settled');
  t.equal(valueOf(2), 'written', 'and read back in the same turn');
  db.writeNow(() => db.run("INSERT INTO rows (id, value) VALUES (3, 'now')"));
  t.same(other.prepare('SELECT value FROM rows WHERE id = 3').get(), { value: 'now' });
  db.writeRelaxed(() => db.run("INSERT INTO rows (id, value) VALUES (4, 'relaxed')"));
  t.same(other.prepare('SELECT value FROM rows WHERE id = 4').get(), { value: 'relaxed' });
  t.equal(db.inWrite(), false, 'no write left open');
});

t.test('what a write reads is not cached; what the snapshot reads is', async (t) => {
  await nextTurn();
  const cache = new RowCache<number, string>(db, 'rows', 10, (v) => v);
  const rejected = db.write(() => {
    t.equal(db.inWrite(), true);
    cache.set(5, 'inside');
    throw new Error('rolled back');
  });
  await t.rejects(rejected, { message: 'rolled back' });
  t.equal(cache.get(5), undefined, 'nothing kept from inside the write');
  t.equal(valueOf(1), 'fourth');
  t.equal(db.inWrite(), false, 'a read snapshot is not a write');
  cache.set(1, 'fourth');
  t.equal(cache.get(1), 'fourth', 'kept from the snapshot');
});

t.test("a savepoint's journal is kept in memory", async (t) => {
  t.same(db.get('PRAGMA temp_store'), { temp_store: 2n }, 'MEMORY');
});
