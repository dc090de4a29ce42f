// Notifications. "Once per key" is the unique index notifications_dedupe on (recipient, key):
// a create with a key reads first and inserts only when the key is unused (a concurrent insert of
// the same key loses on the index and reads again).

import type { Id, Notification, NotificationType } from '../../core/domain/model.ts';
import type { NotificationFilter, NotificationRepository } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, withRange, type Doc, type PageQuery } from './values.ts';

export function notificationDoc(n: Notification, dedupeKey: string | null): Doc {
  const doc: Doc = {
    _id: n.id,
    num: num(n.id),
    accountId: n.accountId,
    type: n.type,
    fromAccountId: n.fromAccountId,
    statusId: n.statusId,
    createdAt: n.createdAt,
  };
  if (dedupeKey !== null) doc['dedupeKey'] = dedupeKey;
  return doc;
}

export function notificationFromDoc(d: Doc): Notification {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    type: d['type'] as NotificationType,
    fromAccountId: d['fromAccountId'] as Id,
    statusId: d['statusId'] as Id | null,
    createdAt: d['createdAt'] as number,
  };
}

export function notificationListFilter(accountId: Id, filter: NotificationFilter, page: PageQuery): Doc {
  const out: Doc = { accountId };
  const type: Doc = {};
  if (filter.types !== undefined) type['$in'] = filter.types;
  if (filter.excludeTypes !== undefined) type['$nin'] = filter.excludeTypes;
  if (Object.keys(type).length > 0) out['type'] = type;
  if (filter.fromAccountId !== undefined) out['fromAccountId'] = filter.fromAccountId;
  return withRange(out, page);
}

/** countSince: the account's notifications above `sinceId` (all when null), counted up to `limit`. */
export function countSinceQuery(accountId: Id, sinceId: Id | null, limit: number): { filter: Doc; limit: number } {
  return { filter: sinceId === null ? { accountId } : { accountId, num: { $gt: num(sinceId) } }, limit: Math.max(0, Math.trunc(limit)) };
}

export function notificationRepository(m: Mongo): NotificationRepository {
  const notifications = m.collection(C.notifications);
  return {
    async create(n, options = {}) {
      const key = options.key ?? null;
      return m.cas(
        {
          collection: C.notifications,
          read: () => (key === null ? Promise.resolve(null) : notifications.findOne({ accountId: n.accountId, dedupeKey: key }, { projection: { _id: 1 } })),
          decide: (current) => (current === null ? { result: true, write: { insert: notificationDoc(n, key) } } : { result: false, write: null }),
          outbox: options.outbox,
        },
        [`${C.notifications}.notifications_dedupe`],
      );
    },
    async get(accountId, notificationId) {
      const id = lookupId(notificationId);
      const d = id === null ? null : await notifications.findOne({ _id: id, accountId });
      return d ? notificationFromDoc(d) : null;
    },
    async list(accountId, filter, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const docs = await notifications.find(notificationListFilter(accountId, filter, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(notificationFromDoc), p);
    },
    async dismiss(accountId, notificationId) {
      const id = lookupId(notificationId);
      if (id === null) return false;
      return (await notifications.deleteOne({ _id: id, accountId })).deletedCount === 1;
    },
    async clear(accountId) {
      // Many documents, all or none: a transaction.
      await m.transaction(async (tx) => {
        await tx.collection(C.notifications).deleteMany({ accountId }, { session: tx.session });
      });
    },
    async countSince(accountId, sinceId, limit) {
      const q = countSinceQuery(accountId, sinceId, limit);
      if (q.limit === 0) return 0;
      return notifications.countDocuments(q.filter, { limit: q.limit });
    },
  };
}
