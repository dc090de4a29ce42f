export { openSqliteStorage } from './storage.ts';
export type { SqliteStorageOptions } from './storage.ts';
export { SCHEMA_VERSION } from './schema.ts';
