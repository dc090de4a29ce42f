// Each account's private conversations: one row per (account, thread, other participants), and
// the statuses it holds in a table of their own, so that a deleted status is found in every
// conversation that holds it and the last status falls back to the one before.

import { compareIds } from '../../core/domain/ids.ts';
import type { AccountConversation, Id } from '../../core/domain/model.ts';
import type { ConversationRepository } from '../../core/domain/ports/storage.ts';
import { bool, flag, id, json, key, lookupKey, paged, type Db, type Row } from './db.ts';

const CONVERSATION = 'SELECT id, account_id, conversation_id, participant_ids, last_status_id, unread FROM account_conversations';

function conversationFromRow(r: Row): AccountConversation {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    conversationId: id(r.conversation_id),
    participantIds: json<Id[]>(r.participant_ids),
    lastStatusId: id(r.last_status_id),
    unread: bool(r.unread),
  };
}

/** The participants as the unique key stores them: ascending ids, each once. */
export function participantsKey(ids: readonly Id[]): string {
  return JSON.stringify([...new Set(ids)].sort(compareIds));
}

export function conversationRepository(db: Db): ConversationRepository {
  const byId = (conversationId: bigint): AccountConversation | null => {
    const r = db.get(`${CONVERSATION} WHERE id = ?`, conversationId);
    return r ? conversationFromRow(r) : null;
  };
  return {
    async addStatus(c, statusId) {
      return db.write(() => {
        const participants = participantsKey(c.participantIds);
        let row = db.get(`${CONVERSATION} WHERE account_id = ? AND conversation_id = ? AND participant_ids = ?`, key(c.accountId), key(c.conversationId), participants);
        if (row === undefined) {
          db.run(
            'INSERT INTO account_conversations (id, account_id, conversation_id, participant_ids, last_status_id, unread) VALUES (?, ?, ?, ?, ?, ?)',
            key(c.id), key(c.accountId), key(c.conversationId), participants, key(statusId), flag(c.unread),
          );
          row = db.get(`${CONVERSATION} WHERE id = ?`, key(c.id));
        }
        if (row === undefined) throw new Error('the conversation just written is missing');
        const own = key(id(row.id));
        const added = db.run('INSERT INTO account_conversation_statuses (account_conversation_id, status_id) VALUES (?, ?) ON CONFLICT DO NOTHING', own, key(statusId)) > 0;
        if (added) {
          db.run(
            'UPDATE account_conversations SET unread = ?, last_status_id = (SELECT max(status_id) FROM account_conversation_statuses WHERE account_conversation_id = ?) WHERE id = ?',
            flag(c.unread), own, own,
          );
        }
        const conversation = byId(own);
        if (conversation === null) throw new Error('the conversation just written is missing');
        return { conversation, added };
      });
    },
    async removeStatus(statusId) {
      const k = lookupKey(statusId);
      if (k === null) return [];
      return db.write(() => {
        const holders = db.all(
          `${CONVERSATION} WHERE id IN (SELECT account_conversation_id FROM account_conversation_statuses WHERE status_id = ?)`,
          k,
        ).map(conversationFromRow);
        db.run('DELETE FROM account_conversation_statuses WHERE status_id = ?', k);
        return holders.map((held) => {
          const own = key(held.id);
          const remaining = db.get('SELECT max(status_id) AS last FROM account_conversation_statuses WHERE account_conversation_id = ?', own);
          if (remaining?.last === null || remaining?.last === undefined) {
            db.run('DELETE FROM account_conversations WHERE id = ?', own);
            return { accountId: held.accountId, id: held.id, conversation: null };
          }
          db.run('UPDATE account_conversations SET last_status_id = ? WHERE id = ?', remaining.last, own);
          return { accountId: held.accountId, id: held.id, conversation: byId(own) };
        });
      });
    },
    async get(accountId, conversationId) {
      const k = lookupKey(conversationId);
      const r = k === null ? undefined : db.get(`${CONVERSATION} WHERE id = ? AND account_id = ?`, k, key(accountId));
      return r ? conversationFromRow(r) : null;
    },
    async list(accountId, page) {
      return paged(db, CONVERSATION, 'account_id = ?', [key(accountId)], 'last_status_id', page, conversationFromRow);
    },
    async setUnread(accountId, conversationId, unread) {
      const k = lookupKey(conversationId);
      if (k === null) return null;
      return db.write(() => {
        if (db.run('UPDATE account_conversations SET unread = ? WHERE id = ? AND account_id = ?', flag(unread), k, key(accountId)) === 0) return null;
        return byId(k);
      });
    },
    async delete(accountId, conversationId) {
      const k = lookupKey(conversationId);
      if (k === null) return false;
      return db.write(() => {
        if (db.run('DELETE FROM account_conversations WHERE id = ? AND account_id = ?', k, key(accountId)) === 0) return false;
        db.run('DELETE FROM account_conversation_statuses WHERE account_conversation_id = ?', k);
        return true;
      });
    },
  };
}
