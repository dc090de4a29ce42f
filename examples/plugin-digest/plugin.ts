// An embedder's own Rookery plugin, written against the package's exports only
// (`rookery/plugin-kit`, and the storage context of `rookery/sqlite`): a digest of the
// instance's recent public posts.
// - It listens to events: every new public, local, top-level status is recorded in the
//   plugin's own storage (`status.created`, run as a job after the write committed, at least
//   once: recording twice changes nothing), and a deleted one leaves it (`status.deleted`).
// - It owns that storage: a repository per engine it supports (SQLite, with its own table),
//   handed out by `host.storage(extension)`.
// - It adds an endpoint, GET /api/v1/digest, that answers Mastodon Statuses (rendered by the
//   core's presenter, so media, polls and cards of other plugins appear too), showing each
//   reader only what they may see.
// - It tells the host app through a callback of its own options.

import { json, RookeryError, type Id, type RookeryPlugin, type Status, type StorageExtension } from 'rookery/plugin-kit';
import type { SqliteExtensionContext } from 'rookery/sqlite';

export interface DigestEntry {
  statusId: Id;
  accountId: Id;
  createdAt: number;
}

export interface DigestRepository {
  /** Records an entry and keeps the newest `keep`; false when it was recorded already. */
  add(entry: DigestEntry, keep: number): Promise<boolean>;
  remove(statusId: Id): Promise<void>;
  /** Newest first. */
  latest(limit: number): Promise<DigestEntry[]>;
}

function sqliteDigest(context: SqliteExtensionContext): DigestRepository {
  const { db, values } = context;
  // The plugin's own numbered migrations: never edit one that was released, add the next.
  context.migrate([
    `CREATE TABLE IF NOT EXISTS digest_entries (
       status_id INTEGER PRIMARY KEY,
       account_id INTEGER NOT NULL,
       created_at INTEGER NOT NULL
     ) STRICT;`,
  ]);
  return {
    add: (entry, keep) =>
      db.write(() => {
        const added = db.run('INSERT INTO digest_entries (status_id, account_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', values.key(entry.statusId), values.key(entry.accountId), entry.createdAt);
        db.run('DELETE FROM digest_entries WHERE status_id NOT IN (SELECT status_id FROM digest_entries ORDER BY status_id DESC LIMIT +?)', keep);
        return added > 0;
      }),
    remove: async (statusId) => {
      await db.write(() => db.run('DELETE FROM digest_entries WHERE status_id = ?', values.key(statusId)));
    },
    latest: async (limit) =>
      db.all('SELECT status_id, account_id, created_at FROM digest_entries ORDER BY status_id DESC LIMIT +?', limit).map((row) => ({
        statusId: values.id(row['status_id']),
        accountId: values.id(row['account_id']),
        createdAt: values.int(row['created_at']),
      })),
  };
}

export const digestStorage: StorageExtension<DigestRepository> = {
  name: 'digest',
  engines: { sqlite: sqliteDigest },
};

export interface DigestOptions {
  /** How many entries are kept (default 100). */
  keep?: number;
  /** Called once per status recorded (in the process that ran the job). */
  onRecorded?: (status: Status) => void;
}

export function digestPlugin(options: DigestOptions = {}): RookeryPlugin {
  const keep = options.keep ?? 100;
  return {
    name: 'digest',
    register(host) {
      const digest = host.storage(digestStorage);

      host.on('status.created', async ({ status }) => {
        if (!status.local || status.visibility !== 'public' || status.reblogOfId !== null || status.inReplyToId !== null) return;
        const added = await digest.add({ statusId: status.id, accountId: status.accountId, createdAt: status.createdAt }, keep);
        if (added) options.onRecorded?.(status);
      });
      host.on('status.deleted', async ({ status }) => digest.remove(status.id));

      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/digest',
        auth: 'optional',
        scopes: ['read', 'read:statuses'],
        async handle(request) {
          const raw = request.query['limit'];
          const limit = raw === undefined ? 20 : Number(raw);
          if (!Number.isInteger(limit) || limit < 1 || limit > 40) throw new RookeryError(422, 'limit must be a whole number from 1 to 40');
          const entries = await digest.latest(limit);
          const viewer = request.caller.account;
          const statuses = await host.statuses.getVisible(viewer, entries.map((e) => e.statusId));
          return json(await host.present.statuses(statuses, viewer));
        },
      });
    },
  };
}
