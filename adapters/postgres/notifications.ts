import type { NotificationRepository } from '../../core/domain/ports/storage.ts';
import type { Notification } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, id, idOrNull, int, key, keyOrNull, limitOf, lookupKey, paged, text } from './values.ts';

const NOTIFICATION = 'SELECT id, account_id, type, from_account_id, status_id, created_at FROM notifications';

function notificationFromRow(r: Row): Notification {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    type: text(r['type']) as Notification['type'],
    fromAccountId: id(r['from_account_id']),
    statusId: idOrNull(r['status_id']),
    createdAt: int(r['created_at']),
  };
}

export function notificationRepository(db: Db): NotificationRepository {
  return {
    async create(n, options = {}) {
      const params = [key(n.id), key(n.accountId), n.type, key(n.fromAccountId), keyOrNull(n.statusId), n.createdAt, options.key ?? null];
      // With a key, the unique index on (account, key) decides: a second insert (even a
      // concurrent one, which waits for the first) does nothing.
      const statement =
        options.key === undefined
          ? 'INSERT INTO notifications (id, account_id, type, from_account_id, status_id, created_at, dedupe_key) VALUES ($1, $2, $3, $4, $5, $6, $7)'
          : `INSERT INTO notifications (id, account_id, type, from_account_id, status_id, created_at, dedupe_key) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (account_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING`;
      return writeWithOutbox(db, options.outbox, async (sql) => (await sql.run(statement, params)) > 0);
    },
    async get(accountId, notificationId) {
      const k = lookupKey(notificationId);
      const a = lookupKey(accountId);
      if (k === null || a === null) return null;
      const r = await db.row(`${NOTIFICATION} WHERE id = $1 AND account_id = $2`, [k, a]);
      return r ? notificationFromRow(r) : null;
    },
    async list(accountId, filter, page) {
      const p = new Params();
      let where = `account_id = ${p.id(accountId)}`;
      if (filter.types !== undefined) where += ` AND type = ANY(${p.add([...filter.types])}::text[])`;
      if (filter.excludeTypes !== undefined) where += ` AND NOT (type = ANY(${p.add([...filter.excludeTypes])}::text[]))`;
      if (filter.fromAccountId !== undefined) where += ` AND from_account_id = ${p.id(filter.fromAccountId)}`;
      return paged(db, p, NOTIFICATION, where, 'id', page, notificationFromRow);
    },
    async dismiss(accountId, notificationId) {
      const k = lookupKey(notificationId);
      const a = lookupKey(accountId);
      if (k === null || a === null) return false;
      return (await db.run('DELETE FROM notifications WHERE id = $1 AND account_id = $2', [k, a])) > 0;
    },
    async clear(accountId) {
      const a = lookupKey(accountId);
      if (a !== null) await db.run('DELETE FROM notifications WHERE account_id = $1', [a]);
    },
    async countSince(accountId, sinceId, limit) {
      const a = lookupKey(accountId);
      if (a === null) return 0;
      const cap = limitOf(limit);
      const r =
        sinceId === null
          ? await db.row('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = $1 LIMIT $2) x', [a, cap])
          : await db.row('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = $1 AND id > $2 LIMIT $3) x', [a, key(sinceId), cap]);
      return int(r?.['n']);
    },
  };
}
