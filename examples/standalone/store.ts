// The standalone instance's store, chosen from the environment: SQLite in DATA_DIR by default,
// PostgreSQL when DATABASE_URL is set, MongoDB when MONGODB_URI is (never both: env.ts).
// Shared by the server and the operator CLI. DATA_DIR is made whatever the store: the media
// plugin keeps its files there, and the instance its keys.

import { mkdirSync } from 'node:fs';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import type { StandaloneSettings } from './env.ts';

export interface OpenedStore {
  storage: Storage;
  /** Where the data is, for the log: the file, or the connection string without its password. */
  where: string;
}

/** A connection string as it may be logged: any password replaced by ***. The password runs
 * to the last @ before the query, so one with an unescaped @ or / is hidden whole. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:/@]+):[^?#]*@/i, '$1:***@');
}

export async function openStore(settings: StandaloneSettings): Promise<OpenedStore> {
  mkdirSync(settings.dataDir, { recursive: true });
  if (settings.postgres !== null) {
    // Loaded only when asked for, like MongoDB's driver below.
    const { openPostgresStorage } = await import('../../adapters/postgres/index.ts');
    const { url, pool, statementTimeoutMs } = settings.postgres;
    return { storage: await openPostgresStorage({ url, pool, statementTimeoutMs }), where: redactUrl(url) };
  }
  if (settings.mongodbUrl !== null) {
    // Loaded only when asked for: an instance on SQLite never loads the driver.
    const { openMongoStorage } = await import('../../adapters/mongodb/index.ts');
    return { storage: await openMongoStorage({ url: settings.mongodbUrl }), where: redactUrl(settings.mongodbUrl) };
  }
  return { storage: openSqliteStorage({ path: settings.databasePath }), where: settings.databasePath };
}
