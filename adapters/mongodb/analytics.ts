// The admin dashboard's figures (AnalyticsRepository) as aggregation pipelines: every count and
// dimension is one or more parts, each a pipeline on one collection that yields
// { at, subject[, key] } documents, which daily, total and top then group by UTC day, over the
// range, or by key, counting distinct subjects. A count's parts never share a subject, so their
// results add up.

import type { AnalyticsCount, AnalyticsDimension, AnalyticsRepository, TimeRange } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { duplicateKeyOf } from './errors.ts';
import { C } from './schema.ts';
import { lookupId, type Doc } from './values.ts';

const DAY = 86_400_000;

interface Part {
  collection: string;
  /** The time field of the collection's own documents, matched first (uses its index). */
  timeField?: string;
  /** Stages before the range is matched on `at`. */
  stages: Doc[];
}

const join = (from: string, localField: string, foreignField: string, as: string): Doc[] => [
  { $lookup: { from, localField, foreignField, as } },
  { $unwind: `$${as}` },
];
const ofAuthor = join(C.accounts, 'accountId', '_id', 'a');
/** Accounts of the domain, or with `subdomains` also of its subdomains. */
function domainMatch(count: { domain: string; subdomains?: boolean }): Doc {
  if (count.subdomains !== true) return { domain: count.domain };
  return { $or: [{ domain: count.domain }, { domain: { $regex: `\\.${count.domain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` } }] };
}
/** The accounts of a domain, then what they joined to (one document each). */
const ofDomain = (count: { domain: string; subdomains?: boolean }, from: string, foreignField: string): Doc[] => [{ $match: domainMatch(count) }, ...join(from, '_id', foreignField, 'x')];
const LIVE = { deletedAt: null };

function countParts(count: AnalyticsCount): Part[] {
  switch (count.what) {
    case 'activeUsers':
      return [{ collection: C.accountActivity, timeField: 'day', stages: [{ $project: { at: '$day', subject: '$accountId' } }] }];
    case 'newUsers':
      return [{ collection: C.accounts, timeField: 'user.createdAt', stages: [{ $match: { user: { $type: 'object' } } }, { $project: { at: '$user.createdAt', subject: '$_id' } }] }];
    case 'openedReports':
      return [{ collection: C.reports, timeField: 'createdAt', stages: [{ $project: { at: '$createdAt', subject: '$_id' } }] }];
    case 'resolvedReports':
      return [{ collection: C.reports, timeField: 'actionTakenAt', stages: [{ $match: { actionTakenAt: { $type: 'number' } } }, { $project: { at: '$actionTakenAt', subject: '$_id' } }] }];
    case 'interactions':
      return [
        {
          collection: C.favourites,
          timeField: 'createdAt',
          stages: [...ofAuthor, { $match: { 'a.domain': null } }, { $project: { at: '$createdAt', subject: '$_id' } }],
        },
        {
          collection: C.statuses,
          timeField: 'createdAt',
          stages: [
            { $match: { local: true, ...LIVE } },
            { $project: { at: '$createdAt', subject: '$_id', reblogOfId: 1, inReplyToId: 1, self: { $eq: ['$inReplyToAccountId', '$accountId'] } } },
            { $match: { $or: [{ reblogOfId: { $type: 'string' } }, { inReplyToId: { $type: 'string' }, self: false }] } },
          ],
        },
      ];
    case 'tagUses':
    case 'tagAccounts':
      return [
        {
          collection: C.statuses,
          timeField: 'createdAt',
          stages: [{ $match: { tags: count.tag, ...LIVE } }, { $project: { at: '$createdAt', subject: count.what === 'tagUses' ? '$_id' : '$accountId' } }],
        },
      ];
    case 'tagServers':
      return [
        {
          collection: C.statuses,
          timeField: 'createdAt',
          stages: [{ $match: { tags: count.tag, ...LIVE } }, ...ofAuthor, { $match: { 'a.domain': { $type: 'string' } } }, { $project: { at: '$createdAt', subject: '$a.domain' } }],
        },
      ];
    case 'domainAccounts':
      return [{ collection: C.accounts, timeField: 'createdAt', stages: [{ $match: domainMatch(count) }, { $project: { at: '$createdAt', subject: '$_id' } }] }];
    case 'domainStatuses':
      return [{ collection: C.accounts, stages: [...ofDomain(count, C.statuses, 'accountId'), { $match: { 'x.deletedAt': null } }, { $project: { at: '$x.createdAt', subject: '$x._id' } }] }];
    case 'domainReports':
      return [{ collection: C.accounts, stages: [...ofDomain(count, C.reports, 'targetAccountId'), { $project: { at: '$x.createdAt', subject: '$x._id' } }] }];
    case 'domainFollows':
    case 'domainFollowers':
      return [
        {
          collection: C.accounts,
          stages: [
            ...ofDomain(count, C.follows, count.what === 'domainFollows' ? 'targetAccountId' : 'accountId'),
            { $match: { 'x.kind': 'follow' } },
            { $project: { at: '$x.createdAt', subject: '$x._id' } },
          ],
        },
      ];
  }
}

function dimensionPart(dimension: Exclude<AnalyticsDimension, { what: 'domainAccounts' }>): Part {
  switch (dimension.what) {
    case 'languages':
      return {
        collection: C.accountActivity,
        timeField: 'day',
        stages: [...join(C.accounts, 'accountId', '_id', 'a'), { $project: { at: '$day', key: '$a.user.locale', subject: '$accountId' } }],
      };
    case 'sources':
      return {
        collection: C.accounts,
        timeField: 'user.createdAt',
        stages: [
          { $match: { user: { $type: 'object' } } },
          { $lookup: { from: C.applications, localField: 'user.createdByApplicationId', foreignField: '_id', as: 'app' } },
          { $project: { at: '$user.createdAt', key: { $ifNull: [{ $arrayElemAt: ['$app.name', 0] }, null] }, subject: '$_id' } },
        ],
      };
    case 'servers':
      return { collection: C.statuses, timeField: 'createdAt', stages: [{ $match: LIVE }, ...ofAuthor, { $project: { at: '$createdAt', key: '$a.domain', subject: '$_id' } }] };
    case 'tagServers':
      return {
        collection: C.statuses,
        timeField: 'createdAt',
        stages: [{ $match: { tags: dimension.tag, ...LIVE } }, ...ofAuthor, { $project: { at: '$createdAt', key: '$a.domain', subject: '$_id' } }],
      };
    case 'tagLanguages':
      return { collection: C.statuses, timeField: 'createdAt', stages: [{ $match: { tags: dimension.tag, ...LIVE } }, { $project: { at: '$createdAt', key: '$language', subject: '$_id' } }] };
    case 'domainLanguages':
      return {
        collection: C.accounts,
        stages: [...ofDomain(dimension, C.statuses, 'accountId'), { $match: { 'x.deletedAt': null } }, { $project: { at: '$x.createdAt', key: '$x.language', subject: '$x._id' } }],
      };
  }
}

const whole = (n: number): number => (Number.isFinite(n) ? Math.trunc(n) : 0);

/** The part's pipeline, kept to [from, to). */
function inRange(part: Part, range: TimeRange | null): Doc[] {
  if (range === null) return part.stages;
  const span = { $gte: whole(range.from), $lt: whole(range.to) };
  return [...(part.timeField === undefined ? [] : [{ $match: { [part.timeField]: span } }]), ...part.stages, { $match: { at: span } }];
}

export function analyticsRepository(m: Mongo): AnalyticsRepository {
  const run = async (part: Part, stages: Doc[]): Promise<Doc[]> => (await m.collection(part.collection).aggregate(stages).toArray()) as Doc[];
  return {
    async recordActivity(accountId, day) {
      const id = lookupId(accountId);
      if (id === null) return;
      const d = whole(day);
      try {
        await m.collection(C.accountActivity).updateOne({ _id: `${id}:${d}` }, { $setOnInsert: { day: d, accountId: id } }, { upsert: true });
      } catch (error) {
        // Two processes recording the same day at once: one upsert inserts, the other may find
        // the _id taken; the day is recorded either way.
        if (duplicateKeyOf(error) === null) throw error;
      }
    },
    async daily(count, from, days) {
      const n = Math.max(0, Math.min(whole(days), 10_000));
      const out = new Array<number>(n).fill(0);
      if (n === 0) return out;
      const start = whole(from);
      for (const part of countParts(count)) {
        const rows = await run(part, [
          ...inRange(part, { from: start, to: start + n * DAY }),
          { $group: { _id: { d: { $floor: { $divide: [{ $subtract: ['$at', start] }, DAY] } }, s: '$subject' } } },
          { $group: { _id: '$_id.d', n: { $sum: 1 } } },
        ]);
        for (const r of rows) {
          const d = Number(r['_id']);
          if (d >= 0 && d < n) out[d] = (out[d] ?? 0) + Number(r['n']);
        }
      }
      return out;
    },
    async total(count, range) {
      let sum = 0;
      for (const part of countParts(count)) {
        const [r] = await run(part, [...inRange(part, range), { $group: { _id: '$subject' } }, { $count: 'n' }]);
        sum += r === undefined ? 0 : Number(r['n']);
      }
      return sum;
    },
    async top(dimension, range, limit) {
      const cap = Math.max(0, whole(limit));
      if (cap === 0) return [];
      const order: Doc[] = [{ $addFields: { none: { $eq: [{ $ifNull: ['$_id', null] }, null] } } }, { $sort: { n: -1, none: 1, _id: 1 } }, { $limit: cap }];
      let rows: Doc[];
      if (dimension.what === 'domainAccounts') {
        rows = await m
          .collection(C.accounts)
          .aggregate([
            { $match: { domain: dimension.domain } },
            { $lookup: { from: C.follows, localField: '_id', foreignField: 'targetAccountId', as: 'f' } },
            { $project: { _id: '$username', n: { $size: { $filter: { input: '$f', cond: { $eq: ['$$this.kind', 'follow'] } } } } } },
            ...order,
          ])
          .toArray();
      } else {
        const part = dimensionPart(dimension);
        rows = await run(part, [...inRange(part, range), { $group: { _id: { k: '$key', s: '$subject' } } }, { $group: { _id: '$_id.k', n: { $sum: 1 } } }, ...order]);
      }
      return rows.map((r) => ({ key: typeof r['_id'] === 'string' ? r['_id'] : null, count: Number(r['n']) }));
    },
    async retention(range) {
      const rows = await m
        .collection(C.accounts)
        .aggregate([
          { $match: { user: { $type: 'object' }, 'user.createdAt': { $gte: whole(range.from), $lt: whole(range.to) } } },
          { $lookup: { from: C.accountActivity, localField: '_id', foreignField: 'accountId', as: 'act' } },
          {
            $group: {
              _id: { signed: { $subtract: ['$user.createdAt', { $mod: ['$user.createdAt', DAY] }] }, last: { $ifNull: [{ $max: '$act.day' }, null] } },
              n: { $sum: 1 },
            },
          },
        ])
        .toArray();
      return rows.map((r) => {
        const g = r['_id'] as Doc;
        return { signedUpDay: Number(g['signed']), lastActiveDay: typeof g['last'] === 'number' ? g['last'] : null, users: Number(r['n']) };
      });
    },
  };
}
