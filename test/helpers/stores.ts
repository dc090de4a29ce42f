// Stores for contract suites: a SQLite file (reopen and a second connection), and a private
// SQLite :memory: database.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { OpenStore } from '../../adapters/testing/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';

/** A SQLite file per call in a directory removed by `teardown`. */
export function sqliteFiles(teardown: (fn: () => void) => void): OpenStore {
  const dir = mkdtempSync(join(tmpdir(), 'rookery-plugin-contract-'));
  teardown(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  return async () => {
    files += 1;
    const path = join(dir, `store-${files}.db`);
    const open: Storage[] = [];
    const openOne = (): Storage => {
      const s = openSqliteStorage({ path });
      open.push(s);
      return s;
    };
    const handle = {
      storage: openOne(),
      async reopen() {
        await handle.storage.close();
        handle.storage = openOne();
        return handle.storage;
      },
      async connect() {
        return openOne();
      },
      async cleanup() {
        for (const s of open) await s.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      },
    };
    return handle;
  };
}

export const openSqliteMemory: OpenStore = async () => {
  const storage = openSqliteStorage({ path: ':memory:', synchronous: 'normal' });
  return { storage, cleanup: () => storage.close() };
};

/** The store, with every repository call recorded as "repository.method". */
export function counted(storage: Storage, calls: string[]): Storage {
  return new Proxy(storage, {
    get(target, repoName, receiver) {
      const repo: unknown = Reflect.get(target, repoName, receiver);
      if (repo === null || typeof repo !== 'object') return repo;
      return new Proxy(repo, {
        get(inner, method, innerReceiver) {
          const value: unknown = Reflect.get(inner, method, innerReceiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(`${String(repoName)}.${String(method)}`);
            return (value as (...a: unknown[]) => unknown).apply(inner, args);
          };
        },
      });
    },
  });
}
