// The job queue contract on every queue this repository has: the memory store's own (SQLite in
// memory), SQLite's (a file shared by two connections, and reopened), and Redis's (the shared
// server, a key prefix per test; a second client, and a client opened anew).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { queueContract } from '../../adapters/testing/index.ts';
import { createRedisQueue, type RedisQueue } from '../../adapters/redis/index.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../helpers/redis.ts';

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

queueContract(t, 'redis', async () => {
  const prefix = testPrefix('queue-contract');
  const open: RedisQueue[] = [];
  const openOne = async (): Promise<RedisQueue> => {
    const queue = await createRedisQueue({ url: SHARED_REDIS, prefix });
    open.push(queue);
    return queue;
  };
  const first = await openOne();
  return {
    queue: first,
    connect: openOne,
    async reopen() {
      await first.close();
      return openOne();
    },
    async cleanup() {
      for (const queue of open) await queue.close();
      await dropPrefix(prefix);
    },
  };
});
