import type { NotificationFilter, NotificationGroupSummary, NotificationRepository } from '../../core/domain/ports/storage.ts';
import type { Notification } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, bool, id, idOrNull, int, json, key, keyOrNull, limitOf, lookupKey, paged, text, textOrNull } from './values.ts';

const NOTIFICATION = 'SELECT id, account_id, type, from_account_id, status_id, report_id, created_at, group_key, filtered FROM notifications';

function notificationFromRow(r: Row): Notification {
  const n: Notification = {
    id: id(r['id']),
    accountId: id(r['account_id']),
    type: text(r['type']) as Notification['type'],
    fromAccountId: id(r['from_account_id']),
    statusId: idOrNull(r['status_id']),
    createdAt: int(r['created_at']),
    groupKey: textOrNull(r['group_key']),
    filtered: bool(r['filtered']),
  };
  if (r['report_id'] !== null && r['report_id'] !== undefined) n.reportId = id(r['report_id']);
  return n;
}

/** `account_id = … AND` the filter, written with `p`. */
function whereOf(p: Params, accountId: string, filter: NotificationFilter): string {
  let where = `account_id = ${p.id(accountId)}`;
  if (filter.types !== undefined) where += ` AND type = ANY(${p.add([...filter.types])}::text[])`;
  if (filter.excludeTypes !== undefined) where += ` AND NOT (type = ANY(${p.add([...filter.excludeTypes])}::text[]))`;
  if (filter.fromAccountId !== undefined) where += ` AND from_account_id = ${p.id(filter.fromAccountId)}`;
  if (filter.statusId !== undefined) where += ` AND status_id = ${p.id(filter.statusId)}`;
  if (filter.filtered !== undefined) where += ` AND filtered = ${p.add(filter.filtered)}`;
  if (filter.groupKey !== undefined) where += ` AND group_key = ${p.add(filter.groupKey)}`;
  return where;
}

export function notificationRepository(db: Db): NotificationRepository {
  return {
    async create(n, options = {}) {
      const params = [key(n.id), key(n.accountId), n.type, key(n.fromAccountId), keyOrNull(n.statusId), n.createdAt, options.key ?? null, n.groupKey, n.filtered, n.reportId === undefined ? null : key(n.reportId)];
      // With a key, the unique index on (account, key) decides: a second insert (even a
      // concurrent one, which waits for the first) does nothing.
      const statement =
        options.key === undefined
          ? 'INSERT INTO notifications (id, account_id, type, from_account_id, status_id, created_at, dedupe_key, group_key, filtered, report_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)'
          : `INSERT INTO notifications (id, account_id, type, from_account_id, status_id, created_at, dedupe_key, group_key, filtered, report_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
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
      if (lookupKey(accountId) === null) return [];
      const p = new Params();
      return paged(db, p, NOTIFICATION, whereOf(p, accountId, filter), 'id', page, notificationFromRow);
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
    async count(accountId, filter, limit) {
      if (lookupKey(accountId) === null) return 0;
      const p = new Params();
      const where = whereOf(p, accountId, filter);
      const r = await db.row(`SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE ${where} LIMIT ${p.add(limitOf(limit))}) x`, p.values);
      return int(r?.['n']);
    },
    async latestGrouped(accountId, type, statusId) {
      const a = lookupKey(accountId);
      if (a === null) return null;
      const r =
        statusId === null
          ? await db.row(`${NOTIFICATION} WHERE account_id = $1 AND type = $2 AND status_id IS NULL AND group_key IS NOT NULL ORDER BY id DESC LIMIT 1`, [a, type])
          : await db.row(`${NOTIFICATION} WHERE account_id = $1 AND type = $2 AND status_id = $3 AND group_key IS NOT NULL ORDER BY id DESC LIMIT 1`, [a, type, key(statusId)]);
      return r ? notificationFromRow(r) : null;
    },
    async summarizeGroups(accountId, groupKeys, range, sample) {
      const a = lookupKey(accountId);
      const keys = [...new Set(groupKeys)];
      if (a === null || keys.length === 0) return [];
      // One statement, so that every figure comes from the same snapshot.
      const rows = await db.rows(
        `SELECT g.group_key,
           (SELECT id FROM notifications n WHERE n.account_id = $1 AND n.group_key = g.group_key AND n.id <= $2 ORDER BY n.id DESC LIMIT 1) AS newest_id,
           (SELECT created_at FROM notifications n WHERE n.account_id = $1 AND n.group_key = g.group_key AND n.id <= $2 ORDER BY n.id DESC LIMIT 1) AS newest_at,
           (SELECT count(*) FROM notifications n WHERE n.account_id = $1 AND n.group_key = g.group_key AND n.id <= $2) AS n,
           (SELECT coalesce(json_agg(s.from_account_id::text ORDER BY s.newest DESC), '[]'::json)::text FROM (SELECT from_account_id, max(id) AS newest FROM notifications n
                   WHERE n.account_id = $1 AND n.group_key = g.group_key AND n.id <= $2 GROUP BY from_account_id ORDER BY newest DESC LIMIT $3) s) AS senders,
           (SELECT id FROM notifications n WHERE $4::bigint IS NOT NULL AND n.account_id = $1 AND n.group_key = g.group_key AND n.id >= $4::bigint ORDER BY n.id ASC LIMIT 1) AS oldest_id
         FROM unnest($5::text[]) AS g(group_key)`,
        [a, key(range.upTo), limitOf(sample), range.from === null ? null : key(range.from), keys],
      );
      const out: NotificationGroupSummary[] = [];
      for (const r of rows) {
        if (r['newest_id'] === null || r['newest_id'] === undefined) continue;
        out.push({
          groupKey: text(r['group_key']),
          mostRecentId: id(r['newest_id']),
          mostRecentAt: int(r['newest_at']),
          count: int(r['n']),
          sampleAccountIds: json<unknown[]>(r['senders']).map((x) => id(x)),
          oldestFromId: idOrNull(r['oldest_id']),
        });
      }
      return out;
    },
    async deleteWhere(accountId, filter) {
      if (lookupKey(accountId) === null) return 0;
      const p = new Params();
      return db.run(`DELETE FROM notifications WHERE ${whereOf(p, accountId, filter)}`, p.values);
    },
    async unfilterFrom(accountId, fromAccountId) {
      const a = lookupKey(accountId);
      const f = lookupKey(fromAccountId);
      if (a === null || f === null) return 0;
      return db.run('UPDATE notifications SET filtered = false WHERE account_id = $1 AND from_account_id = $2 AND filtered', [a, f]);
    },
    async deleteFrom(fromAccountId, limit) {
      const f = lookupKey(fromAccountId);
      if (f === null) return 0;
      return db.run('DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE from_account_id = $1 LIMIT $2)', [f, limit]);
    },
  };
}
