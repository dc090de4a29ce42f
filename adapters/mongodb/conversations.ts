// Each account's private conversations: one document per (account, thread, other
// participants), holding its statuses' ids, with `lastNum` (the last status's id as Int64) to
// page by. Changes read and write in a transaction, so that concurrent additions and removals
// each see the others' statuses.

import { compareIds } from '../../core/domain/ids.ts';
import type { AccountConversation, Id } from '../../core/domain/model.ts';
import type { ConversationRepository } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, type Doc } from './values.ts';

function conversationFromDoc(d: Doc): AccountConversation {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    conversationId: d['conversationId'] as Id,
    participantIds: [...(d['participantIds'] as Id[])],
    lastStatusId: d['lastStatusId'] as Id,
    unread: d['unread'] === true,
  };
}

const newest = (ids: readonly Id[]): Id | undefined => [...ids].sort(compareIds).at(-1);

export function conversationRepository(m: Mongo): ConversationRepository {
  const conversations = m.collection(C.accountConversations);
  return {
    async addStatus(c, statusId) {
      const participantIds = [...new Set(c.participantIds)].sort(compareIds);
      const participantsKey = participantIds.join(',');
      return m.transaction(
        async (tx) => {
          const collection = tx.collection(C.accountConversations);
          const found = await collection.findOne({ accountId: c.accountId, conversationId: c.conversationId, participantsKey }, { session: tx.session });
          if (found === null) {
            const doc = {
              _id: c.id,
              accountId: c.accountId,
              conversationId: c.conversationId,
              participantsKey,
              participantIds,
              statusIds: [statusId],
              lastStatusId: statusId,
              lastNum: num(statusId),
              unread: c.unread,
            };
            await collection.insertOne(doc, { session: tx.session });
            return { conversation: conversationFromDoc(doc), added: true };
          }
          const held = found['statusIds'] as Id[];
          if (held.includes(statusId)) return { conversation: conversationFromDoc(found), added: false };
          const last = newest([...held, statusId]) as Id;
          const set = { statusIds: [...held, statusId], lastStatusId: last, lastNum: num(last), unread: c.unread };
          await collection.updateOne({ _id: found._id }, { $set: set }, { session: tx.session });
          return { conversation: conversationFromDoc({ ...found, ...set }), added: true };
        },
        [`${C.accountConversations}.account_conversations_key`],
      );
    },
    async removeStatus(statusId) {
      if (lookupId(statusId) === null) return [];
      return m.transaction(async (tx) => {
        const collection = tx.collection(C.accountConversations);
        const holders = await collection.find({ statusIds: statusId }, { session: tx.session }).toArray();
        const out: { accountId: Id; id: Id; conversation: AccountConversation | null }[] = [];
        for (const held of holders) {
          const remaining = (held['statusIds'] as Id[]).filter((id) => id !== statusId);
          const last = newest(remaining);
          const owner = held['accountId'] as Id;
          const own = held._id as Id;
          if (last === undefined) {
            await collection.deleteOne({ _id: own }, { session: tx.session });
            out.push({ accountId: owner, id: own, conversation: null });
          } else {
            const set = { statusIds: remaining, lastStatusId: last, lastNum: num(last) };
            await collection.updateOne({ _id: own }, { $set: set }, { session: tx.session });
            out.push({ accountId: owner, id: own, conversation: conversationFromDoc({ ...held, ...set }) });
          }
        }
        return out;
      });
    },
    async get(accountId, conversationId) {
      const k = lookupId(conversationId);
      const d = k === null ? null : await conversations.findOne({ _id: k, accountId });
      return d ? conversationFromDoc(d) : null;
    },
    async list(accountId, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const filter: Doc = p.range === null ? { accountId } : { accountId, lastNum: p.range };
      const docs = await conversations.find(filter, { projection: { statusIds: 0 } }).sort({ lastNum: p.sort }).limit(p.limit).toArray();
      return inPageOrder(docs.map(conversationFromDoc), p);
    },
    async setUnread(accountId, conversationId, unread) {
      const k = lookupId(conversationId);
      if (k === null) return null;
      const d = await conversations.findOneAndUpdate({ _id: k, accountId }, { $set: { unread } }, { returnDocument: 'after', projection: { statusIds: 0 } });
      return d ? conversationFromDoc(d) : null;
    },
    async delete(accountId, conversationId) {
      const k = lookupId(conversationId);
      if (k === null) return false;
      return (await conversations.deleteOne({ _id: k, accountId })).deletedCount === 1;
    },
  };
}
