// Followed hashtags and endorsements: one document per pair (`_id` "account:tag" or
// "account:target"), so following twice is one upsert. Featured hashtags: one document per
// account holding its list, so the limit and the uniqueness are one conditional $push. Hashtag
// uses are read from the statuses' `tags` arrays.

import type { Endorsement, FeaturedTag, Id, TagFollow } from '../../core/domain/model.ts';
import type { EndorsementRepository, TagRepository, TagUseQuery } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { duplicateKeyOf } from './errors.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, pairKey, validIds, withRange, type Doc } from './values.ts';

function followFromDoc(d: Doc): TagFollow {
  return { id: d['id'] as Id, accountId: d['accountId'] as Id, tag: d['tag'] as string, name: d['name'] as string, createdAt: d['createdAt'] as number };
}

function featuredFromEntry(accountId: Id, e: Doc): FeaturedTag {
  return { id: e['id'] as Id, accountId, tag: e['tag'] as string, name: e['name'] as string, createdAt: e['createdAt'] as number };
}

function endorsementFromDoc(d: Doc): Endorsement {
  return { id: d['id'] as Id, accountId: d['accountId'] as Id, targetId: d['targetId'] as Id, createdAt: d['createdAt'] as number };
}

/** An upsert that only inserts: false when the document was already there (a racing insert of
 * the same `_id` counts as there). */
async function insertOnce(m: Mongo, collection: string, _id: string, fields: Doc): Promise<boolean> {
  try {
    const r = await m.collection(collection).updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
    return r.upsertedCount === 1;
  } catch (error) {
    if (duplicateKeyOf(error)?.index === '_id_') return false;
    throw m.translate(error);
  }
}

const pushEntry = (entry: Doc): Doc => ({ $push: { tags: entry } });
const pullEntry = (id: Id): Doc => ({ $pull: { tags: { id } } });

function statusMatch(q: { since?: number; visibilities: readonly string[]; excludeReblogs?: boolean | undefined; tags?: readonly string[] | undefined; accountId?: Id | undefined }): Doc {
  const match: Doc = { deletedAt: null, visibility: { $in: [...q.visibilities] } };
  if (q.since !== undefined) match['createdAt'] = { $gte: q.since };
  if (q.excludeReblogs) match['reblogOfId'] = null;
  if (q.tags !== undefined) match['tags'] = { $in: [...q.tags] };
  if (q.accountId !== undefined) match['accountId'] = q.accountId;
  return match;
}

export function tagRepository(m: Mongo): TagRepository {
  const follows = m.collection(C.tagFollows);
  const featured = m.collection(C.featuredTags);
  const statuses = m.collection(C.statuses);
  return {
    async follow(f) {
      const _id = pairKey(f.accountId, f.tag);
      await insertOnce(m, C.tagFollows, _id, { id: f.id, num: num(f.id), accountId: f.accountId, tag: f.tag, name: f.name, createdAt: f.createdAt });
      const d = await follows.findOne({ _id });
      if (d === null) throw new Error('the tag follow just written is missing');
      return followFromDoc(d);
    },
    async unfollow(accountId, tag) {
      return (await follows.deleteOne({ _id: pairKey(accountId, tag) })).deletedCount === 1;
    },
    async followedBy(accountId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const docs = await follows.find(withRange({ accountId }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(followFromDoc), p);
    },
    async followedAmong(accountId, tags) {
      if (tags.length === 0) return [];
      return (await follows.find({ accountId, tag: { $in: [...tags] } }, { projection: { tag: 1 } }).toArray()).map((d) => d['tag'] as string);
    },
    async followersOf(tags) {
      if (tags.length === 0) return [];
      const ids = (await follows.find({ tag: { $in: [...tags] } }, { projection: { accountId: 1 } }).toArray()).map((d) => d['accountId'] as Id);
      return [...new Set(ids)];
    },
    async feature(f, max) {
      await insertOnce(m, C.featuredTags, f.accountId, { tags: [] });
      const cap = Math.max(0, Math.trunc(max));
      const entry = { id: f.id, num: num(f.id), tag: f.tag, name: f.name, createdAt: f.createdAt };
      const filter: Doc = { _id: f.accountId, 'tags.tag': { $ne: f.tag } };
      if (cap > 0) filter[`tags.${cap - 1}`] = { $exists: false };
      if (cap > 0 && (await featured.updateOne(filter, pushEntry(entry))).modifiedCount === 1) return { result: 'added', featured: { ...f } };
      const d = await featured.findOne({ _id: f.accountId });
      const found = ((d?.['tags'] as Doc[] | undefined) ?? []).find((e) => e['tag'] === f.tag);
      return found === undefined ? { result: 'limit', featured: null } : { result: 'exists', featured: featuredFromEntry(f.accountId, found) };
    },
    async unfeature(accountId, featuredId) {
      const k = lookupId(featuredId);
      if (k === null) return false;
      return (await featured.updateOne({ _id: accountId, 'tags.id': k }, pullEntry(k))).modifiedCount === 1;
    },
    async featuredBy(accountId) {
      const d = await featured.findOne({ _id: accountId });
      const entries = ((d?.['tags'] as Doc[] | undefined) ?? []).map((e) => featuredFromEntry(accountId, e));
      return entries.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    },
    async statsOf(accountId, tags, visibilities) {
      if (tags.length === 0) return [];
      const wanted = [...tags];
      const rows = await statuses
        .aggregate([
          { $match: statusMatch({ accountId, tags: wanted, visibilities }) },
          { $project: { tags: 1, createdAt: 1 } },
          { $unwind: '$tags' },
          { $match: { tags: { $in: wanted } } },
          { $group: { _id: '$tags', n: { $sum: 1 }, last: { $max: '$createdAt' } } },
        ])
        .toArray();
      return rows.map((r) => ({ tag: r['_id'] as string, count: r['n'] as number, lastStatusAt: r['last'] as number }));
    },
    async uses(q: TagUseQuery, limit) {
      const cap = Math.max(0, Math.trunc(limit));
      if (cap === 0) return [];
      const stages: Doc[] = [
        { $match: { ...statusMatch(q), 'tags.0': { $exists: true } } },
        { $sort: { num: -1 } },
        { $limit: cap },
        { $project: { tags: 1, accountId: 1, createdAt: 1, num: 1 } },
        { $unwind: '$tags' },
      ];
      if (q.tags !== undefined) stages.push({ $match: { tags: { $in: [...q.tags] } } });
      stages.push({ $sort: { num: -1, tags: 1 } }, { $limit: cap });
      const rows = await statuses.aggregate(stages).toArray();
      return rows.map((r) => ({ tag: r['tags'] as string, statusId: r['_id'] as Id, accountId: r['accountId'] as Id, createdAt: r['createdAt'] as number }));
    },
  };
}

export function endorsementRepository(m: Mongo): EndorsementRepository {
  const endorsements = m.collection(C.endorsements);
  return {
    async endorse(e) {
      return insertOnce(m, C.endorsements, pairKey(e.accountId, e.targetId), { id: e.id, num: num(e.id), accountId: e.accountId, targetId: e.targetId, createdAt: e.createdAt });
    },
    async unendorse(accountId, targetId) {
      return (await endorsements.deleteOne({ _id: pairKey(accountId, targetId) })).deletedCount === 1;
    },
    async endorsedBy(accountId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const docs = await endorsements.find(withRange({ accountId }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(endorsementFromDoc), p);
    },
    async endorsedAmong(accountId, targetIds) {
      const wanted = validIds(targetIds);
      if (wanted.length === 0) return [];
      return (await endorsements.find({ accountId, targetId: { $in: wanted } }, { projection: { targetId: 1 } }).toArray()).map((d) => d['targetId'] as Id);
    },
  };
}
