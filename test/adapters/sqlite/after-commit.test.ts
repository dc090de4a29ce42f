// SQLite's afterCommit: asked for inside a write, it calls back once that write has committed,
// so a worker it wakes finds the jobs the write recorded. Another connection to the same file
// tells: before the commit it cannot see them, in the callback it must.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rookery-after-commit-'));
const path = join(dir, 'rookery.sqlite3');
const writer = openSqliteStorage({ path });
const other = openSqliteStorage({ path });
t.teardown(async () => {
  await writer.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('the callback comes after the COMMIT of the write that asked for it', async (t) => {
  let inside: Promise<number> | null = null;
  let after: Promise<number> | null = null;
  const called = new Promise<void>((done) => {
    void writer.interactions.favourite({ id: '1001', accountId: '2001', statusId: '3001', createdAt: 1 }, () => {
      // The other connection's reads run as they are called: these counts are taken here and now.
      inside = other.jobs.size();
      writer.afterCommit?.(() => {
        after = other.jobs.size();
        done();
      });
      return [{ name: 'woken', payload: null }];
    });
  });
  await called;
  t.equal(await inside, 0, 'inside the write, the job is not committed yet');
  t.equal(await after, 1, 'in the callback, another connection sees it');
});
