// Private notes about other accounts, one per pair.

import type { AccountNoteRepository } from '../../core/domain/ports/storage.ts';
import type { Db } from './db.ts';
import { id, key, keys, lookupKey, text } from './values.ts';

export function accountNoteRepository(db: Db): AccountNoteRepository {
  return {
    async set(accountId, targetId, comment, updatedAt) {
      if (comment === '') await db.run('DELETE FROM account_notes WHERE account_id = $1 AND target_account_id = $2', [key(accountId), key(targetId)]);
      else
        await db.run(
          `INSERT INTO account_notes (account_id, target_account_id, comment, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment, updated_at = excluded.updated_at`,
          [key(accountId), key(targetId), comment, updatedAt],
        );
    },
    async about(accountId, targetIds) {
      const owner = lookupKey(accountId);
      const wanted = keys(targetIds);
      if (owner === null || wanted.length === 0) return new Map();
      const rows = await db.rows('SELECT target_account_id, comment FROM account_notes WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])', [owner, wanted]);
      return new Map(rows.map((r) => [id(r['target_account_id']), text(r['comment'])]));
    },
  };
}
