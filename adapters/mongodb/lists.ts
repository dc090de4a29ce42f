// Lists, with their members inside the list document (`members`: membership id, its num, the
// account): adding several members all-or-nothing, removing them and deleting a list with its
// members are single-document writes. lists_members (multikey) answers listsContaining.

import type { Id, List, ListRepliesPolicy } from '../../core/domain/model.ts';
import type { ListRepository, Page } from '../../core/domain/ports/storage.ts';
import { bump, type Mongo } from './db.ts';
import { C } from './schema.ts';
import { lookupId, num, pageQuery, setFields, stored, validIds, type Doc } from './values.ts';

export const LIST_PATCH_FIELDS = ['title', 'repliesPolicy', 'exclusive'] as const;
export const LIST_PROJECTION = { members: 0 };

export function listDoc(l: List): Doc {
  return { _id: l.id, num: num(l.id), accountId: l.accountId, title: l.title, repliesPolicy: l.repliesPolicy, exclusive: l.exclusive, createdAt: l.createdAt, members: [] };
}

export function listFromDoc(d: Doc): List {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    title: d['title'] as string,
    repliesPolicy: d['repliesPolicy'] as ListRepliesPolicy,
    exclusive: d['exclusive'] as boolean,
    createdAt: d['createdAt'] as number,
  };
}

/** Pushes every member, unless one of the accounts is already one: then nothing. */
export function addMembersUpdate(listId: Id, accountIds: readonly Id[], ids: readonly Id[]): { filter: Doc; update: Doc } {
  return {
    filter: { _id: listId, 'members.accountId': { $nin: accountIds } },
    update: { $push: { members: { $each: accountIds.map((accountId, i) => ({ id: ids[i] as Id, num: num(ids[i] as Id), accountId })) } } },
  };
}

export function removeMembersUpdate(listId: Id, accountIds: readonly Id[]): { filter: Doc; update: Doc } {
  return { filter: { _id: listId }, update: { $pull: { members: { accountId: { $in: accountIds } } } } };
}

/** A list's members paged by membership id (limit 0 = all), newest first. */
export function membersPipeline(listId: Id, page: Page): Doc[] {
  const p = pageQuery(page, true);
  const stages: Doc[] = [{ $match: { _id: listId } }, { $unwind: '$members' }, { $replaceWith: '$members' }];
  if (p.range !== null) stages.push({ $match: { num: p.range } });
  stages.push({ $sort: { num: p.sort } });
  if (p.limit > 0) stages.push({ $limit: p.limit });
  return stages;
}

export function listRepository(m: Mongo): ListRepository {
  const lists = m.collection(C.lists);
  return {
    async create(l) {
      try {
        await lists.insertOne(stored(listDoc(l)));
      } catch (error) {
        throw m.translate(error);
      }
    },
    async get(listId) {
      const id = lookupId(listId);
      const d = id === null ? null : await lists.findOne({ _id: id }, { projection: LIST_PROJECTION });
      return d ? listFromDoc(d) : null;
    },
    async listBy(accountId) {
      return (await lists.find({ accountId }, { projection: LIST_PROJECTION }).sort({ num: 1 }).toArray()).map(listFromDoc);
    },
    async update(listId, patch) {
      const id = lookupId(listId);
      if (id === null) return null;
      const set = setFields(patch, LIST_PATCH_FIELDS);
      const d =
        Object.keys(set).length === 0
          ? await lists.findOne({ _id: id }, { projection: LIST_PROJECTION })
          : await lists.findOneAndUpdate({ _id: id }, bump({ $set: set }), { returnDocument: 'after', projection: LIST_PROJECTION });
      return d ? listFromDoc(d) : null;
    },
    async delete(listId) {
      const id = lookupId(listId);
      if (id === null) return false;
      return (await lists.deleteOne({ _id: id })).deletedCount === 1;
    },
    async addMembers(listId, accountIds, ids) {
      if (accountIds.length !== ids.length) throw new TypeError('addMembers: one membership id per account is required');
      if (new Set(accountIds).size !== accountIds.length) return 'duplicate';
      const { filter, update } = addMembersUpdate(listId, accountIds, ids);
      for (let attempt = 0; attempt < 10; attempt += 1) {
        if ((await lists.updateOne(filter, bump(update))).modifiedCount === 1) return 'added';
        const current = await lists.findOne({ _id: listId }, { projection: { 'members.accountId': 1 } });
        // A list that does not exist (deleted meanwhile) has no members to add to.
        if (current === null) return 'added';
        const members = new Set(((current['members'] as { accountId: Id }[] | undefined) ?? []).map((x) => x.accountId));
        if (accountIds.some((a) => members.has(a))) return 'duplicate';
      }
      throw new Error('addMembers gave up: the list kept changing under it');
    },
    async removeMembers(listId, accountIds) {
      const wanted = validIds(accountIds);
      if (wanted.length === 0) return;
      const { filter, update } = removeMembersUpdate(listId, wanted);
      await lists.updateOne(filter, bump(update));
    },
    async members(listId, page) {
      return (await lists.aggregate(membersPipeline(listId, page)).toArray()).map((d) => ({ id: d['id'] as Id, accountId: d['accountId'] as Id }));
    },
    async listsContaining(accountId) {
      return (await lists.find({ 'members.accountId': accountId }, { projection: LIST_PROJECTION }).sort({ num: -1 }).toArray()).map(listFromDoc);
    },
  };
}
