import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { PushPolicy, PushRepository, PushSubscription } from './port.ts';

/** The plugin's own migrations; never edit a released one. */
export const PUSH_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS push_subscriptions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    token_id INTEGER NOT NULL UNIQUE,
    sealed_token TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    alerts TEXT NOT NULL,
    policy TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS push_subscriptions_account ON push_subscriptions (account_id, id);
  CREATE TABLE IF NOT EXISTS push_vapid_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    public_key TEXT NOT NULL,
    private_key TEXT NOT NULL
  ) STRICT;
  `,
];

const SELECT = 'SELECT id, account_id, token_id, sealed_token, endpoint, p256dh, auth, alerts, policy, created_at FROM push_subscriptions';

export function sqlitePushRepository(context: SqliteExtensionContext): PushRepository {
  const { db, values: v } = context;
  context.migrate(PUSH_MIGRATIONS);
  const fromRow = (r: SqliteRow): PushSubscription => ({
    id: v.id(r.id),
    accountId: v.id(r.account_id),
    tokenId: v.id(r.token_id),
    sealedToken: String(r.sealed_token),
    endpoint: String(r.endpoint),
    p256dh: String(r.p256dh),
    auth: String(r.auth),
    alerts: v.json(r.alerts),
    policy: String(r.policy) as PushPolicy,
    createdAt: v.int(r.created_at),
  });
  const byToken = (tokenId: string) => {
    const k = v.lookupKey(tokenId);
    const r = k === null ? undefined : db.get(`${SELECT} WHERE token_id = ?`, k);
    return r ? fromRow(r) : null;
  };
  return {
    async replace(s) {
      await db.write(() => {
        db.run('DELETE FROM push_subscriptions WHERE token_id = ?', v.key(s.tokenId));
        db.run(
          'INSERT INTO push_subscriptions (id, account_id, token_id, sealed_token, endpoint, p256dh, auth, alerts, policy, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          v.key(s.id), v.key(s.accountId), v.key(s.tokenId), s.sealedToken, s.endpoint, s.p256dh, s.auth, v.jsonText(s.alerts), s.policy, s.createdAt,
        );
      });
    },
    async get(id) {
      const k = v.lookupKey(id);
      const r = k === null ? undefined : db.get(`${SELECT} WHERE id = ?`, k);
      return r ? fromRow(r) : null;
    },
    async byToken(tokenId) {
      return byToken(tokenId);
    },
    async forAccount(accountId) {
      const k = v.lookupKey(accountId);
      return k === null ? [] : db.all(`${SELECT} WHERE account_id = ? ORDER BY id`, k).map(fromRow);
    },
    async update(tokenId, changes) {
      const k = v.lookupKey(tokenId);
      if (k === null) return null;
      const changed = await db.write(() => db.run('UPDATE push_subscriptions SET alerts = ?, policy = ? WHERE token_id = ?', v.jsonText(changes.alerts), changes.policy, k));
      return changed === 0 ? null : byToken(tokenId);
    },
    async deleteByToken(tokenId) {
      const k = v.lookupKey(tokenId);
      if (k === null) return false;
      return (await db.write(() => db.run('DELETE FROM push_subscriptions WHERE token_id = ?', k))) > 0;
    },
    async delete(id) {
      const k = v.lookupKey(id);
      if (k !== null) await db.write(() => db.run('DELETE FROM push_subscriptions WHERE id = ?', k));
    },
    async vapidKeys(candidate) {
      return db.write(() => {
        db.run('INSERT INTO push_vapid_keys (id, public_key, private_key) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING', candidate.publicKey, candidate.privateKey);
        const r = db.get('SELECT public_key, private_key FROM push_vapid_keys WHERE id = 1');
        if (!r) throw new Error('the VAPID keys were not stored');
        return { publicKey: String(r.public_key), privateKey: String(r.private_key) };
      });
    },
  };
}
