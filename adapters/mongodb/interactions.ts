// Favourites, bookmarks, pins, conversation mutes. A favourite moves its status's counter: the
// mark and the counter are two documents, so (un)favouriting is a transaction. A bookmark is one
// document under the unique (account, status) index. Pins live in the pinning account's document
// (`pins`), so the limit is one conditional update: push only while the array is shorter than
// the limit and does not hold the status.

import { compareIds } from '../../core/domain/ids.ts';
import type { Id, StatusMark } from '../../core/domain/model.ts';
import type { InteractionRepository, Page, ViewerState } from '../../core/domain/ports/storage.ts';
import { duplicateKeyOf } from './errors.ts';
import { bump, type Mongo } from './db.ts';
import { applyOps } from './statuses.ts';
import { C } from './schema.ts';
import { counterUpdate, inPageOrder, num, pageQuery, pairKey, stored, validIds, withRange, type Doc, type PageQuery } from './values.ts';

export function markDoc(m: StatusMark): Doc {
  return { _id: m.id, num: num(m.id), accountId: m.accountId, statusId: m.statusId, createdAt: m.createdAt };
}

export function markFromDoc(d: Doc): StatusMark {
  return { id: d['_id'] as Id, accountId: d['accountId'] as Id, statusId: d['statusId'] as Id, createdAt: d['createdAt'] as number };
}

/** A bookmark unless (account, status) has one: the upsert inserts the filter's fields and the
 * mark's own; a taken mark id is a duplicate `_id` ('id'). */
export function markUpsert(m: StatusMark): { filter: Doc; update: Doc } {
  return { filter: { accountId: m.accountId, statusId: m.statusId }, update: { $setOnInsert: { _id: m.id, num: num(m.id), createdAt: m.createdAt } } };
}

/** An account's marks of live statuses, paged by the mark's id. */
export function liveMarksPipeline(accountId: Id, page: PageQuery): Doc[] {
  return [
    { $match: withRange({ accountId }, page) },
    { $sort: { num: page.sort } },
    {
      $lookup: {
        from: C.statuses,
        localField: 'statusId',
        foreignField: '_id',
        pipeline: [{ $match: { deletedAt: null } }, { $project: { _id: 1 } }],
        as: 'live',
      },
    },
    { $match: { 'live.0': { $exists: true } } },
    { $limit: page.limit },
    { $project: { live: 0 } },
  ];
}

export interface PinEntry {
  id: Id;
  num: unknown;
  statusId: Id;
  createdAt: number;
}

/** Pushes the pin while the account has fewer than `max` pins and none of this status; null
 * when `max` allows no pin at all. */
export function pinUpdate(m: StatusMark, max: number): { filter: Doc; update: Doc } | null {
  const limit = Math.trunc(max);
  if (limit <= 0) return null;
  return {
    filter: { _id: m.accountId, 'pins.statusId': { $ne: m.statusId }, [`pins.${limit - 1}`]: { $exists: false } },
    update: { $push: { pins: { id: m.id, num: num(m.id), statusId: m.statusId, createdAt: m.createdAt } } },
  };
}

export function unpinUpdate(accountId: Id, statusId: Id): { filter: Doc; update: Doc } {
  return { filter: { _id: accountId, 'pins.statusId': statusId }, update: { $pull: { pins: { statusId } } } };
}

/** Why a pin was not pushed, from the account's pins as read afterwards; null: it changed in
 * between (try again). */
export function pinRefusal(pins: readonly PinEntry[], statusId: Id, max: number): 'exists' | 'limit' | null {
  if (pins.some((p) => p.statusId === statusId)) return 'exists';
  if (pins.length >= Math.trunc(max)) return 'limit';
  return null;
}

const PIN_ATTEMPTS = 20;

export function interactionRepository(m: Mongo): InteractionRepository {
  const favourites = m.collection(C.favourites);
  const bookmarks = m.collection(C.bookmarks);
  const accounts = m.collection(C.accounts);
  const convMutes = m.collection(C.conversationMutes);

  const liveMarks = async (collection: string, accountId: Id, page: Page): Promise<StatusMark[]> => {
    const p = pageQuery(page);
    if (p.empty) return [];
    const docs = await m.collection(collection).aggregate(liveMarksPipeline(accountId, p)).toArray();
    return inPageOrder(docs.map(markFromDoc), p);
  };
  const pinsOf = async (accountId: Id): Promise<PinEntry[] | null> => {
    const d = await accounts.findOne({ _id: accountId }, { projection: { pins: 1 } });
    return d === null ? null : ((d['pins'] as PinEntry[] | undefined) ?? []);
  };
  const translated = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (error) {
      throw m.translate(error);
    }
  };

  return {
    async favourite(mark, outbox) {
      return m.withOutbox(
        outbox,
        async (tx) => {
          if (await tx.collection(C.favourites).findOne({ accountId: mark.accountId, statusId: mark.statusId }, { session: tx.session })) return false;
          await tx.collection(C.favourites).insertOne(stored(markDoc(mark)), { session: tx.session });
          await applyOps(tx, [{ collection: C.statuses, ...counterUpdate(mark.statusId, 'favouritesCount', 1) }]);
          return true;
        },
        [`${C.favourites}.favourites_pair`],
      );
    },
    async unfavourite(accountId, statusId, outbox) {
      return m.withOutbox(outbox, async (tx) => {
        const removed = await tx.collection(C.favourites).findOneAndDelete({ accountId, statusId }, { session: tx.session });
        if (removed === null) return false;
        await applyOps(tx, [{ collection: C.statuses, ...counterUpdate(statusId, 'favouritesCount', -1) }]);
        return true;
      });
    },
    async favouritesOf(statusId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const docs = await favourites.find(withRange({ statusId }, p)).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(markFromDoc), p);
    },
    async favouritesBy(accountId, page) {
      return liveMarks(C.favourites, accountId, page);
    },
    async bookmark(mark) {
      const { filter, update } = markUpsert(mark);
      try {
        return (await bookmarks.updateOne(filter, update, { upsert: true })).upsertedCount === 1;
      } catch (error) {
        // Two upserts of one pair at once: the other one inserted it.
        if (duplicateKeyOf(error)?.index === 'bookmarks_pair') return false;
        throw m.translate(error);
      }
    },
    async unbookmark(accountId, statusId) {
      return (await bookmarks.deleteOne({ accountId, statusId })).deletedCount === 1;
    },
    async bookmarksBy(accountId, page) {
      return liveMarks(C.bookmarks, accountId, page);
    },
    async pin(mark, max) {
      const push = pinUpdate(mark, max);
      for (let attempt = 0; attempt < PIN_ATTEMPTS; attempt += 1) {
        if (push !== null && (await translated(() => accounts.updateOne(push.filter, bump(push.update)))).modifiedCount === 1) return 'added';
        const pins = await pinsOf(mark.accountId);
        if (pins === null) throw new Error(`pin: there is no account ${mark.accountId}`);
        const refusal = pinRefusal(pins, mark.statusId, max);
        if (refusal !== null) return refusal;
      }
      throw new Error('pin gave up: the account kept changing under it');
    },
    async unpin(accountId, statusId) {
      const { filter, update } = unpinUpdate(accountId, statusId);
      return (await accounts.updateOne(filter, bump(update))).modifiedCount === 1;
    },
    async pinsBy(accountId) {
      const pins = (await pinsOf(accountId)) ?? [];
      if (pins.length === 0) return [];
      const live = new Set(
        (await m.collection(C.statuses).find({ _id: { $in: pins.map((p) => p.statusId) }, deletedAt: null }, { projection: { _id: 1 } }).toArray()).map((d) => d['_id'] as Id),
      );
      return pins
        .filter((p) => live.has(p.statusId))
        .sort((a, b) => compareIds(b.id, a.id))
        .map((p) => ({ id: p.id, accountId, statusId: p.statusId, createdAt: p.createdAt }));
    },
    async muteConversation(accountId, conversationId) {
      try {
        const r = await convMutes.updateOne({ _id: pairKey(accountId, conversationId) }, { $setOnInsert: { accountId, conversationId } }, { upsert: true });
        return r.upsertedCount === 1;
      } catch (error) {
        if (duplicateKeyOf(error)?.index === '_id_') return false;
        throw m.translate(error);
      }
    },
    async unmuteConversation(accountId, conversationId) {
      return (await convMutes.deleteOne({ _id: pairKey(accountId, conversationId) })).deletedCount === 1;
    },
    async conversationMutedBy(conversationId, accountIds) {
      const wanted = validIds(accountIds);
      if (wanted.length === 0) return [];
      const muted = new Set((await convMutes.find({ conversationId, accountId: { $in: wanted } }, { projection: { accountId: 1 } }).toArray()).map((d) => d['accountId'] as Id));
      return wanted.filter((a) => muted.has(a));
    },
    async viewerState(accountId, statusIds, conversationIds) {
      const ids = validIds(statusIds);
      const convs = validIds(conversationIds);
      const field = async (collection: string, filter: Doc, key: string): Promise<Set<Id>> =>
        new Set((await m.collection(collection).find(filter, { projection: { [key]: 1 } }).toArray()).map((d) => d[key] as Id));
      const none = async () => new Set<Id>();
      const [favourited, reblogged, bookmarked, pins, mutedConversations] = await Promise.all([
        ids.length ? field(C.favourites, { accountId, statusId: { $in: ids } }, 'statusId') : none(),
        ids.length ? field(C.statuses, { accountId, liveBoostOf: { $in: ids } }, 'liveBoostOf') : none(),
        ids.length ? field(C.bookmarks, { accountId, statusId: { $in: ids } }, 'statusId') : none(),
        ids.length ? pinsOf(accountId) : Promise.resolve(null),
        convs.length ? field(C.conversationMutes, { accountId, conversationId: { $in: convs } }, 'conversationId') : none(),
      ]);
      const wanted = new Set(ids);
      const pinned = new Set((pins ?? []).map((p) => p.statusId).filter((id) => wanted.has(id)));
      const state: ViewerState = { favourited, reblogged, bookmarked, pinned, mutedConversations };
      return state;
    },
  };
}
