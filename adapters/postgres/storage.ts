// Storage on PostgreSQL through node-postgres: the store for several processes or machines that
// share one database. Opening checks the options, brings the schema to its version (once, under
// a lock, however many processes open at once) and hands out repositories over one pool.
// Plugins bring their own repositories through `extend`, built on a PostgresExtensionContext.

import type { NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { extensionRegistry, type Storage, type StorageWrite } from '../../core/domain/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { reportRepository } from './reports.ts';
import { analyticsRepository } from './analytics.ts';
import { serverBlockRepository } from './server-blocks.ts';
import { openDb, type Sql, type Tx } from './db.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { enqueueIn, jobQueue, writeWithOutbox } from './jobs.ts';
import { listRepository } from './lists.ts';
import { endorsementRepository, tagRepository } from './tags.ts';
import { accountNoteRepository } from './account-notes.ts';
import { quoteRepository } from './quotes.ts';
import { notificationRepository } from './notifications.ts';
import { notificationPolicyRepository } from './notification-policies.ts';
import { conversationRepository } from './conversations.ts';
import { oauthRepository } from './oauth.ts';
import { resolvePostgresOptions, type PostgresStorageOptions } from './options.ts';
import { relationshipRepository } from './relationships.ts';
import { migrate, migrateExtension } from './schema.ts';
import { statusRepository } from './statuses.ts';
import * as values from './values.ts';

/** The conversions a plugin's PostgreSQL repository uses (ids are bigint columns passed and
 * read as decimal strings; see values.ts). */
export const postgresValues = {
  key: values.key,
  keyOrNull: values.keyOrNull,
  lookupKey: values.lookupKey,
  keys: values.keys,
  storable: values.storable,
  jsonText: values.jsonText,
  floorMs: values.floorMs,
  ceilMs: values.ceilMs,
  limitOf: values.limitOf,
  id: values.id,
  idOrNull: values.idOrNull,
  int: values.int,
  intOrNull: values.intOrNull,
  bool: values.bool,
  text: values.text,
  textOrNull: values.textOrNull,
  json: values.json,
  jsonOrNull: values.jsonOrNull,
  inOrder: values.inOrder,
  newestFirst: values.newestFirst,
  paged: values.paged,
  setClause: values.setClause,
  Params: values.Params,
};

/** What a plugin's PostgreSQL repository is built on. */
export interface PostgresExtensionContext {
  readonly engine: 'postgres';
  /** The identity this store's StorageWrites carry. */
  readonly store: object;
  /** Statements on the pool, each its own transaction. Unique violations come out as
   * StorageConflict (a primary key's as 'id', another constraint's under its name). */
  readonly sql: Sql;
  /** One transaction on one connection (READ COMMITTED), retried from the start on a deadlock. */
  transaction<R>(body: (tx: Tx) => Promise<R>): Promise<R>;
  readonly values: typeof postgresValues;
  /** Applies the plugin's own numbered migrations (version n is migrations[n - 1]; tracked per
   * extension name in extension_migrations; never edit a released one), once however many
   * processes open the database at once. The factory is synchronous: the repository awaits
   * this promise before its first statement. */
  migrate(migrations: readonly string[]): Promise<void>;
  /** A StorageWrite for statuses.create/update of this store: its steps run in the status's
   * transaction, on its connection (checks before the status write, applies after it), and may
   * be asynchronous. */
  prepare(write: { check?(tx: Tx): void | Promise<void>; apply(tx: Tx): void | Promise<void> }): StorageWrite;
  /** One transaction that also inserts the jobs its outbox returns (asked once, with the result). */
  writeWithOutbox<R>(outbox: Outbox<R> | undefined, write: (tx: Sql) => Promise<R>): Promise<R>;
  /** Inserts jobs inside the given transaction (what an apply records with the status write). */
  enqueue(tx: Tx, jobs: readonly NewJob[]): Promise<void>;
}

export type { PostgresStorageOptions };

/** Host, port and database of a connection string, without its credentials: what an error may show. */
function where(url: string): string {
  const u = new URL(url);
  return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname === '' || u.pathname === '/' ? '' : u.pathname}`;
}

export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const resolved = resolvePostgresOptions(options);
  const db = openDb(resolved);
  try {
    await db.row('SELECT 1').catch((error: unknown) => {
      throw new Error(`could not connect to PostgreSQL at ${where(resolved.url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const store = {};
  const migrations = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;
  const contextFor = (name: string): PostgresExtensionContext => ({
    engine: 'postgres',
    store,
    sql: db,
    values: postgresValues,
    transaction: (body) => db.transaction((tx) => body(tx)),
    migrate(list) {
      const done = migrateExtension(db, name, list);
      migrations.add(done);
      // Awaited by the repository's operations and by close; never left unhandled.
      done.catch(() => undefined);
      return done;
    },
    prepare(write) {
      const prepared: StorageWrite = { store, apply: (tx) => write.apply(tx as Tx) };
      const check = write.check;
      return check === undefined ? prepared : { ...prepared, check: (tx) => check.call(write, tx as Tx) };
    },
    writeWithOutbox: (outbox, write) => (outbox === undefined ? db.transaction((tx) => write(tx)) : writeWithOutbox(db, outbox, write)),
    async enqueue(tx, jobs) {
      if (tx.inTransaction !== true) throw new Error('enqueue belongs inside a transaction');
      await enqueueIn(tx, jobs, 0);
    },
  });
  return {
    engine: 'postgres',
    extend: extensionRegistry('postgres', contextFor),
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
    stamp: () => db.stamp(),
    close() {
      closing ??= (async () => {
        await Promise.allSettled(migrations);
        await db.close();
      })();
      return closing;
    },
  };
}
