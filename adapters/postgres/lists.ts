import { StorageConflict, type ListRepository } from '../../core/domain/ports/storage.ts';
import type { List } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { Params, bool, id, int, key, keys, lookupKey, paged, setClause, text } from './values.ts';

const LIST_COLUMNS = 'id, account_id, title, replies_policy, exclusive, created_at';
const LIST = `SELECT ${LIST_COLUMNS} FROM lists`;

function listFromRow(r: Row): List {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    title: text(r['title']),
    repliesPolicy: text(r['replies_policy']) as List['repliesPolicy'],
    exclusive: bool(r['exclusive']),
    createdAt: int(r['created_at']),
  };
}

const asIs = <T>(v: T) => v;

export function listRepository(db: Db): ListRepository {
  return {
    async create(l) {
      await db.run(`INSERT INTO lists (${LIST_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [key(l.id), key(l.accountId), l.title, l.repliesPolicy, l.exclusive, l.createdAt]);
    },
    async get(listId) {
      const k = lookupKey(listId);
      if (k === null) return null;
      const r = await db.row(`${LIST} WHERE id = $1`, [k]);
      return r ? listFromRow(r) : null;
    },
    async listBy(accountId) {
      const a = lookupKey(accountId);
      if (a === null) return [];
      return (await db.rows(`${LIST} WHERE account_id = $1 ORDER BY id`, [a])).map(listFromRow);
    },
    async update(listId, patch) {
      const k = lookupKey(listId);
      if (k === null) return null;
      const p = new Params();
      const set = setClause(p, patch, { title: ['title', asIs], repliesPolicy: ['replies_policy', asIs], exclusive: ['exclusive', asIs] });
      const target = p.add(k);
      const r = await db.row(set === '' ? `${LIST} WHERE id = ${target}::bigint` : `UPDATE lists SET ${set} WHERE id = ${target}::bigint RETURNING ${LIST_COLUMNS}`, p.values);
      return r ? listFromRow(r) : null;
    },
    async delete(listId) {
      const k = lookupKey(listId);
      if (k === null) return false;
      return (await db.run('WITH members AS (DELETE FROM list_members WHERE list_id = $1) DELETE FROM lists WHERE id = $1', [k])) > 0;
    },
    async addMembers(listId, accountIds, ids) {
      if (accountIds.length !== ids.length) throw new TypeError('addMembers: one membership id per account is required');
      if (new Set(accountIds).size !== accountIds.length) return 'duplicate';
      if (accountIds.length === 0) return 'added';
      // One INSERT: a member already there breaks the pair's unique constraint and the whole
      // statement (every account or none) is refused.
      try {
        await db.run('INSERT INTO list_members (id, list_id, account_id) SELECT m, $1::bigint, a FROM unnest($2::bigint[], $3::bigint[]) AS u(m, a)', [
          key(listId), ids.map(key), accountIds.map(key),
        ]);
        return 'added';
      } catch (error) {
        if (error instanceof StorageConflict && error.rule === 'list_members_pair') return 'duplicate';
        throw error;
      }
    },
    async removeMembers(listId, accountIds) {
      const l = lookupKey(listId);
      const wanted = keys(accountIds);
      if (l !== null && wanted.length > 0) await db.run('DELETE FROM list_members WHERE list_id = $1 AND account_id = ANY($2::bigint[])', [l, wanted]);
    },
    async members(listId, page) {
      const p = new Params();
      return paged(db, p, 'SELECT id, account_id FROM list_members', `list_id = ${p.id(listId)}`, 'id', page, (r) => ({ id: id(r['id']), accountId: id(r['account_id']) }), true);
    },
    async listsContaining(accountId) {
      const a = lookupKey(accountId);
      if (a === null) return [];
      return (await db.rows(`${LIST} WHERE id IN (SELECT list_id FROM list_members WHERE account_id = $1) ORDER BY id DESC`, [a])).map(listFromRow);
    },
  };
}
