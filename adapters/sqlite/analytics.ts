// The admin dashboard's figures (AnalyticsRepository): the rows of the shared sources
// (../sql/analytics-sources.ts) grouped by UTC day, over the range, or by key, counting distinct
// subjects.

import type { AnalyticsRepository } from '../../core/domain/ports/storage.ts';
import { analyticsSources } from '../sql/analytics-sources.ts';
import { int, intOrNull, lookupKey, textOrNull, type Db } from './db.ts';

const DAY = 86_400_000;

// SQLite: ids are integers joined to text as they are, booleans 0 or 1, follow requests in a table of
// their own.
const sources = analyticsSources({
  text: (column) => column,
  isTrue: (column) => `${column} = 1`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  accepted: () => '',
  zero: '0',
});

/** A whole number, bound as an INTEGER (a JS number binds as a REAL). */
const whole = (n: number): bigint => BigInt(Number.isFinite(n) ? Math.trunc(n) : 0);

export function analyticsRepository(db: Db): AnalyticsRepository {
  return {
    async recordActivity(accountId, day) {
      const k = lookupKey(accountId);
      if (k === null) return;
      await db.write(() => db.run('INSERT INTO account_activity (day, account_id) VALUES (?, ?) ON CONFLICT DO NOTHING', whole(day), k));
    },
    async daily(count, from, days) {
      const n = Math.max(0, Math.min(Number(whole(days)), 10_000));
      const out = new Array<number>(n).fill(0);
      if (n === 0) return out;
      const start = whole(from);
      const source = sources.count(count);
      const rows = db.all(
        `SELECT (at - ?) / ${DAY} AS d, count(DISTINCT subject) AS n FROM (${source.sql}) AS src WHERE at >= ? AND at < ? GROUP BY d`,
        start, ...source.params, start, start + BigInt(n * DAY),
      );
      for (const r of rows) {
        const d = int(r.d);
        if (d >= 0 && d < n) out[d] = int(r.n);
      }
      return out;
    },
    async total(count, range) {
      const source = sources.count(count);
      const where = range === null ? '' : ' WHERE at >= ? AND at < ?';
      const bounds = range === null ? [] : [whole(range.from), whole(range.to)];
      return int(db.get(`SELECT count(DISTINCT subject) AS n FROM (${source.sql}) AS src${where}`, ...source.params, ...bounds)?.n ?? 0);
    },
    async top(dimension, range, limit) {
      const cap = Math.max(0, Number(whole(limit)));
      if (cap === 0) return [];
      const source = sources.dimension(dimension);
      const where = source.timeless === true ? '' : ' WHERE at >= ? AND at < ?';
      const bounds = source.timeless === true ? [] : [whole(range.from), whole(range.to)];
      const rows = db.all(
        `SELECT key, count(DISTINCT subject) AS n FROM (${source.sql}) AS src${where} GROUP BY key ORDER BY n DESC, key IS NULL, key LIMIT +?`,
        ...source.params, ...bounds, cap,
      );
      return rows.map((r) => ({ key: textOrNull(r.key), count: int(r.n) }));
    },
    async retention(range) {
      const rows = db.all(
        `SELECT (u.created_at / ${DAY}) * ${DAY} AS signed, (SELECT max(day) FROM account_activity aa WHERE aa.account_id = u.account_id) AS last, count(*) AS n
         FROM users u WHERE u.created_at >= ? AND u.created_at < ? GROUP BY signed, last`,
        whole(range.from), whole(range.to),
      );
      return rows.map((r) => ({ signedUpDay: int(r.signed), lastActiveDay: intOrNull(r.last), users: int(r.n) }));
    },
  };
}
