import { type MediaAttachment, StorageConflict } from 'rookery/plugin-kit';
import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import type { MediaRepository } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. */
export const MEDIA_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE media_attachments (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    status_id bigint,
    type text NOT NULL,
    url text,
    preview_url text,
    remote_url text,
    description text,
    blurhash text,
    original text,
    small text,
    focus text,
    extra text NOT NULL,
    processed boolean NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX media_attachments_status ON media_attachments (status_id);
  -- The cleanup of unattached uploads reads them by age.
  CREATE INDEX media_attachments_unattached ON media_attachments (created_at, id) WHERE status_id IS NULL;
  `,
];

const COLUMNS = 'id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small, focus, extra, processed, created_at';
const MEDIA = `SELECT ${COLUMNS} FROM media_attachments`;

export function postgresMediaRepository(context: PostgresExtensionContext): MediaRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(MEDIA_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): MediaAttachment => ({
    id: v.id(r['id']),
    accountId: v.id(r['account_id']),
    statusId: v.idOrNull(r['status_id']),
    type: v.text(r['type']) as MediaAttachment['type'],
    url: v.textOrNull(r['url']),
    previewUrl: v.textOrNull(r['preview_url']),
    remoteUrl: v.textOrNull(r['remote_url']),
    description: v.textOrNull(r['description']),
    blurhash: v.textOrNull(r['blurhash']),
    original: v.jsonOrNull(r['original']),
    small: v.jsonOrNull(r['small']),
    focus: v.jsonOrNull(r['focus']),
    extra: v.json(r['extra']),
    processed: v.bool(r['processed']),
    createdAt: v.int(r['created_at']),
  });
  const jsonOrNullText = (x: unknown) => (x === null ? null : v.jsonText(x));
  const asIs = <T>(x: T) => x;
  return {
    async create(m, outbox) {
      await ready;
      const insert = (tx: typeof sql) =>
        tx.run(`INSERT INTO media_attachments (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
          v.key(m.id), v.key(m.accountId), v.keyOrNull(m.statusId), m.type, m.url, m.previewUrl, m.remoteUrl, m.description, m.blurhash,
          jsonOrNullText(m.original), jsonOrNullText(m.small), jsonOrNullText(m.focus), v.jsonText(m.extra), m.processed, m.createdAt,
        ]);
      // Alone, one statement; with an outbox, one transaction with its jobs.
      if (outbox === undefined) await insert(sql);
      else await context.writeWithOutbox(outbox, async (tx) => void (await insert(tx)));
    },
    async get(mediaId) {
      await ready;
      const k = v.lookupKey(mediaId);
      const r = k === null ? undefined : await sql.row(`${MEDIA} WHERE id = $1`, [k]);
      return r ? fromRow(r) : null;
    },
    async getMany(ids) {
      await ready;
      const wanted = v.keys(ids);
      if (wanted.length === 0) return [];
      return v.inOrder(ids, (await sql.rows(`${MEDIA} WHERE id = ANY($1::bigint[])`, [wanted])).map(fromRow), (m) => m.id);
    },
    async update(mediaId, patch) {
      await ready;
      const k = v.lookupKey(mediaId);
      if (k === null) return null;
      const p = new v.Params();
      const set = v.setClause(p, patch, {
        description: ['description', asIs],
        focus: ['focus', jsonOrNullText],
        url: ['url', asIs],
        previewUrl: ['preview_url', asIs],
        blurhash: ['blurhash', asIs],
        original: ['original', jsonOrNullText],
        small: ['small', jsonOrNullText],
        extra: ['extra', v.jsonText],
        processed: ['processed', asIs],
        type: ['type', asIs],
      });
      const target = `${p.add(k)}::bigint`;
      const r = await sql.row(set === '' ? `${MEDIA} WHERE id = ${target}` : `UPDATE media_attachments SET ${set} WHERE id = ${target} RETURNING ${COLUMNS}`, p.values);
      return r ? fromRow(r) : null;
    },
    async deleteUnattached(mediaId) {
      await ready;
      const k = v.lookupKey(mediaId);
      return k !== null && (await sql.run('DELETE FROM media_attachments WHERE id = $1 AND status_id IS NULL', [k])) > 0;
    },
    async deleteOfAccount(accountId, limit) {
      await ready;
      const k = v.lookupKey(accountId);
      if (k === null) return [];
      return (await sql.rows(`DELETE FROM media_attachments WHERE id IN (SELECT id FROM media_attachments WHERE account_id = $1 LIMIT $2) RETURNING ${COLUMNS}`, [k, v.limitOf(limit)])).map(fromRow);
    },
    async unattachedBefore(before, limit) {
      await ready;
      return (await sql.rows(`${MEDIA} WHERE status_id IS NULL AND created_at < $1 ORDER BY created_at, id LIMIT $2`, [v.ceilMs(before), v.limitOf(limit)])).map(fromRow);
    },
    attach(accountId, statusId, mediaIds, released = []) {
      const unique = [...new Set(mediaIds)];
      return context.prepare({
        async check(tx) {
          await ready;
          if (unique.length === 0) return;
          const wanted = v.keys(unique);
          // Locked: a concurrent status taking one of them waits here, then sees it attached.
          const rows =
            wanted.length !== unique.length
              ? []
              : await tx.rows(
                  `SELECT id FROM media_attachments WHERE id = ANY($1::bigint[]) AND account_id = $2
                     AND (status_id IS NULL OR status_id = $3 OR status_id = ANY($4::bigint[]))
                   FOR UPDATE`,
                  [wanted, v.key(accountId), v.key(statusId), v.keys(released)],
                );
          if (rows.length !== unique.length) throw new StorageConflict('media');
        },
        async apply(tx) {
          if (unique.length === 0) return;
          await tx.run('UPDATE media_attachments SET status_id = $1 WHERE id = ANY($2::bigint[])', [v.key(statusId), v.keys(unique)]);
        },
      });
    },
  };
}
