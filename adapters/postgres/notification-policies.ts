// Notification policies, the requests their filter makes, and the senders let through.

import type { NotificationPolicyAction, NotificationRequest } from '../../core/domain/model.ts';
import type { NotificationPolicyRepository } from '../../core/domain/ports/storage.ts';
import type { Db, Row } from './db.ts';
import { Params, id, idOrNull, int, key, keyOrNull, limitOf, lookupKey, paged, text } from './values.ts';

const REQUEST = 'SELECT id, account_id, from_account_id, last_status_id, created_at, updated_at FROM notification_requests';

function requestFromRow(r: Row): NotificationRequest {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    fromAccountId: id(r['from_account_id']),
    lastStatusId: idOrNull(r['last_status_id']),
    createdAt: int(r['created_at']),
    updatedAt: int(r['updated_at']),
  };
}

const action = (v: unknown): NotificationPolicyAction => text(v) as NotificationPolicyAction;

export function notificationPolicyRepository(db: Db): NotificationPolicyRepository {
  return {
    async getPolicy(accountId) {
      const a = lookupKey(accountId);
      const r = a === null ? undefined : await db.row('SELECT * FROM notification_policies WHERE account_id = $1', [a]);
      if (r === undefined) return null;
      return {
        accountId: id(r['account_id']),
        forNotFollowing: action(r['for_not_following']),
        forNotFollowers: action(r['for_not_followers']),
        forNewAccounts: action(r['for_new_accounts']),
        forPrivateMentions: action(r['for_private_mentions']),
        forLimitedAccounts: action(r['for_limited_accounts']),
      };
    },
    async setPolicy(p) {
      await db.run(
        `INSERT INTO notification_policies (account_id, for_not_following, for_not_followers, for_new_accounts, for_private_mentions, for_limited_accounts)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id) DO UPDATE SET for_not_following = excluded.for_not_following, for_not_followers = excluded.for_not_followers,
           for_new_accounts = excluded.for_new_accounts, for_private_mentions = excluded.for_private_mentions, for_limited_accounts = excluded.for_limited_accounts`,
        [key(p.accountId), p.forNotFollowing, p.forNotFollowers, p.forNewAccounts, p.forPrivateMentions, p.forLimitedAccounts],
      );
    },
    async upsertRequest(r) {
      // RETURNING gives the row as it is after the insert or the update, in one statement.
      const row = await db.row(
        `INSERT INTO notification_requests (id, account_id, from_account_id, last_status_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, from_account_id) DO UPDATE SET last_status_id = excluded.last_status_id, updated_at = excluded.updated_at
         RETURNING id, account_id, from_account_id, last_status_id, created_at, updated_at`,
        [key(r.id), key(r.accountId), key(r.fromAccountId), keyOrNull(r.lastStatusId), r.createdAt, r.updatedAt],
      );
      if (row === undefined) throw new Error('the notification request just written is missing');
      return requestFromRow(row);
    },
    async getRequest(accountId, requestId) {
      const k = lookupKey(requestId);
      const a = lookupKey(accountId);
      const r = k === null || a === null ? undefined : await db.row(`${REQUEST} WHERE id = $1 AND account_id = $2`, [k, a]);
      return r ? requestFromRow(r) : null;
    },
    async listRequests(accountId, page) {
      if (lookupKey(accountId) === null) return [];
      const p = new Params();
      return paged(db, p, REQUEST, `account_id = ${p.id(accountId)}`, 'id', page, requestFromRow);
    },
    async countRequests(accountId, limit) {
      const a = lookupKey(accountId);
      if (a === null) return 0;
      const r = await db.row('SELECT count(*) AS n FROM (SELECT 1 FROM notification_requests WHERE account_id = $1 LIMIT $2) x', [a, limitOf(limit)]);
      return int(r?.['n']);
    },
    async deleteRequest(accountId, requestId) {
      const k = lookupKey(requestId);
      const a = lookupKey(accountId);
      if (k === null || a === null) return false;
      return (await db.run('DELETE FROM notification_requests WHERE id = $1 AND account_id = $2', [k, a])) > 0;
    },
    async permit(accountId, fromAccountId, createdAt) {
      await db.run('INSERT INTO notification_permissions (account_id, from_account_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        key(accountId),
        key(fromAccountId),
        createdAt,
      ]);
    },
    async isPermitted(accountId, fromAccountId) {
      const a = lookupKey(accountId);
      const f = lookupKey(fromAccountId);
      if (a === null || f === null) return false;
      return (await db.row('SELECT 1 AS x FROM notification_permissions WHERE account_id = $1 AND from_account_id = $2', [a, f])) !== undefined;
    },
  };
}
