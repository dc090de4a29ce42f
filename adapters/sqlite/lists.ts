import type { ListRepository } from '../../core/domain/ports/storage.ts';
import type { Id, List } from '../../core/domain/model.ts';
import { RowCache } from './cache.ts';
import { bool, flag, id, int, key, keyList, lookupKey, paged, setClause, text, type Db, type Row } from './db.ts';

/** The lists holding an author are read by every publish (whose list streams it reaches) and
 * change rarely: kept until lists or their members change, for the authors seen last. */
const LIST_SETS = 5_000;

const LIST = 'SELECT id, account_id, title, replies_policy, exclusive, created_at FROM lists';

function listFromRow(r: Row): List {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    title: text(r.title),
    repliesPolicy: text(r.replies_policy) as List['repliesPolicy'],
    exclusive: bool(r.exclusive),
    createdAt: int(r.created_at),
  };
}

export function listRepository(db: Db): ListRepository {
  const containing = new RowCache<Id, List[]>(db, ['lists', 'list_members'], LIST_SETS, (lists) => lists.map((list) => ({ ...list })));
  const getList = (k: bigint): List | null => {
    const r = db.get(`${LIST} WHERE id = ?`, k);
    return r ? listFromRow(r) : null;
  };
  return {
    async create(l) {
      await db.write(() => {
        db.run(
          'INSERT INTO lists (id, account_id, title, replies_policy, exclusive, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          key(l.id), key(l.accountId), l.title, l.repliesPolicy, flag(l.exclusive), l.createdAt,
        );
      });
    },
    async get(listId) {
      const k = lookupKey(listId);
      return k === null ? null : getList(k);
    },
    async listBy(accountId) {
      return db.all(`${LIST} WHERE account_id = ? ORDER BY id`, key(accountId)).map(listFromRow);
    },
    async update(listId, patch) {
      const k = lookupKey(listId);
      if (k === null) return null;
      const set = setClause(patch, {
        title: ['title', (v: string | null) => v],
        repliesPolicy: ['replies_policy', (v: string | null) => v],
        exclusive: ['exclusive', (v: boolean | null) => (v === null ? null : flag(v))],
      });
      return db.write(() => {
        if (set.sql !== '') db.run(`UPDATE lists SET ${set.sql} WHERE id = ?`, ...set.params, k);
        return getList(k);
      });
    },
    async delete(listId) {
      const k = lookupKey(listId);
      if (k === null) return false;
      return db.write(() => {
        db.run('DELETE FROM list_members WHERE list_id = ?', k);
        return db.run('DELETE FROM lists WHERE id = ?', k) > 0;
      });
    },
    async addMembers(listId, accountIds, ids) {
      if (accountIds.length !== ids.length) throw new TypeError('addMembers: one membership id per account is required');
      if (new Set(accountIds).size !== accountIds.length) return 'duplicate';
      return db.write(() => {
        const l = key(listId);
        if (db.get('SELECT 1 FROM list_members WHERE list_id = ? AND account_id IN (SELECT value FROM json_each(?)) LIMIT 1', l, keyList(accountIds))) {
          return 'duplicate';
        }
        accountIds.forEach((accountId, i) => {
          db.run('INSERT INTO list_members (id, list_id, account_id) VALUES (?, ?, ?)', key(ids[i] as Id), l, key(accountId));
        });
        return 'added';
      });
    },
    async removeMembers(listId, accountIds) {
      await db.write(() => db.run('DELETE FROM list_members WHERE list_id = ? AND account_id IN (SELECT value FROM json_each(?))', key(listId), keyList(accountIds)));
    },
    async members(listId, page) {
      return paged(db, 'SELECT id, account_id FROM list_members', 'list_id = ?', [key(listId)], 'id', page, (r) => ({ id: id(r.id), accountId: id(r.account_id) }), true);
    },
    async listsContaining(accountId) {
      const kept = containing.get(accountId);
      if (kept !== undefined) return kept;
      const found = db.all(`${LIST} WHERE id IN (SELECT list_id FROM list_members WHERE account_id = ?) ORDER BY id DESC`, key(accountId)).map(listFromRow);
      containing.set(accountId, found);
      return found;
    },
  };
}
