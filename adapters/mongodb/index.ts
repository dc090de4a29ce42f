export { openMongoStorage, mongoValues, databaseName, databaseFromUrl, supportsTransactions } from './storage.ts';
export type { MongoExtensionContext, MongoStorageOptions } from './storage.ts';
export type { MongoTx, CasSpec, CasPlan } from './db.ts';
export type { IndexDefinition, MongoMigration } from './schema.ts';
export { SCHEMA_VERSION } from './schema.ts';
export type { Doc as MongoDoc, StoredDoc as MongoStoredDoc, PageQuery as MongoPageQuery } from './values.ts';
