import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { DomainBlockRow, FederationRows, KvRow } from './port.ts';

/** The plugin's own migrations; version n is [n - 1]. Never edit a released one. The kv table
 * keeps its rowid: values may be large documents, which a WITHOUT ROWID table stores badly. */
export const FEDERATION_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS federation_kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at INTEGER
  ) STRICT;
  CREATE INDEX IF NOT EXISTS federation_kv_expiry ON federation_kv (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE IF NOT EXISTS federation_domain_blocks (
    domain TEXT PRIMARY KEY,
    reason TEXT,
    created_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // 2: what Mastodon's admin API adds to a block (severity, …), as JSON.
  `ALTER TABLE federation_domain_blocks ADD COLUMN settings TEXT;`,
];

/** The most text a kept kv range holds (64 of them at most). */
const MAX_KEPT_RANGE_CHARS = 64 * 1024;

export function sqliteFederationRows(context: SqliteExtensionContext): FederationRows {
  const { db } = context;
  context.migrate(FEDERATION_MIGRATIONS);
  const kvRow = (r: SqliteRow): KvRow => ({ key: String(r['key']), value: String(r['value']), expiresAt: r['expires_at'] === null ? null : Number(r['expires_at']) });
  const blockRow = (r: SqliteRow): DomainBlockRow => ({
    domain: String(r['domain']),
    reason: r['reason'] === null ? null : String(r['reason']),
    createdAt: Number(r['created_at']),
    settings: r['settings'] === null || r['settings'] === undefined ? null : String(r['settings']),
  });
  // Ranges are read again and again (the relays, by every public status sent out) and kept
  // until the table changes: the reads of a publish stay off the file.
  const ranges = context.cache<string, { now: number; rows: KvRow[] }>('federation_kv', 64, (kept) => ({ now: kept.now, rows: kept.rows.map((row) => ({ ...row })) }));
  const BLOCK = 'SELECT domain, reason, created_at, settings FROM federation_domain_blocks';
  const read = (key: string) => {
    const r = db.get('SELECT key, value, expires_at FROM federation_kv WHERE key = ?', key);
    return r ? kvRow(r) : null;
  };
  const upsert = (row: KvRow) =>
    db.run(
      'INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
      row.key, row.value, row.expiresAt,
    );
  return {
    async kvRead(key) {
      return read(key);
    },
    async kvReadMany(keys) {
      if (keys.length === 0) return [];
      return db.all('SELECT key, value, expires_at FROM federation_kv WHERE key IN (SELECT value FROM json_each(?))', JSON.stringify(keys)).map(kvRow);
    },
    async kvWrite(row) {
      await db.write(() => upsert(row));
    },
    async kvRemove(key) {
      await db.write(() => db.run('DELETE FROM federation_kv WHERE key = ?', key));
    },
    async kvRange(exact, from, to, now, limit) {
      const rangeKey = JSON.stringify([exact, from, to, limit]);
      const kept = ranges.get(rangeKey);
      // Rows expire as time goes on, never the other way: what was live at `kept.now` and is
      // still live now is the whole range.
      if (kept !== undefined && kept.now <= now) return kept.rows.filter((row) => row.expiresAt === null || row.expiresAt > now);
      // A key range, not LIKE: nothing in a key can act as a pattern.
      const rows = db
        .all(
          'SELECT key, value, expires_at FROM federation_kv WHERE (key = ? OR (key >= ? AND key < ?)) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT +?',
          exact, from, to, now, limit,
        )
        .map(kvRow);
      // A range cut short by its limit is not kept: rows past it move up as others expire. Nor
      // is a large one (values may be whole documents): the memory kept stays bounded.
      if (rows.length < limit && rows.reduce((bytes, row) => bytes + row.key.length + row.value.length, 0) <= MAX_KEPT_RANGE_CHARS) ranges.set(rangeKey, { now, rows });
      return rows;
    },
    async kvSwap(seen, next) {
      return db.write(() => {
        const current = read(next.key);
        const same = current === null ? seen === null : seen !== null && current.value === seen.value && current.expiresAt === seen.expiresAt;
        if (!same) return false;
        upsert(next);
        return true;
      });
    },
    async kvExpire(now, key) {
      return db.write(() =>
        key === undefined
          ? db.run('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= ?', now)
          : db.run('DELETE FROM federation_kv WHERE key = ? AND expires_at IS NOT NULL AND expires_at <= ?', key, now),
      );
    },
    async blockUpsert(block, settings) {
      return db.write(() => {
        db.run(
          'INSERT INTO federation_domain_blocks (domain, reason, created_at, settings) VALUES (?, ?, ?, ?) ON CONFLICT (domain) DO UPDATE SET reason = excluded.reason',
          block.domain, block.reason, block.createdAt, settings ?? null,
        );
        if (settings !== undefined) db.run('UPDATE federation_domain_blocks SET settings = ? WHERE domain = ?', settings, block.domain);
        const r = db.get(`${BLOCK} WHERE domain = ?`, block.domain);
        if (r === undefined) throw new Error('the block just written is missing');
        return blockRow(r);
      });
    },
    async blockRemove(domain) {
      return db.write(() => db.run('DELETE FROM federation_domain_blocks WHERE domain = ?', domain) > 0);
    },
    async blockList() {
      return db.all(`${BLOCK} ORDER BY domain`).map(blockRow);
    },
    async blockFind(domains) {
      if (domains.length === 0) return [];
      return db.all(`${BLOCK} WHERE domain IN (${domains.map(() => '?').join(', ')})`, ...domains).map(blockRow);
    },
  };
}
