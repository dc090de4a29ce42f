import { type MediaAttachment, StorageConflict } from 'rookery/plugin-kit';
import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { MediaRepository } from './port.ts';

/** The plugin's own migrations. 1 is the table core migration 1 created before media became a
 * plugin (same shape, so an existing file keeps its rows). */
export const MEDIA_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS media_attachments (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    status_id INTEGER,
    type TEXT NOT NULL,
    url TEXT,
    preview_url TEXT,
    remote_url TEXT,
    description TEXT,
    blurhash TEXT,
    original TEXT,
    small TEXT,
    focus TEXT,
    extra TEXT NOT NULL,
    processed INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS media_attachments_status ON media_attachments (status_id);
  `,
  // 2: the cleanup of unattached uploads reads them by age.
  `
  CREATE INDEX media_attachments_unattached ON media_attachments (created_at) WHERE status_id IS NULL;
  `,
];

const MEDIA = `SELECT id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small, focus, extra,
  processed, created_at FROM media_attachments`;

export function sqliteMediaRepository(context: SqliteExtensionContext): MediaRepository {
  const { db, values: v } = context;
  context.migrate(MEDIA_MIGRATIONS);
  const fromRow = (r: SqliteRow): MediaAttachment => ({
    id: v.id(r.id),
    accountId: v.id(r.account_id),
    statusId: v.idOrNull(r.status_id),
    type: v.text(r.type) as MediaAttachment['type'],
    url: v.textOrNull(r.url),
    previewUrl: v.textOrNull(r.preview_url),
    remoteUrl: v.textOrNull(r.remote_url),
    description: v.textOrNull(r.description),
    blurhash: v.textOrNull(r.blurhash),
    original: v.jsonOrNull(r.original),
    small: v.jsonOrNull(r.small),
    focus: v.jsonOrNull(r.focus),
    extra: v.json(r.extra),
    processed: v.bool(r.processed),
    createdAt: v.int(r.created_at),
  });
  const jsonOrNullText = (x: unknown) => (x === null ? null : v.jsonText(x));
  const asIs = (x: string | number | null) => x;
  const getMedia = (k: bigint): MediaAttachment | null => {
    const r = db.get(`${MEDIA} WHERE id = ?`, k);
    return r ? fromRow(r) : null;
  };
  return {
    async create(m, outbox) {
      await context.writeWithOutbox(outbox, () => {
        db.run(
          `INSERT INTO media_attachments (id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small,
             focus, extra, processed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          v.key(m.id), v.key(m.accountId), v.keyOrNull(m.statusId), m.type, m.url, m.previewUrl, m.remoteUrl, m.description, m.blurhash,
          jsonOrNullText(m.original), jsonOrNullText(m.small), jsonOrNullText(m.focus), v.jsonText(m.extra), v.flag(m.processed), m.createdAt,
        );
      });
    },
    async get(mediaId) {
      const k = v.lookupKey(mediaId);
      return k === null ? null : getMedia(k);
    },
    async getMany(ids) {
      const among = v.amongIds('id', ids);
      const rows = db.all(`${MEDIA} WHERE ${among.sql}`, among.param).map(fromRow);
      return v.inOrder(ids, rows, (m) => m.id);
    },
    async update(mediaId, patch) {
      const k = v.lookupKey(mediaId);
      if (k === null) return null;
      const set = v.setClause(patch, {
        description: ['description', asIs],
        focus: ['focus', jsonOrNullText],
        url: ['url', asIs],
        previewUrl: ['preview_url', asIs],
        blurhash: ['blurhash', asIs],
        original: ['original', jsonOrNullText],
        small: ['small', jsonOrNullText],
        extra: ['extra', v.jsonText],
        processed: ['processed', (x: boolean | null) => (x === null ? null : v.flag(x))],
        type: ['type', asIs],
      });
      return db.write(() => {
        if (set.sql !== '') db.run(`UPDATE media_attachments SET ${set.sql} WHERE id = ?`, ...set.params, k);
        return getMedia(k);
      });
    },
    async deleteUnattached(mediaId) {
      const k = v.lookupKey(mediaId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM media_attachments WHERE id = ? AND status_id IS NULL', k) > 0);
    },
    async deleteOfAccount(accountId, limit) {
      const k = v.lookupKey(accountId);
      if (k === null) return [];
      return db.write(() => {
        const rows = db.all(`${MEDIA} WHERE account_id = ? LIMIT +?`, k, Math.max(0, Math.trunc(limit))).map(fromRow);
        for (const row of rows) db.run('DELETE FROM media_attachments WHERE id = ?', v.key(row.id));
        return rows;
      });
    },
    async unattachedBefore(before, limit) {
      return db.all(`${MEDIA} WHERE status_id IS NULL AND created_at < ? ORDER BY created_at, id LIMIT +?`, before, Math.max(0, Math.trunc(limit))).map(fromRow);
    },
    attach(accountId, statusId, mediaIds, released = []) {
      const unique = [...new Set(mediaIds)];
      return context.prepare({
        check(tx) {
          if (unique.length === 0) return;
          const r = tx.get(
            `SELECT count(*) AS n FROM media_attachments WHERE id IN (SELECT value FROM json_each(?)) AND account_id = ?
               AND (status_id IS NULL OR status_id = ? OR status_id IN (SELECT value FROM json_each(?)))`,
            v.keyList(unique), v.key(accountId), v.key(statusId), v.keyList(released),
          );
          if (v.int(r?.n) !== unique.length) throw new StorageConflict('media');
        },
        apply(tx) {
          if (unique.length === 0) return;
          tx.run('UPDATE media_attachments SET status_id = ? WHERE id IN (SELECT value FROM json_each(?))', v.key(statusId), v.keyList(unique));
        },
      });
    },
  };
}
