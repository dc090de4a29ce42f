export { openSqliteStorage, sqliteValues } from './storage.ts';
export type { SqliteExtensionContext, SqliteStorageOptions } from './storage.ts';
export type { Db as SqliteDb, Row as SqliteRow, Param as SqliteParam } from './db.ts';
export { SCHEMA_VERSION } from './schema.ts';
export type { RowCache } from './cache.ts';
