import type { NotificationRepository } from '../../core/domain/ports/storage.ts';
import type { Notification } from '../../core/domain/model.ts';
import { id, idOrNull, int, jsonText, key, lookupKey, paged, text, type Db, type Param, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';

const NOTIFICATION = 'SELECT id, account_id, type, from_account_id, status_id, created_at FROM notifications';

function notificationFromRow(r: Row): Notification {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    type: text(r.type) as Notification['type'],
    fromAccountId: id(r.from_account_id),
    statusId: idOrNull(r.status_id),
    createdAt: int(r.created_at),
  };
}

export function notificationRepository(db: Db): NotificationRepository {
  return {
    async create(n, options = {}) {
      const dedupe = options.key ?? null;
      return writeWithOutbox(db, options.outbox, () => {
        if (dedupe !== null && db.get('SELECT 1 AS x FROM notifications WHERE account_id = ? AND dedupe_key = ?', key(n.accountId), dedupe)) return false;
        db.run(
          'INSERT INTO notifications (id, account_id, type, from_account_id, status_id, created_at, dedupe_key) VALUES (?, ?, ?, ?, ?, ?, ?)',
          key(n.id), key(n.accountId), n.type, key(n.fromAccountId), n.statusId === null ? null : key(n.statusId), n.createdAt, dedupe,
        );
        return true;
      });
    },
    async get(accountId, notificationId) {
      const k = lookupKey(notificationId);
      const r = k === null ? undefined : db.get(`${NOTIFICATION} WHERE id = ? AND account_id = ?`, k, key(accountId));
      return r ? notificationFromRow(r) : null;
    },
    async list(accountId, filter, page) {
      let where = 'account_id = ?';
      const params: Param[] = [key(accountId)];
      if (filter.types !== undefined) {
        where += ' AND type IN (SELECT value FROM json_each(?))';
        params.push(jsonText(filter.types));
      }
      if (filter.excludeTypes !== undefined) {
        where += ' AND type NOT IN (SELECT value FROM json_each(?))';
        params.push(jsonText(filter.excludeTypes));
      }
      if (filter.fromAccountId !== undefined) {
        where += ' AND from_account_id = ?';
        params.push(key(filter.fromAccountId));
      }
      return paged(db, NOTIFICATION, where, params, 'id', page, notificationFromRow);
    },
    async dismiss(accountId, notificationId) {
      const k = lookupKey(notificationId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM notifications WHERE id = ? AND account_id = ?', k, key(accountId)) > 0);
    },
    async clear(accountId) {
      await db.write(() => db.run('DELETE FROM notifications WHERE account_id = ?', key(accountId)));
    },
    async countSince(accountId, sinceId, limit) {
      const cap = Math.max(0, Math.trunc(limit));
      const r =
        sinceId === null
          ? db.get('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = ? LIMIT ?)', key(accountId), cap)
          : db.get('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = ? AND id > ? LIMIT ?)', key(accountId), key(sinceId), cap);
      return int(r?.n);
    },
  };
}
