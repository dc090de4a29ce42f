// Notification policies, the requests their filter makes, and the senders let through.

import type { NotificationPolicy, NotificationPolicyAction, NotificationRequest } from '../../core/domain/model.ts';
import type { NotificationPolicyRepository } from '../../core/domain/ports/storage.ts';
import { id, idOrNull, int, key, keyOrNull, lookupKey, paged, text, type Db, type Row } from './db.ts';

const REQUEST = 'SELECT id, account_id, from_account_id, last_status_id, created_at, updated_at FROM notification_requests';

function requestFromRow(r: Row): NotificationRequest {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    fromAccountId: id(r.from_account_id),
    lastStatusId: idOrNull(r.last_status_id),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

const action = (v: Row[string] | undefined): NotificationPolicyAction => text(v) as NotificationPolicyAction;

export function notificationPolicyRepository(db: Db): NotificationPolicyRepository {
  return {
    async getPolicy(accountId) {
      const r = db.get('SELECT * FROM notification_policies WHERE account_id = ?', key(accountId));
      if (r === undefined) return null;
      const policy: NotificationPolicy = {
        accountId: id(r.account_id),
        forNotFollowing: action(r.for_not_following),
        forNotFollowers: action(r.for_not_followers),
        forNewAccounts: action(r.for_new_accounts),
        forPrivateMentions: action(r.for_private_mentions),
        forLimitedAccounts: action(r.for_limited_accounts),
      };
      return policy;
    },
    async setPolicy(p) {
      await db.write(() =>
        db.run(
          `INSERT INTO notification_policies (account_id, for_not_following, for_not_followers, for_new_accounts, for_private_mentions, for_limited_accounts)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id) DO UPDATE SET for_not_following = excluded.for_not_following, for_not_followers = excluded.for_not_followers,
             for_new_accounts = excluded.for_new_accounts, for_private_mentions = excluded.for_private_mentions, for_limited_accounts = excluded.for_limited_accounts`,
          key(p.accountId), p.forNotFollowing, p.forNotFollowers, p.forNewAccounts, p.forPrivateMentions, p.forLimitedAccounts,
        ),
      );
    },
    async upsertRequest(r) {
      return db.write(() => {
        db.run(
          `INSERT INTO notification_requests (id, account_id, from_account_id, last_status_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id, from_account_id) DO UPDATE SET last_status_id = excluded.last_status_id, updated_at = excluded.updated_at`,
          key(r.id), key(r.accountId), key(r.fromAccountId), keyOrNull(r.lastStatusId), r.createdAt, r.updatedAt,
        );
        const row = db.get(`${REQUEST} WHERE account_id = ? AND from_account_id = ?`, key(r.accountId), key(r.fromAccountId));
        if (row === undefined) throw new Error('the notification request just written is missing');
        return requestFromRow(row);
      });
    },
    async getRequest(accountId, requestId) {
      const k = lookupKey(requestId);
      const r = k === null ? undefined : db.get(`${REQUEST} WHERE id = ? AND account_id = ?`, k, key(accountId));
      return r ? requestFromRow(r) : null;
    },
    async listRequests(accountId, page) {
      return paged(db, REQUEST, 'account_id = ?', [key(accountId)], 'id', page, requestFromRow);
    },
    async countRequests(accountId, limit) {
      const r = db.get('SELECT count(*) AS n FROM (SELECT 1 FROM notification_requests WHERE account_id = ? LIMIT +?)', key(accountId), Math.max(0, Math.trunc(limit)));
      return int(r?.n);
    },
    async deleteRequest(accountId, requestId) {
      const k = lookupKey(requestId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM notification_requests WHERE id = ? AND account_id = ?', k, key(accountId)) > 0);
    },
    async permit(accountId, fromAccountId, createdAt) {
      await db.write(() =>
        db.run('INSERT INTO notification_permissions (account_id, from_account_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', key(accountId), key(fromAccountId), createdAt),
      );
    },
    async isPermitted(accountId, fromAccountId) {
      return db.get('SELECT 1 AS x FROM notification_permissions WHERE account_id = ? AND from_account_id = ?', key(accountId), key(fromAccountId)) !== undefined;
    },
  };
}
