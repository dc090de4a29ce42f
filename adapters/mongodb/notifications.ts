// Notifications. "Once per key" is the unique index notifications_dedupe on (recipient, key):
// a create with a key reads first and inserts only when the key is unused (a concurrent insert of
// the same key loses on the index and reads again).

import type { Id, Notification, NotificationType } from '../../core/domain/model.ts';
import type { NotificationFilter, NotificationGroupSummary, NotificationRepository } from '../../core/domain/ports/storage.ts';
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
    groupKey: n.groupKey,
    filtered: n.filtered,
  };
  if (n.reportId !== undefined) doc['reportId'] = n.reportId;
  if (dedupeKey !== null) doc['dedupeKey'] = dedupeKey;
  return doc;
}

export function notificationFromDoc(d: Doc): Notification {
  const n: Notification = {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    type: d['type'] as NotificationType,
    fromAccountId: d['fromAccountId'] as Id,
    statusId: d['statusId'] as Id | null,
    createdAt: d['createdAt'] as number,
    // Documents written before grouping and filtering have neither.
    groupKey: typeof d['groupKey'] === 'string' ? d['groupKey'] : null,
    filtered: d['filtered'] === true,
  };
  if (typeof d['reportId'] === 'string') n.reportId = d['reportId'];
  return n;
}

export function notificationListFilter(accountId: Id, filter: NotificationFilter, page: PageQuery): Doc {
  const out: Doc = { accountId };
  const type: Doc = {};
  if (filter.types !== undefined) type['$in'] = filter.types;
  if (filter.excludeTypes !== undefined) type['$nin'] = filter.excludeTypes;
  if (Object.keys(type).length > 0) out['type'] = type;
  if (filter.fromAccountId !== undefined) out['fromAccountId'] = filter.fromAccountId;
  if (filter.statusId !== undefined) out['statusId'] = filter.statusId;
  if (filter.filtered !== undefined) out['filtered'] = filter.filtered ? true : { $ne: true };
  if (filter.groupKey !== undefined) out['groupKey'] = filter.groupKey;
  return withRange(out, page);
}

/** The filter without a page. */
export function notificationFilterDoc(accountId: Id, filter: NotificationFilter): Doc {
  return notificationListFilter(accountId, filter, { range: null, sort: -1, limit: 0, empty: false, reverse: false });
}

/** countSince: the account's notifications above `sinceId` (all when null), counted up to `limit`. */
export function countSinceQuery(accountId: Id, sinceId: Id | null, limit: number): { filter: Doc; limit: number } {
  return { filter: sinceId === null ? { accountId } : { accountId, num: { $gt: num(sinceId) } }, limit: Math.max(0, Math.trunc(limit)) };
}

/** Notifications read for a group's senders at most. */
const SENDER_SCAN = 1000;

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
    async count(accountId, filter, limit) {
      const cap = Math.max(0, Math.trunc(limit));
      if (cap === 0) return 0;
      return notifications.countDocuments(notificationFilterDoc(accountId, filter), { limit: cap });
    },
    async latestGrouped(accountId, type, statusId) {
      const [d] = await notifications.find({ accountId, type, statusId, groupKey: { $type: 'string' } }).sort({ num: -1 }).limit(1).toArray();
      return d ? notificationFromDoc(d) : null;
    },
    async summarizeGroups(accountId, groupKeys, range, sample) {
      const cap = Math.max(0, Math.trunc(sample));
      const upTo = num(range.upTo);
      const out: NotificationGroupSummary[] = [];
      for (const groupKey of new Set(groupKeys)) {
        const inGroup = { accountId, groupKey, num: { $lte: upTo } };
        const [newest] = await notifications.find(inGroup).sort({ num: -1 }).limit(1).toArray();
        if (newest === undefined) continue;
        const count = await notifications.countDocuments(inGroup);
        // The newest senders, each once; read newest first, at most a few pages' worth.
        const senders: Id[] = [];
        for (const d of await notifications.find(inGroup, { projection: { fromAccountId: 1 } }).sort({ num: -1 }).limit(SENDER_SCAN).toArray()) {
          const sender = d['fromAccountId'] as Id;
          if (senders.length < cap && !senders.includes(sender)) senders.push(sender);
        }
        const [oldest] = range.from === null ? [] : await notifications.find({ accountId, groupKey, num: { $gte: num(range.from) } }).sort({ num: 1 }).limit(1).toArray();
        out.push({
          groupKey,
          mostRecentId: newest['_id'] as Id,
          mostRecentAt: newest['createdAt'] as number,
          count,
          sampleAccountIds: senders,
          oldestFromId: oldest === undefined ? null : (oldest['_id'] as Id),
        });
      }
      return out;
    },
    async deleteWhere(accountId, filter) {
      return m.transaction(async (tx) => (await tx.collection(C.notifications).deleteMany(notificationFilterDoc(accountId, filter), { session: tx.session })).deletedCount);
    },
    async unfilterFrom(accountId, fromAccountId) {
      return m.transaction(
        async (tx) => (await tx.collection(C.notifications).updateMany({ accountId, fromAccountId, filtered: true }, { $set: { filtered: false } }, { session: tx.session })).modifiedCount,
      );
    },
    async deleteFrom(fromAccountId, limit) {
      const ids = (await notifications.find({ fromAccountId }, { projection: { _id: 1 } }).limit(limit).toArray()).map((d) => d['_id']);
      if (ids.length === 0) return 0;
      return (await notifications.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
