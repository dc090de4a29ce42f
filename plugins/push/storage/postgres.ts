import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import type { PushPolicy, PushRepository, PushSubscription } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. */
export const PUSH_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE push_subscriptions (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    token_id bigint NOT NULL,
    sealed_token text NOT NULL,
    endpoint text NOT NULL,
    p256dh text NOT NULL,
    auth text NOT NULL,
    alerts text NOT NULL,
    policy text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT push_subscriptions_token UNIQUE (token_id)
  );
  CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id, id);
  CREATE TABLE push_vapid_keys (
    id integer PRIMARY KEY CHECK (id = 1),
    public_key text NOT NULL,
    private_key text NOT NULL
  );
  `,
];

const COLUMN_NAMES = ['id', 'account_id', 'token_id', 'sealed_token', 'endpoint', 'p256dh', 'auth', 'alerts', 'policy', 'created_at'];
const COLUMNS = COLUMN_NAMES.join(', ');
const SELECT = `SELECT ${COLUMNS} FROM push_subscriptions`;

export function postgresPushRepository(context: PostgresExtensionContext): PushRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(PUSH_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): PushSubscription => ({
    id: v.id(r['id']),
    accountId: v.id(r['account_id']),
    tokenId: v.id(r['token_id']),
    sealedToken: v.text(r['sealed_token']),
    endpoint: v.text(r['endpoint']),
    p256dh: v.text(r['p256dh']),
    auth: v.text(r['auth']),
    alerts: v.json(r['alerts']),
    policy: v.text(r['policy']) as PushPolicy,
    createdAt: v.int(r['created_at']),
  });
  return {
    async replace(s) {
      await ready;
      // One statement: the token's subscription, whichever was there, becomes this one (a
      // concurrent replace for the same token waits, then overwrites).
      await sql.run(
        `INSERT INTO push_subscriptions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (token_id) DO UPDATE SET ${COLUMN_NAMES.filter((c) => c !== 'token_id').map((c) => `${c} = excluded.${c}`).join(', ')}`,
        [v.key(s.id), v.key(s.accountId), v.key(s.tokenId), s.sealedToken, s.endpoint, s.p256dh, s.auth, v.jsonText(s.alerts), s.policy, s.createdAt],
      );
    },
    async get(id) {
      await ready;
      const k = v.lookupKey(id);
      const r = k === null ? undefined : await sql.row(`${SELECT} WHERE id = $1`, [k]);
      return r ? fromRow(r) : null;
    },
    async byToken(tokenId) {
      await ready;
      const k = v.lookupKey(tokenId);
      const r = k === null ? undefined : await sql.row(`${SELECT} WHERE token_id = $1`, [k]);
      return r ? fromRow(r) : null;
    },
    async forAccount(accountId) {
      await ready;
      const k = v.lookupKey(accountId);
      return k === null ? [] : (await sql.rows(`${SELECT} WHERE account_id = $1 ORDER BY id`, [k])).map(fromRow);
    },
    async update(tokenId, changes) {
      await ready;
      const k = v.lookupKey(tokenId);
      if (k === null) return null;
      const r = await sql.row(`UPDATE push_subscriptions SET alerts = $1, policy = $2 WHERE token_id = $3 RETURNING ${COLUMNS}`, [v.jsonText(changes.alerts), changes.policy, k]);
      return r ? fromRow(r) : null;
    },
    async deleteByToken(tokenId) {
      await ready;
      const k = v.lookupKey(tokenId);
      return k !== null && (await sql.run('DELETE FROM push_subscriptions WHERE token_id = $1', [k])) > 0;
    },
    async delete(id) {
      await ready;
      const k = v.lookupKey(id);
      if (k !== null) await sql.run('DELETE FROM push_subscriptions WHERE id = $1', [k]);
    },
    async vapidKeys(candidate) {
      await ready;
      // The stored pair, or the candidate stored now. A pair another process stored after this
      // statement began is visible to neither of its parts: the next statement reads it.
      for (let attempt = 1; ; attempt += 1) {
        const r = await sql.row(
          `WITH added AS (
             INSERT INTO push_vapid_keys (id, public_key, private_key) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING RETURNING public_key, private_key
           )
           SELECT public_key, private_key FROM added UNION ALL SELECT public_key, private_key FROM push_vapid_keys WHERE id = 1`,
          [candidate.publicKey, candidate.privateKey],
        );
        if (r !== undefined) return { publicKey: v.text(r['public_key']), privateKey: v.text(r['private_key']) };
        if (attempt === 5) throw new Error('the VAPID keys were not stored');
      }
    },
  };
}
