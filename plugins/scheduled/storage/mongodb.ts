import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import { type Id, type Millis, type ScheduledParams, type ScheduledStatus, StorageConflict } from 'rookery/plugin-kit';
import type { ScheduledStatusRepository } from './port.ts';

export const SCHEDULED = 'scheduled_statuses';

export const SCHEDULED_INDEXES: readonly IndexDefinition[] = [
  { collection: SCHEDULED, name: 'scheduled_statuses_account', key: { accountId: 1, scheduledAt: 1 } },
  { collection: SCHEDULED, name: 'scheduled_statuses_account_num', key: { accountId: 1, num: -1 } },
  { collection: SCHEDULED, name: 'scheduled_statuses_due', key: { scheduledAt: 1, num: 1 } },
];

export function scheduledDoc(s: ScheduledStatus, num: (id: Id) => unknown): MongoDoc {
  return { _id: s.id, num: num(s.id), accountId: s.accountId, scheduledAt: s.scheduledAt, params: s.params, claimedUntil: s.claimedUntil, createdAt: s.createdAt };
}

export function scheduledFromDoc(d: MongoDoc): ScheduledStatus {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    scheduledAt: d['scheduledAt'] as number,
    params: d['params'] as ScheduledParams,
    claimedUntil: d['claimedUntil'] as number | null,
    createdAt: d['createdAt'] as number,
  };
}

/** Due (scheduledAt <= now) and not leased by a live claim. */
export function dueFilter(now: Millis): MongoDoc {
  return { scheduledAt: { $lte: now }, $or: [{ claimedUntil: null }, { claimedUntil: { $lte: now } }] };
}

export const byAge = (a: ScheduledStatus, b: ScheduledStatus): number =>
  a.scheduledAt - b.scheduledAt || (a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export function mongoScheduledRepository(context: MongoExtensionContext): ScheduledStatusRepository {
  const { values: v } = context;
  const rows = context.collection(SCHEDULED);
  const ready = context.setup({ indexes: SCHEDULED_INDEXES, carriesJobs: [SCHEDULED] });
  return {
    async create(s, outbox) {
      await ready;
      await context.insertWithJobs(SCHEDULED, scheduledDoc(s, v.num), outbox === undefined ? [] : outbox(undefined));
    },
    async get(scheduledId) {
      await ready;
      const id = v.lookupId(scheduledId);
      const d = id === null ? null : await rows.findOne({ _id: id });
      return d ? scheduledFromDoc(d) : null;
    },
    async listBy(accountId, page) {
      await ready;
      const p = v.pageQuery(page);
      if (p.empty) return [];
      const docs = await rows.find(v.withRange({ accountId }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return v.inPageOrder(docs.map(scheduledFromDoc), p);
    },
    async update(scheduledId, scheduledAt, outbox) {
      await ready;
      const id = v.lookupId(scheduledId);
      if (id === null) return null;
      return context.cas({
        collection: SCHEDULED,
        read: () => rows.findOne({ _id: id }, { projection: { _jobs: 0 } }),
        decide: (current) =>
          current === null ? { result: null, write: null } : { result: { ...scheduledFromDoc(current), scheduledAt }, write: { update: { $set: { scheduledAt } } } },
        outbox,
      });
    },
    async delete(scheduledId) {
      await ready;
      const id = v.lookupId(scheduledId);
      if (id === null) return false;
      return (await rows.deleteOne({ _id: id })).deletedCount === 1;
    },
    async countBetween(accountId, from, to) {
      await ready;
      return rows.countDocuments({ accountId, scheduledAt: { $gte: from, $lt: to } });
    },
    async countPending(accountId) {
      await ready;
      return rows.countDocuments({ accountId });
    },
    async claimDue(now, leaseMs, limit) {
      await ready;
      const want = Math.max(0, Math.trunc(limit));
      const until = now + leaseMs;
      const claimed: ScheduledStatus[] = [];
      const tried: Id[] = [];
      // Each lease is a conditional update of one row, so a row goes to one claimer; read on
      // past the rows another claimer took until this one has its `limit` or none are left.
      while (claimed.length < want) {
        const candidates = await rows
          .find({ ...dueFilter(now), _id: { $nin: tried } }, { projection: { _id: 1 } })
          .sort({ scheduledAt: 1, num: 1 })
          .limit(want - claimed.length)
          .toArray();
        if (candidates.length === 0) break;
        for (const c of candidates) {
          const id = c['_id'] as Id;
          tried.push(id);
          const leased = await rows.findOneAndUpdate({ _id: id, ...dueFilter(now) }, v.bump({ $set: { claimedUntil: until } }), { returnDocument: 'after' });
          if (leased !== null) claimed.push(scheduledFromDoc(leased));
        }
      }
      return claimed.sort(byAge);
    },
    consume(scheduledId) {
      const id = v.lookupId(scheduledId);
      return context.prepare({
        async check(tx) {
          await ready;
          if (id === null || (await tx.collection(SCHEDULED).findOne({ _id: id }, { session: tx.session, projection: { _id: 1 } })) === null) {
            throw new StorageConflict('scheduled');
          }
        },
        async apply(tx) {
          // Re-checked by the delete itself: two publications racing cannot both remove it.
          if (id === null || (await tx.collection(SCHEDULED).deleteOne({ _id: id }, { session: tx.session })).deletedCount !== 1) throw new StorageConflict('scheduled');
        },
      });
    },
  };
}
