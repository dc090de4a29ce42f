// Notification policies (one document per account, `_id` the account), the requests their
// filter makes (unique per recipient and sender) and the senders let through.

import type { Id, NotificationPolicyAction, NotificationRequest } from '../../core/domain/model.ts';
import type { NotificationPolicyRepository } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, pairKey, withRange, type Doc } from './values.ts';

function requestFromDoc(d: Doc): NotificationRequest {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    fromAccountId: d['fromAccountId'] as Id,
    lastStatusId: (d['lastStatusId'] as Id | null) ?? null,
    createdAt: d['createdAt'] as number,
    updatedAt: d['updatedAt'] as number,
  };
}

export function notificationPolicyRepository(m: Mongo): NotificationPolicyRepository {
  const policies = m.collection(C.notificationPolicies);
  const requests = m.collection(C.notificationRequests);
  const permissions = m.collection(C.notificationPermissions);
  return {
    async getPolicy(accountId) {
      const d = await policies.findOne({ _id: accountId });
      if (d === null) return null;
      const action = (field: string) => d[field] as NotificationPolicyAction;
      return {
        accountId,
        forNotFollowing: action('forNotFollowing'),
        forNotFollowers: action('forNotFollowers'),
        forNewAccounts: action('forNewAccounts'),
        forPrivateMentions: action('forPrivateMentions'),
        forLimitedAccounts: action('forLimitedAccounts'),
      };
    },
    async setPolicy(p) {
      const { accountId, ...actions } = p;
      await policies.updateOne({ _id: accountId }, { $set: actions }, { upsert: true });
    },
    async upsertRequest(r) {
      // One atomic document write: insert the request, or move the existing one's last status.
      const d = await m
        .collection(C.notificationRequests)
        .findOneAndUpdate(
          { accountId: r.accountId, fromAccountId: r.fromAccountId },
          {
            $set: { lastStatusId: r.lastStatusId, updatedAt: r.updatedAt },
            $setOnInsert: { _id: r.id, num: num(r.id), accountId: r.accountId, fromAccountId: r.fromAccountId, createdAt: r.createdAt },
          },
          { upsert: true, returnDocument: 'after' },
        )
        .catch(async (error: unknown) => {
          // Two first requests at once: the loser's upsert breaks the unique index; the winner's
          // document is there now, so the update alone succeeds.
          if ((error as { code?: unknown }).code !== 11000) throw m.translate(error);
          return requests.findOneAndUpdate({ accountId: r.accountId, fromAccountId: r.fromAccountId }, { $set: { lastStatusId: r.lastStatusId, updatedAt: r.updatedAt } }, { returnDocument: 'after' });
        });
      if (d === null) throw new Error('the notification request just written is missing');
      return requestFromDoc(d);
    },
    async getRequest(accountId, requestId) {
      const k = lookupId(requestId);
      const d = k === null ? null : await requests.findOne({ _id: k, accountId });
      return d ? requestFromDoc(d) : null;
    },
    async listRequests(accountId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const docs = await requests.find(withRange({ accountId }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(requestFromDoc), p);
    },
    async countRequests(accountId, limit) {
      const cap = Math.max(0, Math.trunc(limit));
      return cap === 0 ? 0 : requests.countDocuments({ accountId }, { limit: cap });
    },
    async deleteRequest(accountId, requestId) {
      const k = lookupId(requestId);
      if (k === null) return false;
      return (await requests.deleteOne({ _id: k, accountId })).deletedCount === 1;
    },
    async permit(accountId, fromAccountId, createdAt) {
      await permissions.updateOne({ _id: pairKey(accountId, fromAccountId) }, { $setOnInsert: { accountId, fromAccountId, createdAt } }, { upsert: true });
    },
    async isPermitted(accountId, fromAccountId) {
      return (await permissions.findOne({ _id: pairKey(accountId, fromAccountId) }, { projection: { _id: 1 } })) !== null;
    },
  };
}
