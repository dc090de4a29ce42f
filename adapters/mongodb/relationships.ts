// Follows, follow requests, blocks, mutes, domain blocks. Follows and requests share `follows`
// (`kind`), under one unique index per (account, target): a pair holds a follow or a request,
// never both, and following replaces the request. Writes that move counters or remove several
// documents (follow, unfollow, block) are transactions; the others are single-document writes
// (compare-and-set, with their jobs in the document), or a delete with its jobs in a transaction.

import type { Block, Follow, Id, Millis, Mute } from '../../core/domain/model.ts';
import type { DomainBlock, HiddenState, RelationshipFacts, RelationshipRepository } from '../../core/domain/ports/storage.ts';
import { bump, type Mongo } from './db.ts';
import { applyOps, type Op } from './statuses.ts';
import { C } from './schema.ts';
import { counterUpdate, inPageOrder, num, pageQuery, pairKey, stored, validIds, withRange, type Doc, type PageQuery } from './values.ts';
import { compareIds } from '../../core/domain/ids.ts';

export type FollowKind = 'follow' | 'request';

export function followDoc(f: Follow, kind: FollowKind): Doc {
  return {
    _id: f.id,
    num: num(f.id),
    kind,
    accountId: f.accountId,
    targetAccountId: f.targetAccountId,
    showReblogs: f.showReblogs,
    notify: f.notify,
    languages: f.languages,
    createdAt: f.createdAt,
  };
}

export function followFromDoc(d: Doc): Follow {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    targetAccountId: d['targetAccountId'] as Id,
    showReblogs: d['showReblogs'] as boolean,
    notify: d['notify'] as boolean,
    languages: d['languages'] as string[] | null,
    createdAt: d['createdAt'] as number,
  };
}

export const followOptions = (f: Follow): Doc => ({ $set: { showReblogs: f.showReblogs, notify: f.notify, languages: f.languages } });

/** The follower's followingCount and the target's followersCount. */
export function followCounters(accountId: Id, targetId: Id, delta: 1 | -1): Op[] {
  return [
    { collection: C.accounts, ...counterUpdate(accountId, 'followingCount', delta) },
    { collection: C.accounts, ...counterUpdate(targetId, 'followersCount', delta) },
  ];
}

export function blockDoc(b: Block): Doc {
  return { _id: b.id, num: num(b.id), accountId: b.accountId, targetAccountId: b.targetAccountId, createdAt: b.createdAt };
}

export function blockFromDoc(d: Doc): Block {
  return { id: d['_id'] as Id, accountId: d['accountId'] as Id, targetAccountId: d['targetAccountId'] as Id, createdAt: d['createdAt'] as number };
}

export function muteDoc(m: Mute): Doc {
  return {
    _id: m.id,
    num: num(m.id),
    accountId: m.accountId,
    targetAccountId: m.targetAccountId,
    notifications: m.notifications,
    expiresAt: m.expiresAt,
    createdAt: m.createdAt,
  };
}

export function muteFromDoc(d: Doc): Mute {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    targetAccountId: d['targetAccountId'] as Id,
    notifications: d['notifications'] as boolean,
    expiresAt: d['expiresAt'] as number | null,
    createdAt: d['createdAt'] as number,
  };
}

/** A domain block, its domain in lower case. */
export function domainBlockDoc(b: DomainBlock): Doc {
  return { _id: b.id, num: num(b.id), accountId: b.accountId, domain: b.domain.toLowerCase(), createdAt: b.createdAt };
}

export function domainBlockFromDoc(d: Doc): DomainBlock {
  return { id: d['_id'] as Id, accountId: d['accountId'] as Id, domain: d['domain'] as string, createdAt: d['createdAt'] as number };
}

/** A mute that has not ended by `now`. */
export const liveMute = (now: Millis): Doc => ({ $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });

/** Follows (or requests) of one side of a pair, paged by their id. */
export function followPageFilter(side: 'accountId' | 'targetAccountId', id: Id, kind: FollowKind, page: PageQuery): Doc {
  return withRange({ [side]: id, kind }, page);
}

/** The follows of an account by local accounts, newest first; only those that asked to be
 * told of its posts when `notified`. */
export function localFollowersPipeline(targetId: Id, notified = false): Doc[] {
  return [
    { $match: notified ? { targetAccountId: targetId, kind: 'follow', notify: true } : { targetAccountId: targetId, kind: 'follow' } },
    {
      $lookup: {
        from: C.accounts,
        localField: 'accountId',
        foreignField: '_id',
        pipeline: [{ $match: { domain: null } }, { $project: { _id: 1 } }],
        as: 'local',
      },
    },
    { $match: { 'local.0': { $exists: true } } },
    { $sort: { num: -1 } },
    { $project: { local: 0 } },
  ];
}

/** The follows of an account by remote accounts, paged by the follow's id. */
export function remoteFollowersPipeline(targetId: Id, page: PageQuery): Doc[] {
  return [
    { $match: followPageFilter('targetAccountId', targetId, 'follow', page) },
    { $sort: { num: page.sort } },
    {
      $lookup: {
        from: C.accounts,
        localField: 'accountId',
        foreignField: '_id',
        pipeline: [{ $match: { domain: { $ne: null } } }, { $project: { _id: 1 } }],
        as: 'remote',
      },
    },
    { $match: { 'remote.0': { $exists: true } } },
    { $limit: page.limit },
    { $project: { remote: 0 } },
  ];
}

/** How many follows a suggestion read looks at (the viewer's; ten times that of theirs). */
const SUGGESTION_SCAN = 2000;

export function relationshipRepository(m: Mongo): RelationshipRepository {
  const follows = m.collection(C.follows);
  const blocks = m.collection(C.blocks);
  const mutes = m.collection(C.mutes);
  const domainBlocks = m.collection(C.domainBlocks);

  const paged = async <T>(collection: string, filter: (p: PageQuery) => Doc, page: Parameters<RelationshipRepository['blocksBy']>[1], map: (d: Doc) => T): Promise<T[]> => {
    const p = pageQuery(page);
    if (p.empty) return [];
    const docs = await m.collection(collection).find(filter(p)).sort({ num: p.sort }).limit(p.limit).toArray();
    return inPageOrder(docs.map(map), p);
  };
  const ids = async (collection: string, filter: Doc, field: string): Promise<Set<Id>> =>
    new Set((await m.collection(collection).find(filter, { projection: { [field]: 1 } }).toArray()).map((d) => d[field] as Id));

  return {
    async follow(f, outbox) {
      return m.withOutbox(
        outbox,
        async (tx) => {
          const coll = tx.collection(C.follows);
          const existing = await coll.findOne({ accountId: f.accountId, targetAccountId: f.targetAccountId }, { session: tx.session });
          if (existing?.['kind'] === 'follow') {
            await coll.updateOne({ _id: existing['_id'] as Id }, bump(followOptions(f)), { session: tx.session });
            return 'updated' as const;
          }
          // A pending request between them becomes the follow.
          if (existing) await coll.deleteOne({ _id: existing['_id'] as Id }, { session: tx.session });
          await coll.insertOne(stored(followDoc(f, 'follow')), { session: tx.session });
          await applyOps(tx, followCounters(f.accountId, f.targetAccountId, 1));
          return 'created' as const;
        },
        [`${C.follows}.follows_pair`],
      );
    },
    async unfollow(accountId, targetId, outbox) {
      return m.withOutbox(outbox, async (tx) => {
        const removed = await tx.collection(C.follows).findOneAndDelete({ accountId, targetAccountId: targetId, kind: 'follow' }, { session: tx.session });
        if (removed === null) return false;
        await applyOps(tx, followCounters(accountId, targetId, -1));
        return true;
      });
    },
    async getFollow(accountId, targetId) {
      const d = await follows.findOne({ accountId, targetAccountId: targetId, kind: 'follow' });
      return d ? followFromDoc(d) : null;
    },
    async requestFollow(r, outbox) {
      return m.cas(
        {
          collection: C.follows,
          read: () => follows.findOne({ accountId: r.accountId, targetAccountId: r.targetAccountId }),
          decide: (current) => {
            if (current === null) return { result: 'created' as const, write: { insert: followDoc(r, 'request') } };
            if (current['kind'] === 'request') return { result: 'exists' as const, write: { update: followOptions(r) } };
            return { result: 'exists' as const, write: null };
          },
          outbox,
        },
        [`${C.follows}.follows_pair`],
      );
    },
    async cancelFollowRequest(accountId, targetId, outbox) {
      return m.deleteOne(C.follows, { accountId, targetAccountId: targetId, kind: 'request' }, outbox);
    },
    async followRequestsTo(targetId, page) {
      return paged(C.follows, (p) => followPageFilter('targetAccountId', targetId, 'request', p), page, followFromDoc);
    },
    async followRequestsBy(accountId, page) {
      return paged(C.follows, (p) => followPageFilter('accountId', accountId, 'request', p), page, followFromDoc);
    },
    async followersOf(targetId, page) {
      return paged(C.follows, (p) => followPageFilter('targetAccountId', targetId, 'follow', p), page, followFromDoc);
    },
    async followingOf(accountId, page) {
      return paged(C.follows, (p) => followPageFilter('accountId', accountId, 'follow', p), page, followFromDoc);
    },
    async familiarFollows(viewerId, targetIds, limit) {
      const others = validIds(targetIds);
      if (others.length === 0 || limit <= 0) return [];
      const followed = (await follows.find({ accountId: viewerId, kind: 'follow' }, { projection: { targetAccountId: 1 } }).toArray()).map((d) => d['targetAccountId']);
      if (followed.length === 0) return [];
      const docs = await follows
        .find({ targetAccountId: { $in: others }, accountId: { $in: followed }, kind: 'follow' })
        .sort({ num: -1 })
        .limit(Math.trunc(limit))
        .toArray();
      return docs.map(followFromDoc);
    },
    async suggestions(viewerId, limit) {
      if (limit <= 0) return [];
      // Bounded reads: the viewer's newest follows and requests, and the follows of those it follows.
      const mine = await follows.find({ accountId: viewerId }, { projection: { targetAccountId: 1, kind: 1 } }).sort({ num: -1 }).limit(SUGGESTION_SCAN).toArray();
      const dismissed = await m.collection(C.suggestionDismissals).find({ accountId: viewerId }, { projection: { targetAccountId: 1 } }).limit(SUGGESTION_SCAN).toArray();
      const excluded = new Set<Id>([viewerId, ...mine.map((d) => d['targetAccountId'] as Id), ...dismissed.map((d) => d['targetAccountId'] as Id)]);
      const followed = mine.filter((d) => d['kind'] === 'follow').map((d) => d['targetAccountId'] as Id);
      const counts = new Map<Id, number>();
      if (followed.length > 0) {
        const second = await follows
          .find({ accountId: { $in: followed }, kind: 'follow' }, { projection: { targetAccountId: 1 } })
          .sort({ num: -1 })
          .limit(SUGGESTION_SCAN * 10)
          .toArray();
        for (const d of second) {
          const target = d['targetAccountId'] as Id;
          if (!excluded.has(target)) counts.set(target, (counts.get(target) ?? 0) + 1);
        }
      }
      const accounts = m.collection(C.accounts);
      const candidates = await accounts.find({ _id: { $in: [...counts.keys()] }, discoverable: true }, { projection: { followersCount: 1 } }).toArray();
      const friends = candidates
        .map((d) => ({ id: d['_id'] as Id, n: counts.get(d['_id'] as Id) ?? 0, followers: d['followersCount'] as number }))
        .sort((a, b) => b.n - a.n || b.followers - a.followers || compareIds(b.id, a.id))
        .slice(0, Math.trunc(limit))
        .map((c) => ({ accountId: c.id, source: 'friends_of_friends' as const }));
      if (friends.length >= limit) return friends;
      for (const f of friends) excluded.add(f.accountId);
      const popular = await accounts
        .find({ domain: null, discoverable: true, followersCount: { $gt: 0 }, _id: { $nin: [...excluded] } }, { projection: { followersCount: 1 } })
        .sort({ followersCount: -1, num: -1 })
        .limit(Math.trunc(limit) - friends.length)
        .toArray();
      return [...friends, ...popular.map((d) => ({ accountId: d['_id'] as Id, source: 'most_followed' as const }))];
    },
    async dismissSuggestion(accountId, targetId, createdAt) {
      await m
        .collection(C.suggestionDismissals)
        .updateOne({ _id: pairKey(accountId, targetId) }, { $setOnInsert: { accountId, targetAccountId: targetId, createdAt } }, { upsert: true });
    },
    async localFollowers(targetId) {
      return (await follows.aggregate(localFollowersPipeline(targetId)).toArray()).map(followFromDoc);
    },
    async notifiedFollowers(targetId) {
      return (await follows.aggregate(localFollowersPipeline(targetId, true)).toArray()).map(followFromDoc);
    },
    async remoteFollowersOf(targetId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      return inPageOrder((await follows.aggregate(remoteFollowersPipeline(targetId, p)).toArray()).map(followFromDoc), p);
    },
    async block(b, outbox) {
      return m.withOutbox(
        outbox,
        async (tx) => {
          if (await tx.collection(C.blocks).findOne({ accountId: b.accountId, targetAccountId: b.targetAccountId }, { session: tx.session })) return false;
          await tx.collection(C.blocks).insertOne(stored(blockDoc(b)), { session: tx.session });
          for (const [x, y] of [[b.accountId, b.targetAccountId], [b.targetAccountId, b.accountId]] as const) {
            const removed = await tx.collection(C.follows).findOneAndDelete({ accountId: x, targetAccountId: y }, { session: tx.session });
            if (removed?.['kind'] === 'follow') await applyOps(tx, followCounters(x, y, -1));
          }
          return true;
        },
        [`${C.blocks}.blocks_pair`],
      );
    },
    async unblock(accountId, targetId, outbox) {
      return m.deleteOne(C.blocks, { accountId, targetAccountId: targetId }, outbox);
    },
    async blocksBy(accountId, page) {
      return paged(C.blocks, (p) => withRange({ accountId }, p), page, blockFromDoc);
    },
    async mute(mu, outbox) {
      return m.cas(
        {
          collection: C.mutes,
          read: () => mutes.findOne({ accountId: mu.accountId, targetAccountId: mu.targetAccountId }),
          decide: (current) =>
            current === null
              ? { result: true, write: { insert: muteDoc(mu) } }
              : { result: false, write: { update: { $set: { notifications: mu.notifications, expiresAt: mu.expiresAt } } } },
          outbox,
        },
        [`${C.mutes}.mutes_pair`],
      );
    },
    async unmute(accountId, targetId, outbox) {
      return m.deleteOne(C.mutes, { accountId, targetAccountId: targetId }, outbox);
    },
    async nextMuteEnd(accountId, after) {
      const [first] = await mutes.find({ accountId, expiresAt: { $gt: after } }).sort({ expiresAt: 1 }).limit(1).toArray();
      return first === undefined ? null : (first['expiresAt'] as number);
    },
    async mutesBy(accountId, page) {
      return paged(C.mutes, (p) => withRange({ accountId }, p), page, muteFromDoc);
    },
    async relationships(accountId, targetIds) {
      const others = validIds(targetIds);
      if (targetIds.length === 0) return [];
      const among = { $in: others };
      const [mine, theirs, blocking, blockedBy, muting, domains, remote] = await Promise.all([
        follows.find({ accountId, targetAccountId: among }).toArray(),
        follows.find({ targetAccountId: accountId, accountId: among }, { projection: { accountId: 1, kind: 1 } }).toArray(),
        ids(C.blocks, { accountId, targetAccountId: among }, 'targetAccountId'),
        ids(C.blocks, { targetAccountId: accountId, accountId: among }, 'accountId'),
        mutes.find({ accountId, targetAccountId: among }).toArray(),
        ids(C.domainBlocks, { accountId }, 'domain'),
        m.collection(C.accounts).find({ _id: among, domain: { $ne: null } }, { projection: { domainKey: 1 } }).toArray(),
      ]);
      const following = new Map<Id, Follow>();
      const requested = new Map<Id, Follow>();
      for (const d of mine) (d['kind'] === 'follow' ? following : requested).set(d['targetAccountId'] as Id, followFromDoc(d));
      const followedBy = new Set(theirs.filter((d) => d['kind'] === 'follow').map((d) => d['accountId'] as Id));
      const requestedBy = new Set(theirs.filter((d) => d['kind'] === 'request').map((d) => d['accountId'] as Id));
      const muted = new Map(muting.map((d) => [d['targetAccountId'] as Id, muteFromDoc(d)]));
      const domainBlocked = new Set(remote.filter((d) => domains.has(d['domainKey'] as string)).map((d) => d['_id'] as Id));
      return targetIds.map(
        (targetId): RelationshipFacts => ({
          targetId,
          following: following.get(targetId) ?? null,
          followedBy: followedBy.has(targetId),
          requested: requested.get(targetId) ?? null,
          requestedBy: requestedBy.has(targetId),
          blocking: blocking.has(targetId),
          blockedBy: blockedBy.has(targetId),
          muting: muted.get(targetId) ?? null,
          domainBlocking: domainBlocked.has(targetId),
        }),
      );
    },
    async hiddenFrom(accountId, accountIds, now) {
      const among = { $in: validIds(accountIds) };
      const found = await Promise.all([
        ids(C.blocks, { accountId, targetAccountId: among }, 'targetAccountId'),
        ids(C.blocks, { targetAccountId: accountId, accountId: among }, 'accountId'),
        ids(C.mutes, { accountId, targetAccountId: among, ...liveMute(now) }, 'targetAccountId'),
      ]);
      return new Set(found.flatMap((s) => [...s]));
    },
    async blockDomain(b, outbox) {
      const domain = b.domain.toLowerCase();
      return m.cas(
        {
          collection: C.domainBlocks,
          read: () => domainBlocks.findOne({ accountId: b.accountId, domain }),
          decide: (current) => (current === null ? { result: true, write: { insert: domainBlockDoc(b) } } : { result: false, write: null }),
          outbox,
        },
        [`${C.domainBlocks}.domain_blocks_pair`],
      );
    },
    async unblockDomain(accountId, domain, outbox) {
      return m.deleteOne(C.domainBlocks, { accountId, domain: domain.toLowerCase() }, outbox);
    },
    async domainBlocksBy(accountId, page) {
      return paged(C.domainBlocks, (p) => withRange({ accountId }, p), page, domainBlockFromDoc);
    },
    async hiddenState(accountId, now): Promise<HiddenState> {
      const [blocking, blockedBy, muting, domains] = await Promise.all([
        blocks.find({ accountId }, { projection: { targetAccountId: 1 } }).sort({ num: 1 }).toArray(),
        blocks.find({ targetAccountId: accountId }, { projection: { accountId: 1 } }).toArray(),
        mutes.find({ accountId, ...liveMute(now) }, { projection: { targetAccountId: 1, expiresAt: 1 } }).sort({ num: 1 }).toArray(),
        domainBlocks.find({ accountId }, { projection: { domain: 1 } }).sort({ num: 1 }).toArray(),
      ]);
      return {
        blocking: blocking.map((d) => d['targetAccountId'] as Id),
        blockedBy: blockedBy.map((d) => d['accountId'] as Id),
        muting: muting.map((d) => ({ accountId: d['targetAccountId'] as Id, expiresAt: d['expiresAt'] as number | null })),
        domains: domains.map((d) => d['domain'] as string),
      };
    },
  };
}
