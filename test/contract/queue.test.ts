// The job queue contract on every queue this repository has: the in-process one, the memory
// store's own, and SQLite's (a file shared by two connections, and reopened).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createInProcessQueue } from '../../adapters/memory/jobs.ts';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Storage } from '../../core/ports/storage.ts';
import { queueContract } from '../../adapters/testing/index.ts';

queueContract(t, 'in-process queue', async () => ({ queue: createInProcessQueue(), cleanup: async () => {} }));

queueContract(t, 'memory store', async () => {
  const storage = createMemoryStorage();
  return { queue: storage.jobs, cleanup: () => storage.close() };
});

const dir = mkdtempSync(join(tmpdir(), 'rookery-queue-contract-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

queueContract(t, 'sqlite file', async () => {
  files += 1;
  const path = join(dir, `queue-${files}.db`);
  const open: Storage[] = [];
  const openOne = (): Storage => {
    const storage = openSqliteStorage({ path });
    open.push(storage);
    return storage;
  };
  const first = openOne();
  return {
    queue: first.jobs,
    connect: async () => openOne().jobs,
    async reopen() {
      await first.close();
      return openOne().jobs;
    },
    async cleanup() {
      for (const storage of open) await storage.close();
    },
  };
});
