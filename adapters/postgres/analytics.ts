// The admin dashboard's figures (AnalyticsRepository): every count and dimension is one SELECT of
// (at, subject[, key]) rows, which daily, total and top then group by UTC day, over the range, or
// by key, counting distinct subjects.

import type { AnalyticsCount, AnalyticsDimension, AnalyticsRepository } from '../../core/domain/ports/storage.ts';
import type { Db } from './db.ts';
import { int, intOrNull, lookupKey, textOrNull } from './values.ts';

type Param = unknown;

const DAY = 86_400_000;

interface Source {
  sql: string;
  params: Param[];
}

/** `column` is the count's domain, or with `subdomains` also one of its subdomains. */
function domainIs(column: string, count: { domain: string; subdomains?: boolean }): Source {
  if (count.subdomains !== true) return { sql: `${column} = ?`, params: [count.domain] };
  const pattern = `%.${count.domain.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
  return { sql: `(${column} = ? OR ${column} LIKE ? ESCAPE '\\')`, params: [count.domain, pattern] };
}

const LIVE_STATUS_OF_ACCOUNT = 'statuses s JOIN accounts a ON a.id = s.account_id';

function countSource(count: AnalyticsCount): Source {
  switch (count.what) {
    case 'activeUsers':
      return { sql: 'SELECT day AS at, account_id AS subject FROM account_activity', params: [] };
    case 'newUsers':
      return { sql: 'SELECT created_at AS at, account_id AS subject FROM users', params: [] };
    case 'openedReports':
      return { sql: 'SELECT created_at AS at, id AS subject FROM reports', params: [] };
    case 'resolvedReports':
      return { sql: 'SELECT action_taken_at AS at, id AS subject FROM reports WHERE action_taken_at IS NOT NULL', params: [] };
    case 'interactions':
      return {
        sql: `SELECT f.created_at AS at, 'f' || f.id::text AS subject FROM favourites f JOIN accounts a ON a.id = f.account_id WHERE a.domain IS NULL
          UNION ALL
          SELECT s.created_at AS at, 's' || s.id::text AS subject FROM statuses s
          WHERE s.local AND s.deleted_at IS NULL
            AND (s.reblog_of_id IS NOT NULL OR (s.in_reply_to_id IS NOT NULL AND s.in_reply_to_account_id IS DISTINCT FROM s.account_id))`,
        params: [],
      };
    case 'tagUses':
    case 'tagAccounts':
    case 'tagServers': {
      const subject = count.what === 'tagUses' ? 's.id' : count.what === 'tagAccounts' ? 's.account_id' : 'a.domain';
      return {
        sql: `SELECT s.created_at AS at, ${subject} AS subject FROM status_tags t JOIN statuses s ON s.id = t.status_id JOIN accounts a ON a.id = s.account_id
          WHERE t.tag = ? AND s.deleted_at IS NULL${count.what === 'tagServers' ? ' AND a.domain IS NOT NULL' : ''}`,
        params: [count.tag],
      };
    }
    case 'domainAccounts': {
      const where = domainIs('domain', count);
      return { sql: `SELECT created_at AS at, id AS subject FROM accounts WHERE ${where.sql}`, params: where.params };
    }
    case 'domainStatuses': {
      const where = domainIs('a.domain', count);
      return { sql: `SELECT s.created_at AS at, s.id AS subject FROM ${LIVE_STATUS_OF_ACCOUNT} WHERE ${where.sql} AND s.deleted_at IS NULL`, params: where.params };
    }
    case 'domainReports': {
      const where = domainIs('a.domain', count);
      return { sql: `SELECT r.created_at AS at, r.id AS subject FROM reports r JOIN accounts a ON a.id = r.target_account_id WHERE ${where.sql}`, params: where.params };
    }
    case 'domainFollows':
    case 'domainFollowers': {
      const side = count.what === 'domainFollows' ? 'f.target_account_id' : 'f.account_id';
      const where = domainIs('a.domain', count);
      return { sql: `SELECT f.created_at AS at, f.id AS subject FROM follows f JOIN accounts a ON a.id = ${side} WHERE ${where.sql} AND NOT f.pending`, params: where.params };
    }
  }
}

/** (at, key, subject) rows; `timeless` when the range does not apply. */
function dimensionSource(dimension: AnalyticsDimension): Source & { timeless?: true } {
  switch (dimension.what) {
    case 'languages':
      return { sql: 'SELECT aa.day AS at, u.locale AS key, u.account_id AS subject FROM account_activity aa JOIN users u ON u.account_id = aa.account_id', params: [] };
    case 'sources':
      return { sql: 'SELECT u.created_at AS at, ap.name AS key, u.account_id AS subject FROM users u LEFT JOIN applications ap ON ap.id = u.created_by_application_id', params: [] };
    case 'servers':
      return { sql: `SELECT s.created_at AS at, a.domain AS key, s.id AS subject FROM ${LIVE_STATUS_OF_ACCOUNT} WHERE s.deleted_at IS NULL`, params: [] };
    case 'tagServers':
    case 'tagLanguages':
      return {
        sql: `SELECT s.created_at AS at, ${dimension.what === 'tagServers' ? 'a.domain' : 's.language'} AS key, s.id AS subject
          FROM status_tags t JOIN statuses s ON s.id = t.status_id JOIN accounts a ON a.id = s.account_id WHERE t.tag = ? AND s.deleted_at IS NULL`,
        params: [dimension.tag],
      };
    case 'domainLanguages':
      return { sql: `SELECT s.created_at AS at, s.language AS key, s.id AS subject FROM ${LIVE_STATUS_OF_ACCOUNT} WHERE a.domain = ? AND s.deleted_at IS NULL`, params: [dimension.domain] };
    case 'domainAccounts':
      return {
        sql: 'SELECT 0::bigint AS at, a.username AS key, f.id AS subject FROM accounts a LEFT JOIN follows f ON f.target_account_id = a.id AND NOT f.pending WHERE a.domain = ?',
        params: [dimension.domain],
        timeless: true,
      };
  }
}

const whole = (n: number): number => (Number.isFinite(n) ? Math.trunc(n) : 0);

/** The statement with its `?` numbered ($1, $2 …) in order. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
}

export function analyticsRepository(db: Db): AnalyticsRepository {
  const rows = (sql: string, params: unknown[]) => db.rows(numbered(sql), params);
  return {
    async recordActivity(accountId, day) {
      const k = lookupKey(accountId);
      if (k === null) return;
      await db.run('INSERT INTO account_activity (day, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [whole(day), k]);
    },
    async daily(count, from, days) {
      const n = Math.max(0, Math.min(whole(days), 10_000));
      const out = new Array<number>(n).fill(0);
      if (n === 0) return out;
      const start = whole(from);
      const source = countSource(count);
      const found = await rows(
        `SELECT (at - ?::bigint) / ${DAY} AS d, count(DISTINCT subject) AS n FROM (${source.sql}) AS src WHERE at >= ? AND at < ? GROUP BY d`,
        [start, ...source.params, start, start + n * DAY],
      );
      for (const r of found) {
        const d = int(r['d']);
        if (d >= 0 && d < n) out[d] = int(r['n']);
      }
      return out;
    },
    async total(count, range) {
      const source = countSource(count);
      const where = range === null ? '' : ' WHERE at >= ? AND at < ?';
      const bounds = range === null ? [] : [whole(range.from), whole(range.to)];
      const [r] = await rows(`SELECT count(DISTINCT subject) AS n FROM (${source.sql}) AS src${where}`, [...source.params, ...bounds]);
      return r === undefined ? 0 : int(r['n']);
    },
    async top(dimension, range, limit) {
      const cap = Math.max(0, whole(limit));
      if (cap === 0) return [];
      const source = dimensionSource(dimension);
      const where = source.timeless === true ? '' : ' WHERE at >= ? AND at < ?';
      const bounds = source.timeless === true ? [] : [whole(range.from), whole(range.to)];
      const found = await rows(
        `SELECT key, count(DISTINCT subject) AS n FROM (${source.sql}) AS src${where} GROUP BY key ORDER BY n DESC, key COLLATE "C" ASC NULLS LAST LIMIT ?`,
        [...source.params, ...bounds, cap],
      );
      return found.map((r) => ({ key: textOrNull(r['key']), count: int(r['n']) }));
    },
    async retention(range) {
      const found = await rows(
        `SELECT (u.created_at / ${DAY}) * ${DAY} AS signed, (SELECT max(day) FROM account_activity aa WHERE aa.account_id = u.account_id) AS last, count(*) AS n
         FROM users u WHERE u.created_at >= ? AND u.created_at < ? GROUP BY signed, last`,
        [whole(range.from), whole(range.to)],
      );
      return found.map((r) => ({ signedUpDay: int(r['signed']), lastActiveDay: intOrNull(r['last']), users: int(r['n']) }));
    },
  };
}
