// The admin dashboard's sources, in the SQL both relational engines run: every count and
// dimension is one SELECT of (at, subject[, key]) rows, which each adapter's analytics.ts then
// groups by UTC day, over a range, or by key. Where the engines differ (casts, booleans, how a
// follow request is kept), the dialect says how.

import type { AnalyticsCount, AnalyticsDimension } from '../../core/domain/ports/storage.ts';

export interface AnalyticsDialect {
  /** An id column as text. */
  text(column: string): string;
  /** A boolean column's truth. */
  isTrue(column: string): string;
  /** `a` differs from `b`, a null differing from a value. */
  differs(a: string, b: string): string;
  /** The condition that the follow `alias` was accepted, after `joiner`; '' where follow
   * requests are kept elsewhere. */
  accepted(alias: string, joiner: string): string;
  /** 0 as the `at` column's type. */
  zero: string;
}

export interface Source {
  sql: string;
  /** The values of its `?` placeholders, in order. */
  params: string[];
}

/** (at, key, subject) rows; `timeless` when the range does not apply. */
export interface TimedSource extends Source {
  timeless?: true;
}

/** `column` is the count's domain, or with `subdomains` also one of its subdomains. */
function domainIs(column: string, count: { domain: string; subdomains?: boolean }): Source {
  if (count.subdomains !== true) return { sql: `${column} = ?`, params: [count.domain] };
  const pattern = `%.${count.domain.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
  return { sql: `(${column} = ? OR ${column} LIKE ? ESCAPE '\\')`, params: [count.domain, pattern] };
}

const LIVE_STATUS_OF_ACCOUNT = 'statuses s JOIN accounts a ON a.id = s.account_id';

function countSource(count: AnalyticsCount, dialect: AnalyticsDialect): Source {
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
        sql: `SELECT f.created_at AS at, 'f' || ${dialect.text('f.id')} AS subject FROM favourites f JOIN accounts a ON a.id = f.account_id WHERE a.domain IS NULL
          UNION ALL
          SELECT s.created_at AS at, 's' || ${dialect.text('s.id')} AS subject FROM statuses s
          WHERE ${dialect.isTrue('s.local')} AND s.deleted_at IS NULL
            AND (s.reblog_of_id IS NOT NULL OR (s.in_reply_to_id IS NOT NULL AND ${dialect.differs('s.in_reply_to_account_id', 's.account_id')}))`,
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
      return { sql: `SELECT f.created_at AS at, f.id AS subject FROM follows f JOIN accounts a ON a.id = ${side} WHERE ${where.sql}${dialect.accepted('f', ' AND ')}`, params: where.params };
    }
  }
}

function dimensionSource(dimension: AnalyticsDimension, dialect: AnalyticsDialect): TimedSource {
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
        sql: `SELECT ${dialect.zero} AS at, a.username AS key, f.id AS subject FROM accounts a LEFT JOIN follows f ON f.target_account_id = a.id${dialect.accepted('f', ' AND ')} WHERE a.domain = ?`,
        params: [dimension.domain],
        timeless: true,
      };
  }
}

/** The sources of counts and dimensions in one engine's dialect. */
export function analyticsSources(dialect: AnalyticsDialect): { count(count: AnalyticsCount): Source; dimension(dimension: AnalyticsDimension): TimedSource } {
  return { count: (count) => countSource(count, dialect), dimension: (dimension) => dimensionSource(dimension, dialect) };
}
