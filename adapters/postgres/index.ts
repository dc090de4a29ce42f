export { openPostgresStorage, postgresValues } from './storage.ts';
export type { PostgresExtensionContext, PostgresStorageOptions } from './storage.ts';
export type { Sql as PostgresSql, Tx as PostgresTx, Row as PostgresRow } from './db.ts';
export { SCHEMA_VERSION } from './schema.ts';
