// Storage on node:sqlite (the embedded default): one file, WAL, durable by default
// (synchronous=FULL: an acknowledged write survives power loss). Every write method is one
// BEGIN IMMEDIATE transaction, so it is atomic even when several processes share the file.

import type { Storage } from '../../core/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { cardRepository } from './cards.ts';
import { openDb } from './db.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { listRepository } from './lists.ts';
import { mediaRepository, pollRepository } from './media.ts';
import { notificationRepository } from './notifications.ts';
import { oauthRepository } from './oauth.ts';
import { relationshipRepository } from './relationships.ts';
import { scheduledStatusRepository } from './scheduled.ts';
import { jobQueue } from './jobs.ts';
import { migrate } from './schema.ts';
import { statusRepository } from './statuses.ts';

export interface SqliteStorageOptions {
  /** A file path, or ':memory:' for a private in-memory database. */
  path: string;
  /** 'full' (default): durable across power loss. 'normal': durable across crashes of the process only, faster. */
  synchronous?: 'full' | 'normal';
}

export function openSqliteStorage(options: SqliteStorageOptions): Storage {
  const db = openDb({ path: options.path, synchronous: options.synchronous });
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    accounts: accountRepository(db),
    statuses: statusRepository(db),
    interactions: interactionRepository(db),
    relationships: relationshipRepository(db),
    notifications: notificationRepository(db),
    lists: listRepository(db),
    filters: filterRepository(db),
    markers: markerRepository(db),
    oauth: oauthRepository(db),
    media: mediaRepository(db),
    polls: pollRepository(db),
    scheduled: scheduledStatusRepository(db),
    cards: cardRepository(db),
    jobs: jobQueue(db),
    async close() {
      db.close();
    },
  };
}
