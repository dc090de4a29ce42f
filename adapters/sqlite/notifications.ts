import type { NotificationFilter, NotificationGroupSummary, NotificationRepository } from '../../core/domain/ports/storage.ts';
import type { Notification } from '../../core/domain/model.ts';
import { bool, flag, id, idOrNull, int, jsonText, key, lookupKey, paged, text, textOrNull, type Db, type Param, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';

const NOTIFICATION = 'SELECT id, account_id, type, from_account_id, status_id, report_id, created_at, group_key, filtered FROM notifications';

function notificationFromRow(r: Row): Notification {
  const n: Notification = {
    id: id(r.id),
    accountId: id(r.account_id),
    type: text(r.type) as Notification['type'],
    fromAccountId: id(r.from_account_id),
    statusId: idOrNull(r.status_id),
    createdAt: int(r.created_at),
    groupKey: textOrNull(r.group_key),
    filtered: bool(r.filtered),
  };
  if (r.report_id !== null && r.report_id !== undefined) n.reportId = id(r.report_id);
  return n;
}

/** The filter as a condition after `account_id = ?` (" AND …"), with its parameters. */
function filterSql(filter: NotificationFilter): { where: string; params: Param[] } {
  let where = '';
  const params: Param[] = [];
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
  if (filter.statusId !== undefined) {
    where += ' AND status_id = ?';
    params.push(key(filter.statusId));
  }
  if (filter.filtered !== undefined) {
    where += ' AND filtered = ?';
    params.push(flag(filter.filtered));
  }
  if (filter.groupKey !== undefined) {
    where += ' AND group_key = ?';
    params.push(filter.groupKey);
  }
  return { where, params };
}

export function notificationRepository(db: Db): NotificationRepository {
  return {
    async create(n, options = {}) {
      const dedupe = options.key ?? null;
      return writeWithOutbox(db, options.outbox, () => {
        if (dedupe !== null && db.get('SELECT 1 AS x FROM notifications WHERE account_id = ? AND dedupe_key = ?', key(n.accountId), dedupe)) return false;
        db.run(
          'INSERT INTO notifications (id, account_id, type, from_account_id, status_id, report_id, created_at, dedupe_key, group_key, filtered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          key(n.id), key(n.accountId), n.type, key(n.fromAccountId), n.statusId === null ? null : key(n.statusId), n.reportId === undefined ? null : key(n.reportId),
          n.createdAt, dedupe, n.groupKey, flag(n.filtered),
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
      const f = filterSql(filter);
      return paged(db, NOTIFICATION, `account_id = ?${f.where}`, [key(accountId), ...f.params], 'id', page, notificationFromRow);
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
          ? db.get('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = ? LIMIT +?)', key(accountId), cap)
          : db.get('SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = ? AND id > ? LIMIT +?)', key(accountId), key(sinceId), cap);
      return int(r?.n);
    },
    async count(accountId, filter, limit) {
      const f = filterSql(filter);
      const cap = Math.max(0, Math.trunc(limit));
      const r = db.get(`SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE account_id = ?${f.where} LIMIT +?)`, key(accountId), ...f.params, cap);
      return int(r?.n);
    },
    async latestGrouped(accountId, type, statusId) {
      const r =
        statusId === null
          ? db.get(`${NOTIFICATION} WHERE account_id = ? AND type = ? AND status_id IS NULL AND group_key IS NOT NULL ORDER BY id DESC LIMIT 1`, key(accountId), type)
          : db.get(`${NOTIFICATION} WHERE account_id = ? AND type = ? AND status_id = ? AND group_key IS NOT NULL ORDER BY id DESC LIMIT 1`, key(accountId), type, key(statusId));
      return r ? notificationFromRow(r) : null;
    },
    async summarizeGroups(accountId, groupKeys, range, sample) {
      const account = key(accountId);
      const upTo = key(range.upTo);
      const cap = Math.max(0, Math.trunc(sample));
      return db.read(() => {
        const out: NotificationGroupSummary[] = [];
        for (const groupKey of new Set(groupKeys)) {
          const newest = db.get('SELECT id, created_at FROM notifications WHERE account_id = ? AND group_key = ? AND id <= ? ORDER BY id DESC LIMIT 1', account, groupKey, upTo);
          if (newest === undefined) continue;
          const counted = db.get('SELECT count(*) AS n FROM notifications WHERE account_id = ? AND group_key = ? AND id <= ?', account, groupKey, upTo);
          // The newest senders, each once: a sender who favourited twice counts twice but shows once.
          const senders = db.all(
            'SELECT from_account_id, max(id) AS newest FROM notifications WHERE account_id = ? AND group_key = ? AND id <= ? GROUP BY from_account_id ORDER BY newest DESC LIMIT +?',
            account, groupKey, upTo, cap,
          );
          const oldest =
            range.from === null
              ? undefined
              : db.get('SELECT id FROM notifications WHERE account_id = ? AND group_key = ? AND id >= ? ORDER BY id ASC LIMIT 1', account, groupKey, key(range.from));
          out.push({
            groupKey,
            mostRecentId: id(newest.id),
            mostRecentAt: int(newest.created_at),
            count: int(counted?.n),
            sampleAccountIds: senders.map((r) => id(r.from_account_id)),
            oldestFromId: oldest === undefined ? null : id(oldest.id),
          });
        }
        return out;
      });
    },
    async deleteWhere(accountId, filter) {
      const f = filterSql(filter);
      return db.write(() => db.run(`DELETE FROM notifications WHERE account_id = ?${f.where}`, key(accountId), ...f.params));
    },
    async unfilterFrom(accountId, fromAccountId) {
      return db.write(() => db.run('UPDATE notifications SET filtered = 0 WHERE account_id = ? AND from_account_id = ? AND filtered = 1', key(accountId), key(fromAccountId)));
    },
    async deleteFrom(fromAccountId, limit) {
      const k = lookupKey(fromAccountId);
      if (k === null) return 0;
      return db.write(() => db.run('DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE from_account_id = ? LIMIT +?)', k, limit));
    },
  };
}
