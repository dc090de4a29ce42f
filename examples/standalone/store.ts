// The standalone instance's store, chosen from the environment: SQLite in DATA_DIR by default,
// MongoDB when MONGODB_URI is set. Shared by the server and the operator CLI. DATA_DIR is made
// either way: the media plugin keeps its files there.

import { mkdirSync } from 'node:fs';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import type { StandaloneSettings } from './env.ts';

export interface OpenedStore {
  storage: Storage;
  /** Where the data is, for the log: the file, or the connection string without its password. */
  where: string;
}

/** A connection string as it may be logged: any password replaced by ***. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:/@]+):[^@/]*@/i, '$1:***@');
}

export async function openStore(settings: StandaloneSettings): Promise<OpenedStore> {
  mkdirSync(settings.dataDir, { recursive: true });
  if (settings.mongodbUrl !== null) {
    // Loaded only when asked for: an instance on SQLite never loads the driver.
    const { openMongoStorage } = await import('../../adapters/mongodb/index.ts');
    return { storage: await openMongoStorage({ url: settings.mongodbUrl }), where: redactUrl(settings.mongodbUrl) };
  }
  return { storage: openSqliteStorage({ path: settings.databasePath }), where: settings.databasePath };
}
