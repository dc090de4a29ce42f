// Storage on node:sqlite (the embedded default): one file, WAL, durable by default
// (synchronous=FULL: an acknowledged write survives power loss). Every write method is one
// BEGIN IMMEDIATE transaction, so it is atomic even when several processes share the file.
// Plugins bring their own repositories through `extend`, built on a SqliteExtensionContext.

import type { NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { extensionRegistry, type Storage, type StorageWrite } from '../../core/domain/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { reportRepository } from './reports.ts';
import { analyticsRepository } from './analytics.ts';
import { serverBlockRepository } from './server-blocks.ts';
import * as values from './db.ts';
import { openDb, type Db } from './db.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { listRepository } from './lists.ts';
import { endorsementRepository, tagRepository } from './tags.ts';
import { accountNoteRepository } from './account-notes.ts';
import { quoteRepository } from './quotes.ts';
import { notificationRepository } from './notifications.ts';
import { notificationPolicyRepository } from './notification-policies.ts';
import { conversationRepository } from './conversations.ts';
import { oauthRepository } from './oauth.ts';
import { relationshipRepository } from './relationships.ts';
import { enqueueIn, jobQueue, writeWithOutbox } from './jobs.ts';
import { migrate, migrateExtension } from './schema.ts';
import { statusRepository } from './statuses.ts';
import { RowCache } from './cache.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

export interface SqliteStorageOptions {
  /** A file path, or ':memory:' for a private in-memory database. */
  path: string;
  /** 'full' (default): durable across power loss. 'normal': durable across crashes of the process only, faster. */
  synchronous?: 'full' | 'normal';
  /** The page cache of the store's connection, in MiB (default 64; SQLite's own is 2). */
  cacheMiB?: number;
}

/** The conversions between rows and model values a plugin's SQLite repository uses (ids are
 * INTEGER columns read as BigInt; see db.ts). */
export const sqliteValues = {
  key: values.key,
  keyOrNull: values.keyOrNull,
  lookupKey: values.lookupKey,
  keyList: values.keyList,
  amongIds: values.amongIds,
  flag: values.flag,
  jsonText: values.jsonText,
  id: values.id,
  idOrNull: values.idOrNull,
  int: values.int,
  intOrNull: values.intOrNull,
  num: values.num,
  bool: values.bool,
  text: values.text,
  textOrNull: values.textOrNull,
  json: values.json,
  jsonOrNull: values.jsonOrNull,
  inOrder: values.inOrder,
  paged: values.paged,
  setClause: values.setClause,
};

/** What a plugin's SQLite repository is built on. */
export interface SqliteExtensionContext {
  readonly engine: 'sqlite';
  /** The identity this store's StorageWrites carry. */
  readonly store: object;
  /** The connection: write (BEGIN IMMEDIATE), read (one snapshot), all/get/run. */
  readonly db: Db;
  readonly values: typeof sqliteValues;
  /** Applies the plugin's own numbered migrations (tracked per extension name in
   * extension_migrations): version n is migrations[n - 1]; never edit a released one. */
  migrate(migrations: readonly string[]): void;
  /** A StorageWrite for statuses.create/update of this store: its steps run synchronously in
   * the status's transaction (checks before the status write, applies after it). */
  prepare(write: { check?(db: Db): void; apply(db: Db): void }): StorageWrite;
  /** One write transaction that also inserts the jobs its outbox returns. */
  writeWithOutbox<R>(outbox: Outbox<R> | undefined, write: () => R): Promise<R>;
  /** Inserts jobs inside the current transaction (what an apply records with the status write). */
  enqueue(jobs: readonly NewJob[]): void;
  /** A read cache as fresh as the file (cache.ts) over the given tables. */
  cache<K, V>(tables: string | readonly string[], max: number, copy: (value: V) => V): RowCache<K, V>;
}

const OPTIONS: OptionSpec = {
  path: option.required(option.nonEmptyString('a file path or ":memory:"')),
  synchronous: option.oneOf(['full', 'normal']),
  cacheMiB: option.integer(1, 65_536),
};

export function openSqliteStorage(options: SqliteStorageOptions): Storage {
  checkOptions('openSqliteStorage', options, OPTIONS);
  const db = openDb({ path: options.path, synchronous: options.synchronous, cacheMiB: options.cacheMiB });
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const store = {};
  const contextFor = (name: string): SqliteExtensionContext => ({
    engine: 'sqlite',
    store,
    db,
    values: sqliteValues,
    migrate: (migrations) => migrateExtension(db, name, migrations),
    prepare: (write) => {
      const prepared: StorageWrite = { store, apply: (tx) => write.apply(tx as Db) };
      const check = write.check;
      return check === undefined ? prepared : { ...prepared, check: (tx) => check.call(write, tx as Db) };
    },
    writeWithOutbox: (outbox, write) => writeWithOutbox(db, outbox, write),
    cache: (tables, max, copy) => new RowCache(db, tables, max, copy),
    enqueue: (jobs) => {
      if (!db.inWrite()) throw new Error('enqueue belongs inside a write transaction');
      if (jobs.length > 0) enqueueIn(db, jobs, 0);
    },
  });
  return {
    engine: 'sqlite',
    extend: extensionRegistry('sqlite', contextFor),
    accounts: accountRepository(db),
    reports: reportRepository(db),
    analytics: analyticsRepository(db),
    serverBlocks: serverBlockRepository(db),
    statuses: statusRepository(db, store),
    interactions: interactionRepository(db),
    relationships: relationshipRepository(db),
    notifications: notificationRepository(db),
    notificationPolicies: notificationPolicyRepository(db),
    conversations: conversationRepository(db),
    lists: listRepository(db),
    tags: tagRepository(db),
    endorsements: endorsementRepository(db),
    accountNotes: accountNoteRepository(db),
    quotes: quoteRepository(db, store),
    filters: filterRepository(db),
    markers: markerRepository(db),
    oauth: oauthRepository(db),
    jobs: jobQueue(db),
    freshen: () => db.freshen(),
    stamp: () => db.stamp(),
    stampSeen: () => db.seen(),
    // Every write runs and commits within the one callback that started it (db.ts), and an
    // immediate runs only after the callback that queued it returned: after the COMMIT.
    afterCommit: (fn) => void setImmediate(fn),
    async close() {
      db.close();
    },
  };
}
