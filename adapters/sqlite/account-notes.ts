// Private notes about other accounts, one per pair.

import type { AccountNoteRepository } from '../../core/domain/ports/storage.ts';
import { id, key, keyList, lookupKey, text, type Db } from './db.ts';

export function accountNoteRepository(db: Db): AccountNoteRepository {
  return {
    async set(accountId, targetId, comment, updatedAt) {
      await db.write(() => {
        if (comment === '') db.run('DELETE FROM account_notes WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId));
        else
          db.run(
            'INSERT INTO account_notes (account_id, target_account_id, comment, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment, updated_at = excluded.updated_at',
            key(accountId), key(targetId), comment, updatedAt,
          );
      });
    },
    async about(accountId, targetIds) {
      const owner = lookupKey(accountId);
      if (owner === null || targetIds.length === 0) return new Map();
      const rows = db.all('SELECT target_account_id, comment FROM account_notes WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))', owner, keyList(targetIds));
      return new Map(rows.map((r) => [id(r.target_account_id), text(r.comment)]));
    },
  };
}
