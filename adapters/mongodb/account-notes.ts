// Private notes about other accounts: one document per pair, its _id the pair.

import type { AccountNoteRepository } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { pairKey, validIds } from './values.ts';

export function accountNoteRepository(m: Mongo): AccountNoteRepository {
  const notes = m.collection(C.accountNotes);
  return {
    async set(accountId, targetId, comment, updatedAt) {
      if (comment === '') await notes.deleteOne({ _id: pairKey(accountId, targetId) });
      else await notes.updateOne({ _id: pairKey(accountId, targetId) }, { $set: { accountId, targetId, comment, updatedAt } }, { upsert: true });
    },
    async about(accountId, targetIds) {
      const wanted = validIds(targetIds);
      if (wanted.length === 0) return new Map();
      const docs = await notes.find({ accountId, targetId: { $in: wanted } }).toArray();
      return new Map(docs.map((d) => [d['targetId'] as Id, d['comment'] as string]));
    },
  };
}
