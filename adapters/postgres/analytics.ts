// The admin dashboard's figures (AnalyticsRepository): the rows of the shared sources
// (../sql/analytics-sources.ts) grouped by UTC day, over the range, or by key, counting distinct
// subjects.

import type { AnalyticsRepository } from '../../core/domain/ports/storage.ts';
import type { Db } from './db.ts';
import { int, intOrNull, lookupKey, textOrNull } from './values.ts';
import { analyticsSources } from '../sql/analytics-sources.ts';

const DAY = 86_400_000;

// PostgreSQL: ids cast to text, real booleans, follow requests kept as pending follows.
const sources = analyticsSources({
  text: (column) => `${column}::text`,
  isTrue: (column) => column,
  differs: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  accepted: (alias, joiner) => `${joiner}NOT ${alias}.pending`,
  zero: '0::bigint',
});

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
      const source = sources.count(count);
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
      const source = sources.count(count);
      const where = range === null ? '' : ' WHERE at >= ? AND at < ?';
      const bounds = range === null ? [] : [whole(range.from), whole(range.to)];
      const [r] = await rows(`SELECT count(DISTINCT subject) AS n FROM (${source.sql}) AS src${where}`, [...source.params, ...bounds]);
      return r === undefined ? 0 : int(r['n']);
    },
    async top(dimension, range, limit) {
      const cap = Math.max(0, whole(limit));
      if (cap === 0) return [];
      const source = sources.dimension(dimension);
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
