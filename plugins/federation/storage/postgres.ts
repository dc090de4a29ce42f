import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import { createHash } from 'node:crypto';
import type { DomainBlockRow, FederationRows, KvRow } from './port.ts';

/** How much of a key the ordered index holds: a btree entry must stay under about 2.7 kB, and
 * keys may be up to 8192 characters. */
const KEY_PREFIX = 256;

/** The plugin's own migrations on PostgreSQL; never edit a released one.
 * A key is found by its SHA-256 (the primary key: any length fits), listed in key order by an
 * index on its first KEY_PREFIX characters. Keys and domains compare as bytes (COLLATE "C"),
 * whatever the database's locale, as the plugin's key ranges expect. */
export const FEDERATION_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE federation_kv (
    key_hash bytea PRIMARY KEY,
    key text COLLATE "C" NOT NULL,
    value text NOT NULL,
    expires_at bigint
  );
  CREATE INDEX federation_kv_order ON federation_kv (left(key, ${KEY_PREFIX}));
  CREATE INDEX federation_kv_expiry ON federation_kv (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE federation_domain_blocks (
    domain text COLLATE "C" PRIMARY KEY,
    reason text,
    created_at bigint NOT NULL
  );
  `,
  // 2: what Mastodon's admin API adds to a block (severity, …), as JSON.
  `ALTER TABLE federation_domain_blocks ADD COLUMN settings text;`,
];

/** The primary key of a federation key on PostgreSQL (also what `storage copy` writes). */
export const federationKeyHash = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export function postgresFederationRows(context: PostgresExtensionContext): FederationRows {
  const { sql, values: v } = context;
  const ready = context.migrate(FEDERATION_POSTGRES_MIGRATIONS);
  const kvRow = (r: PostgresRow): KvRow => ({ key: v.text(r['key']), value: v.text(r['value']), expiresAt: v.intOrNull(r['expires_at']) });
  const blockRow = (r: PostgresRow): DomainBlockRow => ({ domain: v.text(r['domain']), reason: v.textOrNull(r['reason']), createdAt: v.int(r['created_at']), settings: v.textOrNull(r['settings']) });
  const BLOCK = 'SELECT domain, reason, created_at, settings FROM federation_domain_blocks';
  return {
    async kvRead(key) {
      await ready;
      const r = await sql.row('SELECT key, value, expires_at FROM federation_kv WHERE key_hash = $1', [federationKeyHash(key)]);
      return r ? kvRow(r) : null;
    },
    async kvReadMany(keys) {
      await ready;
      if (keys.length === 0) return [];
      return (await sql.rows('SELECT key, value, expires_at FROM federation_kv WHERE key_hash = ANY($1::bytea[])', [keys.map(federationKeyHash)])).map(kvRow);
    },
    async kvWrite(row) {
      await ready;
      await sql.run(
        `INSERT INTO federation_kv (key_hash, key, value, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key_hash) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        [federationKeyHash(row.key), row.key, row.value, row.expiresAt],
      );
    },
    async kvRemove(key) {
      await ready;
      await sql.run('DELETE FROM federation_kv WHERE key_hash = $1', [federationKeyHash(key)]);
    },
    async kvRange(exact, from, to, now, limit) {
      await ready;
      if (limit === 0) return [];
      // A key range (byte order), not LIKE: nothing in a key acts as a pattern. The prefix
      // bounds let the ordered index find the range; the full keys decide.
      const rows = await sql.rows(
        `SELECT key, value, expires_at FROM federation_kv
         WHERE (key_hash = $1 OR (left(key, ${KEY_PREFIX}) >= left($2::text, ${KEY_PREFIX}) AND left(key, ${KEY_PREFIX}) <= left($3::text, ${KEY_PREFIX})
                                  AND key >= $2::text AND key < $3::text))
           AND (expires_at IS NULL OR expires_at > $4)
         ORDER BY left(key, ${KEY_PREFIX}), key LIMIT $5`,
        [federationKeyHash(exact), from, to, v.floorMs(now), v.limitOf(limit)],
      );
      return rows.map(kvRow);
    },
    async kvSwap(seen, next) {
      await ready;
      if (seen === null) {
        // Absent: only an insert that finds no row (a concurrent one waits, then finds it).
        return (
          (await sql.run('INSERT INTO federation_kv (key_hash, key, value, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key_hash) DO NOTHING', [
            federationKeyHash(next.key), next.key, next.value, next.expiresAt,
          ])) > 0
        );
      }
      // The UPDATE re-checks the row it changes on its newest version: of two swaps from one
      // value, one finds it changed.
      return (
        (await sql.run(
          'UPDATE federation_kv SET value = $1, expires_at = $2 WHERE key_hash = $3 AND value = $4 AND expires_at IS NOT DISTINCT FROM $5::bigint',
          [next.value, next.expiresAt, federationKeyHash(next.key), seen.value, seen.expiresAt],
        )) > 0
      );
    },
    async kvExpire(now, key) {
      await ready;
      return key === undefined
        ? sql.run('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= $1', [v.floorMs(now)])
        : sql.run('DELETE FROM federation_kv WHERE key_hash = $1 AND expires_at IS NOT NULL AND expires_at <= $2', [federationKeyHash(key), v.floorMs(now)]);
    },
    async blockUpsert(block, settings) {
      await ready;
      const keep = settings === undefined;
      const r = await sql.row(
        `INSERT INTO federation_domain_blocks (domain, reason, created_at, settings) VALUES ($1, $2, $3, $4)
         ON CONFLICT (domain) DO UPDATE SET reason = excluded.reason, settings = CASE WHEN $5::boolean THEN federation_domain_blocks.settings ELSE excluded.settings END
         RETURNING domain, reason, created_at, settings`,
        [block.domain, block.reason, block.createdAt, settings ?? null, keep],
      );
      if (r === undefined) throw new Error('the block just written is missing');
      return blockRow(r);
    },
    async blockRemove(domain) {
      await ready;
      return (await sql.run('DELETE FROM federation_domain_blocks WHERE domain = $1', [domain])) > 0;
    },
    async blockList() {
      await ready;
      return (await sql.rows(`${BLOCK} ORDER BY domain`)).map(blockRow);
    },
    async blockFind(domains) {
      await ready;
      const storable = domains.filter(v.storable);
      if (storable.length === 0) return [];
      return (await sql.rows(`${BLOCK} WHERE domain = ANY($1::text[])`, [storable])).map(blockRow);
    },
  };
}
