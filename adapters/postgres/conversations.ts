// Each account's private conversations: one row per (account, thread, other participants), and
// the statuses it holds in a table of their own, so that a deleted status is found in every
// conversation that holds it and the last status falls back to the one before. Writes lock the
// conversation rows they change (the unique key's upsert, FOR UPDATE), so concurrent writers
// take turns.

import { compareIds } from '../../core/domain/ids.ts';
import type { AccountConversation, Id } from '../../core/domain/model.ts';
import type { ConversationRepository } from '../../core/domain/ports/storage.ts';
import type { Db, Row, Sql } from './db.ts';
import { Params, bool, id, json, key, lookupKey, paged } from './values.ts';

const CONVERSATION = 'SELECT id, account_id, conversation_id, participant_ids, last_status_id, unread FROM account_conversations';

function conversationFromRow(r: Row): AccountConversation {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    conversationId: id(r['conversation_id']),
    participantIds: json<Id[]>(r['participant_ids']),
    lastStatusId: id(r['last_status_id']),
    unread: bool(r['unread']),
  };
}

function participantsKey(ids: readonly Id[]): string {
  return JSON.stringify([...new Set(ids)].sort(compareIds));
}

async function byId(sql: Sql, conversationId: string): Promise<AccountConversation | null> {
  const r = await sql.row(`${CONVERSATION} WHERE id = $1`, [conversationId]);
  return r ? conversationFromRow(r) : null;
}

export function conversationRepository(db: Db): ConversationRepository {
  return {
    async addStatus(c, statusId) {
      return db.transaction(async (tx) => {
        // The upsert locks the conversation's row (new or not) until the end of the transaction.
        const row = await tx.row(
          `INSERT INTO account_conversations (id, account_id, conversation_id, participant_ids, last_status_id, unread) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (account_id, conversation_id, participant_ids) DO UPDATE SET unread = account_conversations.unread
           RETURNING id`,
          [key(c.id), key(c.accountId), key(c.conversationId), participantsKey(c.participantIds), key(statusId), c.unread],
        );
        if (row === undefined) throw new Error('the conversation just written is missing');
        const own = id(row['id']);
        const added = (await tx.run('INSERT INTO account_conversation_statuses (account_conversation_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [own, key(statusId)])) > 0;
        if (added) {
          await tx.run(
            'UPDATE account_conversations SET unread = $1, last_status_id = (SELECT max(status_id) FROM account_conversation_statuses WHERE account_conversation_id = $2) WHERE id = $2',
            [c.unread, own],
          );
        }
        const conversation = await byId(tx, own);
        if (conversation === null) throw new Error('the conversation just written is missing');
        return { conversation, added };
      });
    },
    async removeStatus(statusId) {
      const k = lookupKey(statusId);
      if (k === null) return [];
      return db.transaction(async (tx) => {
        const holders = (
          await tx.rows(
            `${CONVERSATION} WHERE id IN (SELECT account_conversation_id FROM account_conversation_statuses WHERE status_id = $1) ORDER BY id FOR UPDATE`,
            [k],
          )
        ).map(conversationFromRow);
        await tx.run('DELETE FROM account_conversation_statuses WHERE status_id = $1', [k]);
        const out: { accountId: Id; id: Id; conversation: AccountConversation | null }[] = [];
        for (const held of holders) {
          const remaining = await tx.row('SELECT max(status_id) AS last FROM account_conversation_statuses WHERE account_conversation_id = $1', [held.id]);
          if (remaining?.['last'] === null || remaining?.['last'] === undefined) {
            await tx.run('DELETE FROM account_conversations WHERE id = $1', [held.id]);
            out.push({ accountId: held.accountId, id: held.id, conversation: null });
          } else {
            await tx.run('UPDATE account_conversations SET last_status_id = $1 WHERE id = $2', [remaining['last'], held.id]);
            out.push({ accountId: held.accountId, id: held.id, conversation: await byId(tx, held.id) });
          }
        }
        return out;
      });
    },
    async get(accountId, conversationId) {
      const k = lookupKey(conversationId);
      const a = lookupKey(accountId);
      const r = k === null || a === null ? undefined : await db.row(`${CONVERSATION} WHERE id = $1 AND account_id = $2`, [k, a]);
      return r ? conversationFromRow(r) : null;
    },
    async list(accountId, page) {
      if (lookupKey(accountId) === null) return [];
      const p = new Params();
      return paged(db, p, CONVERSATION, `account_id = ${p.id(accountId)}`, 'last_status_id', page, conversationFromRow);
    },
    async setUnread(accountId, conversationId, unread) {
      const k = lookupKey(conversationId);
      const a = lookupKey(accountId);
      if (k === null || a === null) return null;
      const r = await db.row(`UPDATE account_conversations SET unread = $1 WHERE id = $2 AND account_id = $3 RETURNING id, account_id, conversation_id, participant_ids, last_status_id, unread`, [
        unread,
        k,
        a,
      ]);
      return r ? conversationFromRow(r) : null;
    },
    async delete(accountId, conversationId) {
      const k = lookupKey(conversationId);
      const a = lookupKey(accountId);
      if (k === null || a === null) return false;
      return db.transaction(async (tx) => {
        if ((await tx.run('DELETE FROM account_conversations WHERE id = $1 AND account_id = $2', [k, a])) === 0) return false;
        await tx.run('DELETE FROM account_conversation_statuses WHERE account_conversation_id = $1', [k]);
        return true;
      });
    },
  };
}
