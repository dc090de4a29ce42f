// The SQLite connection's page cache: 64 MiB unless told (SQLite's own 2 MiB made a publish at
// a million statuses cost 1.7 times as much), and the option is checked like the others.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_CACHE_MIB, openDb } from '../../../adapters/sqlite/db.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-page-cache-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const cacheSize = (cacheMiB?: number): number => {
  const db = openDb({ path: join(dir, 'cache.sqlite3'), ...(cacheMiB === undefined ? {} : { cacheMiB }) });
  try {
    return Number((db.raw.prepare('PRAGMA cache_size').get() as { cache_size: bigint }).cache_size);
  } finally {
    db.close();
  }
};

t.test('64 MiB by default, or as many as asked', async (t) => {
  t.equal(DEFAULT_CACHE_MIB, 64);
  t.equal(cacheSize(), -64 * 1024, 'in KiB, as SQLite counts a negative size');
  t.equal(cacheSize(8), -8 * 1024);
});

t.test('openSqliteStorage takes cacheMiB, and refuses what is not a size', async (t) => {
  const storage = openSqliteStorage({ path: join(dir, 'store.sqlite3'), cacheMiB: 16 });
  await storage.close();
  for (const cacheMiB of [0, 1.5, -1, 'big']) {
    t.throws(
      () => openSqliteStorage({ path: join(dir, 'refused.sqlite3'), cacheMiB: cacheMiB as number }),
      { message: `Invalid config: openSqliteStorage: "cacheMiB" must be a whole number from 1 to 65536, got ${JSON.stringify(cacheMiB)}` },
      `refused: ${JSON.stringify(cacheMiB)}`,
    );
  }
});
