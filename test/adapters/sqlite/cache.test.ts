// The SQLite adapter's read cache stays within its size: when full, it forgets its oldest
// entries, an eighth of them at a time, and keeps the rest.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { RowCache } from '../../../adapters/sqlite/cache.ts';
import { openDb } from '../../../adapters/sqlite/db.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-cache-'));
const db = openDb({ path: join(dir, 'cache.sqlite3') });
t.teardown(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const present = (cache: RowCache<number, string>, keys: number[]): number[] => keys.filter((k) => cache.get(k) !== undefined);
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

t.test('a full cache forgets its oldest eighth for a new key', async (t) => {
  const cache = new RowCache<number, string>(db, 'rows', 16, (v) => v);
  for (const k of range(0, 16)) cache.set(k, `v${k}`);
  t.strictSame(present(cache, range(0, 16)), range(0, 16), 'up to its size, everything is kept');
  cache.set(16, 'v16');
  t.strictSame(present(cache, range(0, 17)), range(2, 17), 'the two oldest are forgotten, the new one kept');
  t.equal(cache.get(16), 'v16');
  cache.set(17, 'v17');
  t.strictSame(present(cache, range(0, 18)), range(2, 18), 'room was left for one more');
  cache.set(18, 'v18');
  t.strictSame(present(cache, range(0, 19)), range(4, 19), 'full again: the next two oldest go');
});

t.test('setting a key it holds forgets nothing', async (t) => {
  const cache = new RowCache<number, string>(db, 'rows', 8, (v) => v);
  for (const k of range(0, 8)) cache.set(k, `v${k}`);
  cache.set(3, 'changed');
  t.strictSame(present(cache, range(0, 8)), range(0, 8), 'all kept');
  t.equal(cache.get(3), 'changed', 'with the new value');
});

t.test('a cache of one holds the newest', async (t) => {
  const cache = new RowCache<number, string>(db, 'rows', 1, (v) => v);
  cache.set(1, 'a');
  cache.set(2, 'b');
  t.strictSame(present(cache, [1, 2]), [2]);
});
