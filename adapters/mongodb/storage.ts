// Storage on MongoDB with the official driver: the production store for several processes or
// machines. It needs a replica set (a single-node one is enough) or a sharded cluster: some
// writes span documents and run as multi-document transactions (the README lists each one and
// why); the rest are single-document writes. Opening connects, checks the deployment, brings the
// schema to its version and creates every index. Plugins bring their own repositories through
// `extend`, built on a MongoExtensionContext.

import { MongoClient, type Collection, type Db, type MongoClientOptions } from 'mongodb';
import type { NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { extensionRegistry, type Storage, type StorageWrite } from '../../core/domain/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { reportRepository } from './reports.ts';
import { analyticsRepository } from './analytics.ts';
import { serverBlockRepository } from './server-blocks.ts';
import { bump, createMongo, type CasSpec, type Mongo, type MongoTx } from './db.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { jobQueue } from './jobs.ts';
import { listRepository } from './lists.ts';
import { endorsementRepository, tagRepository } from './tags.ts';
import { accountNoteRepository } from './account-notes.ts';
import { quoteRepository } from './quotes.ts';
import { notificationRepository } from './notifications.ts';
import { notificationPolicyRepository } from './notification-policies.ts';
import { conversationRepository } from './conversations.ts';
import { oauthRepository } from './oauth.ts';
import { relationshipRepository } from './relationships.ts';
import {
  C,
  INDEXES,
  createCollections,
  IndexRegistry,
  MIGRATIONS,
  PENDING_JOB_COLLECTIONS,
  ensureIndexes,
  extensionTooNew,
  pendingJobsIndex,
  runMigrations,
  schemaTooNew,
  type IndexDefinition,
  type MetaCollection,
  type MongoMigration,
} from './schema.ts';
import { statusRepository } from './statuses.ts';
import * as values from './values.ts';
import type { Doc, StoredDoc } from './values.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

export interface MongoStorageOptions {
  /** A MongoDB connection string (mongodb:// or mongodb+srv://) of a replica set or sharded cluster. */
  url: string;
  /** The database; default: the one the connection string names, else 'rookery'. */
  database?: string;
  /** Passed to the driver's MongoClient. */
  clientOptions?: MongoClientOptions;
  /** How long (wall clock) an idempotency key is kept after its use; default 24 hours. Must be
   * longer than the core's window (limits.idempotencySeconds). */
  idempotencyRetentionMs?: number;
}

/** The database a connection string names (its path), or null. */
export function databaseFromUrl(url: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]+)/.exec(url);
  return match?.[1] === undefined ? null : decodeURIComponent(match[1]);
}

export function databaseName(url: string, explicit?: string): string {
  return explicit ?? databaseFromUrl(url) ?? 'rookery';
}

/** Multi-document transactions need a replica set member or a mongos: what `hello` says. */
export function supportsTransactions(hello: Doc): boolean {
  return typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
}

export const STANDALONE_REFUSED =
  'the MongoDB store needs a replica set or a sharded cluster: some writes are multi-document transactions, which a standalone server refuses ' +
  '(a single-node replica set is enough: start mongod with --replSet rs0 and run rs.initiate() once)';

/** The conversions a plugin's MongoDB repository uses (ids, pages, keys; see values.ts). */
export const mongoValues = {
  num: values.num,
  lookupId: values.lookupId,
  validIds: values.validIds,
  asciiLower: values.asciiLower,
  pairKey: values.pairKey,
  inOrder: values.inOrder,
  newestFirst: values.newestFirst,
  pageQuery: values.pageQuery,
  withRange: values.withRange,
  inPageOrder: values.inPageOrder,
  setFields: values.setFields,
  applyPatch: values.applyPatch,
  stored: values.stored,
  bump,
};

/** What a plugin's MongoDB repository is built on. */
export interface MongoExtensionContext {
  readonly engine: 'mongodb';
  /** The identity this store's StorageWrites carry. */
  readonly store: object;
  readonly db: Db;
  collection(name: string): Collection<StoredDoc>;
  readonly values: typeof mongoValues;
  /** Creates the plugin's indexes (their rules then translate duplicates to StorageConflict),
   * runs its own numbered migrations (tracked per extension name; never edit a released one)
   * and registers the collections whose single-document writes carry jobs. The factory is
   * synchronous: the repository awaits this promise before its first operation. */
  setup(options: {
    indexes: readonly IndexDefinition[];
    migrations?: readonly MongoMigration[];
    carriesJobs?: readonly string[];
    /** Collections written inside transactions: made up front (a transaction cannot create one
     * on every deployment). Those its indexes name are made anyway. */
    collections?: readonly string[];
  }): Promise<void>;
  /** A StorageWrite for statuses.create/update of this store: its steps run in the status's
   * transaction (checks before the status write, applies after it) and may be asynchronous;
   * every operation must pass `tx.session`. */
  prepare(write: { check?(tx: MongoTx): void | Promise<void>; apply(tx: MongoTx): void | Promise<void> }): StorageWrite;
  /** A transaction (retried on conflicts; `race` names "collection.index" duplicates that mean
   * "run again"). */
  transaction<R>(body: (tx: MongoTx) => Promise<R>, race?: readonly string[]): Promise<R>;
  /** A transaction that also records its outbox's jobs. */
  withOutbox<R>(outbox: Outbox<R> | undefined, body: (tx: MongoTx) => Promise<R>, race?: readonly string[]): Promise<R>;
  /** A single-document compare-and-set write with its jobs in the document (db.ts casWrite). */
  cas<R>(spec: CasSpec<R>, race?: readonly string[]): Promise<R>;
  /** Inserts a document with jobs known beforehand (its collection must carry jobs). */
  insertWithJobs(collection: string, doc: Doc, jobs: readonly NewJob[]): Promise<void>;
  /** Updates (or upserts) the document its `_id` names, with jobs known beforehand. */
  updateWithJobs(collection: string, filter: Doc, update: Doc, jobs: readonly NewJob[], options?: { upsert?: boolean }): Promise<number>;
  /** The next number of a named sequence (for an order of the plugin's own). */
  sequence(name: string): Promise<number>;
  /** Driver error → the port's (StorageConflict for a duplicate key of a known index). */
  translate(error: unknown): unknown;
}

const DAY = 24 * 3_600_000;

const OPTIONS: OptionSpec = {
  url: option.required(option.secret(option.url(['mongodb:', 'mongodb+srv:']))),
  database: option.nonEmptyString('a database name'),
  clientOptions: { what: 'an object', test: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) },
  idempotencyRetentionMs: option.integer(3_600_000, 365 * DAY),
};

export async function openMongoStorage(options: MongoStorageOptions): Promise<Storage> {
  checkOptions('openMongoStorage', options, OPTIONS);
  const client = new MongoClient(options.url, options.clientOptions);
  await client.connect();
  try {
    return await openMongoStorageOn(client, client.db(databaseName(options.url, options.database)), options);
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** The store on a connected client and one of its databases (openMongoStorage's second half:
 * the deployment check, the schema, the indexes). The store closes the client when it closes. */
export async function openMongoStorageOn(client: MongoClient, db: Db, options: Pick<MongoStorageOptions, 'idempotencyRetentionMs'> = {}): Promise<Storage> {
  if (!supportsTransactions(await db.admin().command({ hello: 1 }))) throw new Error(STANDALONE_REFUSED);
  const registry = new IndexRegistry();
  registry.add(INDEXES);
  const meta = db.collection<StoredDoc>(C.meta) as unknown as MetaCollection;
  await runMigrations(meta, 'schema', MIGRATIONS, (migration) => migration.up(db), schemaTooNew);
  await ensureIndexes(db, INDEXES);
  const m = createMongo({ client, db, registry });
  for (const name of PENDING_JOB_COLLECTIONS) m.carriesJobs(name);
  await m.sweep();
  return storageOn(m, options.idempotencyRetentionMs ?? DAY);
}

function storageOn(m: Mongo, idempotencyRetentionMs: number): Storage {
  const store = {};
  const setups = new Set<Promise<void>>();
  const contextFor = (name: string): MongoExtensionContext => ({
    engine: 'mongodb',
    store,
    db: m.db,
    collection: m.collection,
    values: mongoValues,
    setup(setupOptions) {
      const indexes = [...setupOptions.indexes, ...(setupOptions.carriesJobs ?? []).map(pendingJobsIndex)];
      m.registry.add(indexes);
      for (const collection of setupOptions.carriesJobs ?? []) m.carriesJobs(collection);
      const done = (async () => {
        const meta = m.collection(C.meta) as unknown as MetaCollection;
        await createCollections(m.db, [...new Set([...(setupOptions.collections ?? []), ...indexes.map((i) => i.collection)])]);
        await runMigrations(meta, `extension:${name}`, setupOptions.migrations ?? [], (migration) => migration.up(m.db), extensionTooNew(name));
        await ensureIndexes(m.db, indexes);
      })();
      setups.add(done);
      // Awaited by the repository's operations and by close; never left unhandled.
      done.catch(() => undefined);
      return done;
    },
    prepare(write) {
      const prepared: StorageWrite = { store, apply: (tx) => write.apply(tx as MongoTx) };
      const check = write.check;
      return check === undefined ? prepared : { ...prepared, check: (tx) => check.call(write, tx as MongoTx) };
    },
    transaction: (body, race) => m.transaction(body, race),
    withOutbox: (outbox, body, race) => m.withOutbox(outbox, body, race),
    cas: (spec, race) => m.cas(spec, race),
    insertWithJobs: (collection, doc, jobs) => m.insertWithJobs(collection, doc, jobs),
    updateWithJobs: (collection, filter, update, jobs, o) => m.updateWithJobs(collection, filter, update, jobs, o),
    async sequence(sequenceName) {
      const doc = await m.collection(C.counters).findOneAndUpdate({ _id: `sequence:${sequenceName}` }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
      return doc?.['seq'] as number;
    },
    translate: (error) => m.translate(error),
  });
  return {
    engine: 'mongodb',
    extend: extensionRegistry('mongodb', contextFor),
    accounts: accountRepository(m),
    reports: reportRepository(m),
    analytics: analyticsRepository(m),
    serverBlocks: serverBlockRepository(m),
    statuses: statusRepository(m, store, { idempotencyRetentionMs }),
    interactions: interactionRepository(m),
    relationships: relationshipRepository(m),
    notifications: notificationRepository(m),
    notificationPolicies: notificationPolicyRepository(m),
    conversations: conversationRepository(m),
    lists: listRepository(m),
    tags: tagRepository(m),
    endorsements: endorsementRepository(m),
    accountNotes: accountNoteRepository(m),
    quotes: quoteRepository(m, store),
    filters: filterRepository(m),
    markers: markerRepository(m),
    oauth: oauthRepository(m),
    jobs: jobQueue(m),
    async close() {
      await Promise.allSettled(setups);
      await m.client.close();
    },
  };
}
