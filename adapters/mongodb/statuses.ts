// Statuses. Mentions and tags are arrays of the status document under multikey indexes; a live
// boost carries `liveBoostOf` (its original's id), which the unique index statuses_live_boost
// keeps to one per booster. Every write here spans documents (the author's counters, the parent's
// or original's counters, the idempotency key, plugins' writes, edits, pins), so each one is a
// transaction; the README lists them.

import type { Id, Millis, Status, StatusEdit, Visibility } from '../../core/domain/model.ts';
import type { CounterEffects, StatusQuery, StatusRepository, StorageWrite } from '../../core/domain/ports/storage.ts';
import { bump, type Mongo, type MongoTx } from './db.ts';
import { C } from './schema.ts';
import {
  counterUpdate,
  inPageOrder,
  lookupId,
  newestFirst,
  num,
  pageQuery,
  pairKey,
  stored,
  validIds,
  withRange,
  type Doc,
  type PageQuery,
} from './values.ts';

export const LIVE: Doc = { deletedAt: null };

export function statusDoc(s: Status): Doc {
  const doc: Doc = {
    _id: s.id,
    num: num(s.id),
    accountId: s.accountId,
    local: s.local,
    uri: s.uri,
    url: s.url,
    text: s.text,
    content: s.content,
    spoilerText: s.spoilerText,
    sensitive: s.sensitive,
    visibility: s.visibility,
    language: s.language,
    inReplyToId: s.inReplyToId,
    inReplyToAccountId: s.inReplyToAccountId,
    reblogOfId: s.reblogOfId,
    conversationId: s.conversationId,
    applicationId: s.applicationId,
    mentionIds: s.mentionIds,
    tags: s.tags,
    mediaIds: s.mediaIds,
    pollId: s.pollId,
    createdAt: s.createdAt,
    editedAt: s.editedAt,
    deletedAt: s.deletedAt,
    repliesCount: s.repliesCount,
    reblogsCount: s.reblogsCount,
    favouritesCount: s.favouritesCount,
  };
  if (s.reblogOfId !== null && s.deletedAt === null) doc['liveBoostOf'] = s.reblogOfId;
  return doc;
}

export function statusFromDoc(d: Doc): Status {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    local: d['local'] as boolean,
    uri: d['uri'] as string | null,
    url: d['url'] as string | null,
    text: d['text'] as string,
    content: d['content'] as string,
    spoilerText: d['spoilerText'] as string,
    sensitive: d['sensitive'] as boolean,
    visibility: d['visibility'] as Visibility,
    language: d['language'] as string | null,
    inReplyToId: d['inReplyToId'] as Id | null,
    inReplyToAccountId: d['inReplyToAccountId'] as Id | null,
    reblogOfId: d['reblogOfId'] as Id | null,
    conversationId: d['conversationId'] as Id,
    applicationId: d['applicationId'] as Id | null,
    mentionIds: d['mentionIds'] as Id[],
    tags: d['tags'] as string[],
    mediaIds: d['mediaIds'] as Id[],
    pollId: d['pollId'] as Id | null,
    createdAt: d['createdAt'] as number,
    editedAt: d['editedAt'] as number | null,
    deletedAt: d['deletedAt'] as number | null,
    repliesCount: d['repliesCount'] as number,
    reblogsCount: d['reblogsCount'] as number,
    favouritesCount: d['favouritesCount'] as number,
  };
}

export function editDoc(e: StatusEdit): Doc {
  return {
    _id: e.id,
    num: num(e.id),
    statusId: e.statusId,
    accountId: e.accountId,
    text: e.text,
    content: e.content,
    spoilerText: e.spoilerText,
    sensitive: e.sensitive,
    mediaIds: e.mediaIds,
    pollOptions: e.pollOptions,
    createdAt: e.createdAt,
  };
}

export function editFromDoc(d: Doc): StatusEdit {
  return {
    id: d['_id'] as Id,
    statusId: d['statusId'] as Id,
    accountId: d['accountId'] as Id,
    text: d['text'] as string,
    content: d['content'] as string,
    spoilerText: d['spoilerText'] as string,
    sensitive: d['sensitive'] as boolean,
    mediaIds: d['mediaIds'] as Id[],
    pollOptions: d['pollOptions'] as string[] | null,
    createdAt: d['createdAt'] as number,
  };
}

/** Merges conditions into one filter; a field (or $or) that two conditions both constrain goes
 * into `$and` instead. */
export function allOf(conditions: readonly Doc[]): Doc {
  const out: Doc = {};
  const and: Doc[] = [];
  for (const c of conditions) {
    for (const [k, v] of Object.entries(c)) {
      if (Object.hasOwn(out, k)) and.push({ [k]: v });
      else out[k] = v;
    }
  }
  if (and.length > 0) out['$and'] = and;
  return out;
}

export interface QueryScope {
  /** homeOf: the account and the accounts it follows. */
  homeAccounts?: readonly Id[];
  /** listId: the list's members (none when the list does not exist). */
  listAccounts?: readonly Id[];
}

/** The filter of a StatusQuery on one page (the scope's account lists read beforehand). */
export function statusQueryFilter(q: StatusQuery, scope: QueryScope, page: PageQuery): Doc {
  const conditions: Doc[] = [LIVE];
  const visible = { visibility: { $in: q.visibilities } };
  conditions.push(q.orMentioning === undefined ? visible : { $or: [visible, { mentionIds: q.orMentioning }] });
  if (q.authorId !== undefined) conditions.push({ accountId: q.authorId });
  if (q.homeOf !== undefined) conditions.push({ accountId: { $in: scope.homeAccounts ?? [q.homeOf] } });
  if (q.listId !== undefined) conditions.push({ accountId: { $in: scope.listAccounts ?? [] } });
  if (q.tag !== undefined) conditions.push({ tags: q.tag });
  if (q.anyTag !== undefined) conditions.push({ tags: { $in: [...q.anyTag] } });
  if (q.local !== undefined) conditions.push({ local: q.local });
  if (q.onlyMedia) conditions.push({ 'mediaIds.0': { $exists: true } });
  if (q.excludeReblogs) conditions.push({ reblogOfId: null });
  if (q.excludeRepliesToOthers) conditions.push({ $or: [{ inReplyToId: null }, { $expr: { $eq: ['$inReplyToAccountId', '$accountId'] } }] });
  if (page.range !== null) conditions.push({ num: page.range });
  return allOf(conditions);
}

export function reblogsFilter(statusId: Id, visibilities: readonly Visibility[], page: PageQuery): Doc {
  return withRange({ deletedAt: null, reblogOfId: statusId, visibility: { $in: visibilities } }, page);
}

export const repliesFilter = (parentIds: readonly Id[]): Doc => ({ deletedAt: null, inReplyToId: { $in: parentIds } });

export interface Op {
  collection: string;
  filter: Doc;
  update: Doc;
}

/** The counter effects of a new status. */
export function createEffects(s: Status, effects: CounterEffects): Op[] {
  const ops: Op[] = [];
  if (effects.countForAuthor) ops.push({ collection: C.accounts, filter: { _id: s.accountId }, update: { $inc: { statusesCount: 1 }, $set: { lastStatusAt: s.createdAt } } });
  if (effects.countReplyOf !== null) ops.push({ collection: C.statuses, ...counterUpdate(effects.countReplyOf, 'repliesCount', 1) });
  return ops;
}

/** A new boost: the original's reblogsCount and the booster's statusesCount (lastStatusAt left alone). */
export function reblogEffects(boost: Status, originalId: Id): Op[] {
  return [
    { collection: C.statuses, ...counterUpdate(originalId, 'reblogsCount', 1) },
    { collection: C.accounts, ...counterUpdate(boost.accountId, 'statusesCount', 1) },
  ];
}

/** A deletion reverses the counter effects, and a deleted boost its original's reblogsCount. */
export function deleteEffects(s: Status, effects: CounterEffects): Op[] {
  const ops: Op[] = [];
  if (effects.countForAuthor) ops.push({ collection: C.accounts, ...counterUpdate(s.accountId, 'statusesCount', -1) });
  if (effects.countReplyOf !== null) ops.push({ collection: C.statuses, ...counterUpdate(effects.countReplyOf, 'repliesCount', -1) });
  if (s.reblogOfId !== null) ops.push({ collection: C.statuses, ...counterUpdate(s.reblogOfId, 'reblogsCount', -1) });
  return ops;
}

export const softDelete = (deletedAt: Millis): Doc => ({ $set: { deletedAt }, $unset: { liveBoostOf: '' } });

/** The boosts of a deleted status go with it; each booster loses one status (one live boost per
 * booster, so one update of all of them). */
export function boostRemoval(boosts: readonly Status[], deletedAt: Millis): Op[] {
  if (boosts.length === 0) return [];
  return [
    { collection: C.statuses, filter: { _id: { $in: boosts.map((b) => b.id) } }, update: softDelete(deletedAt) },
    { collection: C.accounts, filter: { _id: { $in: boosts.map((b) => b.accountId) }, statusesCount: { $gt: 0 } }, update: { $inc: { statusesCount: -1 } } },
  ];
}

/** Pins of a deleted status, whoever pinned it. */
export const unpinEverywhere = (statusId: Id): Op => ({ collection: C.accounts, filter: { 'pins.statusId': statusId }, update: { $pull: { pins: { statusId } } } });

type Patch = Parameters<StatusRepository['update']>[1];

export function statusPatch(p: Patch): Doc {
  return {
    $set: {
      text: p.text,
      content: p.content,
      spoilerText: p.spoilerText,
      sensitive: p.sensitive,
      language: p.language,
      mentionIds: p.mentionIds,
      tags: p.tags,
      mediaIds: p.mediaIds,
      pollId: p.pollId,
      editedAt: p.editedAt,
    },
  };
}

/** The idempotency key of an account now points at this status (a key used before the window is
 * reused). `expireAt` (wall clock) is when the TTL index may forget it. */
export function idempotencyUpsert(accountId: Id, key: string, statusId: Id, usedAt: Millis, expireAt: Date): { filter: Doc; update: Doc } {
  return { filter: { _id: pairKey(accountId, key) }, update: { $set: { accountId, key, statusId, usedAt, expireAt } } };
}

/** Runs every StorageWrite's check (or apply) in order, awaiting each: this engine lets them be
 * asynchronous, inside the transaction. */
export async function runWrites(writes: readonly StorageWrite[] | undefined, store: object, phase: 'check' | 'apply', tx: MongoTx): Promise<void> {
  for (const write of writes ?? []) {
    if (write.store !== store) throw new Error('a StorageWrite prepared for another store was given to this one');
    const step = phase === 'check' ? write.check : write.apply;
    if (step !== undefined) await step.call(write, tx);
  }
}

/** An op names one document by its `_id`, or several (an `$in` of ids, or no `_id` at all). */
export function updatesMany(op: Op): boolean {
  const target = op.filter['_id'];
  return target === undefined || (typeof target === 'object' && target !== null && '$in' in target);
}

/** Sends each op in the transaction, in order, bumped. */
export async function applyOps(tx: Pick<MongoTx, 'collection' | 'session'>, ops: readonly Op[]): Promise<void> {
  for (const op of ops) {
    const collection = tx.collection(op.collection);
    if (updatesMany(op)) await collection.updateMany(op.filter, bump(op.update), { session: tx.session });
    else await collection.updateOne(op.filter, bump(op.update), { session: tx.session });
  }
}

export interface StatusOptions {
  /** How long (wall clock) an idempotency key is kept after its use: longer than the core's
   * window (limits.idempotencySeconds, an hour by default). */
  idempotencyRetentionMs: number;
}

export function statusRepository(m: Mongo, store: object, options: StatusOptions): StatusRepository {
  const statuses = m.collection(C.statuses);
  const keys = m.collection(C.idempotencyKeys);

  const liveIn = async (tx: MongoTx, id: Id): Promise<Status | null> => {
    const d = await tx.collection(C.statuses).findOne({ _id: id, deletedAt: null }, { session: tx.session });
    return d ? statusFromDoc(d) : null;
  };
  const readIn = async (tx: MongoTx, id: Id): Promise<Status> => {
    const d = await tx.collection(C.statuses).findOne({ _id: id }, { session: tx.session });
    if (d === null) throw new Error(`status ${id} vanished inside its own transaction`);
    return statusFromDoc(d);
  };
  const find = async (filter: Doc, page: PageQuery): Promise<Status[]> => {
    if (page.empty) return [];
    const docs = await statuses.find(filter).sort({ num: page.sort }).limit(page.limit).toArray();
    return inPageOrder(docs.map(statusFromDoc), page);
  };

  return {
    async create(s, effects, opts = {}) {
      const idem = opts.idempotency;
      return m.withOutbox(
        opts.outbox,
        async (tx) => {
          if (idem) {
            const used = await tx.collection(C.idempotencyKeys).findOne({ _id: pairKey(s.accountId, idem.key) }, { session: tx.session });
            if (used && (used['usedAt'] as number) >= idem.notBefore) {
              return { created: false as const, existing: await liveIn(tx, used['statusId'] as Id) };
            }
          }
          await runWrites(opts.writes, store, 'check', tx);
          await tx.collection(C.statuses).insertOne(stored(statusDoc(s)), { session: tx.session });
          await runWrites(opts.writes, store, 'apply', tx);
          await applyOps(tx, createEffects(s, effects));
          if (idem) {
            const u = idempotencyUpsert(s.accountId, idem.key, s.id, s.createdAt, new Date(m.wallNow() + options.idempotencyRetentionMs));
            await tx.collection(C.idempotencyKeys).updateOne(u.filter, bump(u.update), { upsert: true, session: tx.session });
          }
          return { created: true as const, status: await readIn(tx, s.id) };
        },
        [`${C.idempotencyKeys}._id_`],
      );
    },

    async findIdempotent(accountId, key, notBefore) {
      const used = await keys.findOne({ _id: pairKey(accountId, key) });
      if (!used || (used['usedAt'] as number) < notBefore) return null;
      const first = await statuses.findOne({ _id: used['statusId'] as Id, deletedAt: null });
      return { status: first ? statusFromDoc(first) : null };
    },

    async reblog(b, outbox) {
      const original = b.reblogOfId;
      if (original === null) throw new TypeError('reblog: the status is not a boost (reblogOfId is null)');
      return m.withOutbox(
        outbox,
        async (tx) => {
          const existing = await tx.collection(C.statuses).findOne({ accountId: b.accountId, liveBoostOf: original }, { session: tx.session });
          if (existing) return { created: false, status: statusFromDoc(existing) };
          await tx.collection(C.statuses).insertOne(stored(statusDoc(b)), { session: tx.session });
          await applyOps(tx, reblogEffects(b, original));
          return { created: true, status: await readIn(tx, b.id) };
        },
        // Two boosts racing: the loser runs again and finds the winner's.
        [`${C.statuses}.statuses_live_boost`],
      );
    },

    async get(statusId) {
      const id = lookupId(statusId);
      if (id === null) return null;
      const d = await statuses.findOne({ _id: id, deletedAt: null });
      return d ? statusFromDoc(d) : null;
    },

    async getMany(ids) {
      const wanted = validIds(ids);
      if (wanted.length === 0) return [];
      return newestFirst((await statuses.find({ _id: { $in: wanted }, deletedAt: null }).toArray()).map(statusFromDoc));
    },

    async findByUri(uri) {
      const d = await statuses.findOne({ uri, deletedAt: null });
      return d ? statusFromDoc(d) : null;
    },

    async findReblog(accountId, statusId) {
      const d = await statuses.findOne({ accountId, liveBoostOf: statusId });
      return d ? statusFromDoc(d) : null;
    },

    async delete(statusId, deletedAt, effects, outbox) {
      const id = lookupId(statusId);
      if (id === null) return null;
      return m.withOutbox(outbox, async (tx) => {
        const s = await liveIn(tx, id);
        if (s === null) return null;
        await tx.collection(C.statuses).updateOne({ _id: id }, bump(softDelete(deletedAt)), { session: tx.session });
        await applyOps(tx, deleteEffects(s, effects));
        const boosts = (await tx.collection(C.statuses).find({ reblogOfId: id, deletedAt: null }, { session: tx.session }).sort({ num: 1 }).toArray()).map(statusFromDoc);
        await applyOps(tx, [...boostRemoval(boosts, deletedAt), unpinEverywhere(id)]);
        return { status: { ...s, deletedAt }, boosts: boosts.map((b) => ({ ...b, deletedAt })) };
      });
    },

    async update(statusId, patch, revisions, opts = {}) {
      const id = lookupId(statusId);
      if (id === null) return null;
      return m.withOutbox(opts.outbox, async (tx) => {
        if ((await liveIn(tx, id)) === null) return null;
        await runWrites(opts.writes, store, 'check', tx);
        await tx.collection(C.statuses).updateOne({ _id: id }, bump(statusPatch(patch)), { session: tx.session });
        if (revisions.length > 0) await tx.collection(C.statusEdits).insertMany(revisions.map((r) => stored(editDoc(r))), { session: tx.session, ordered: true });
        await runWrites(opts.writes, store, 'apply', tx);
        return readIn(tx, id);
      });
    },

    async edits(statusId) {
      const id = lookupId(statusId);
      if (id === null) return [];
      return (await m.collection(C.statusEdits).find({ statusId: id }).sort({ createdAt: 1, num: 1 }).toArray()).map(editFromDoc);
    },

    async query(q, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const scope: QueryScope = {};
      if (q.homeOf !== undefined) {
        const followed = await m.collection(C.follows).find({ accountId: q.homeOf, kind: 'follow' }, { projection: { targetAccountId: 1 } }).toArray();
        scope.homeAccounts = [q.homeOf, ...followed.map((f) => f['targetAccountId'] as Id)];
      }
      if (q.listId !== undefined) {
        const listId = lookupId(q.listId);
        const l = listId === null ? null : await m.collection(C.lists).findOne({ _id: listId }, { projection: { 'members.accountId': 1 } });
        scope.listAccounts = ((l?.['members'] as { accountId: Id }[] | undefined) ?? []).map((x) => x.accountId);
      }
      return find(statusQueryFilter(q, scope, p), p);
    },

    async replies(parentIds) {
      const wanted = validIds(parentIds);
      if (wanted.length === 0) return [];
      return (await statuses.find(repliesFilter(wanted)).sort({ num: 1 }).toArray()).map(statusFromDoc);
    },

    async reblogs(statusId, visibilities, page) {
      const p = pageQuery(page);
      return find(reblogsFilter(statusId, visibilities, p), p);
    },

    async countLocal() {
      return statuses.countDocuments({ local: true, deletedAt: null });
    },
  };
}
