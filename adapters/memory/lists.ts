import { compareIds } from '../../core/domain/ids.ts';
import { StorageConflict, type ListRepository } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';
import { assignDefined, clone, newestFirst, paginate, pair } from './shared.ts';
import type { MemoryState } from './state.ts';

export function listRepository(state: MemoryState): ListRepository {
  const { lists, memberships, membershipByPair } = state;
  const isMember = (listId: Id, accountId: Id): boolean => membershipByPair.has(pair(listId, accountId));
  return {
    async create(l) {
      if (lists.has(l.id)) throw new StorageConflict('id');
      lists.set(l.id, clone(l));
    },
    async get(id) {
      const l = lists.get(id);
      return l ? clone(l) : null;
    },
    async listBy(accountId) {
      return [...lists.values()].filter((l) => l.accountId === accountId).sort((a, b) => compareIds(a.id, b.id)).map(clone);
    },
    async update(id, patch) {
      const l = lists.get(id);
      if (!l) return null;
      assignDefined(l, patch);
      return clone(l);
    },
    async delete(id) {
      if (!lists.delete(id)) return false;
      for (const m of [...memberships.values()]) {
        if (m.listId === id) {
          memberships.delete(m.id);
          membershipByPair.delete(pair(id, m.accountId));
        }
      }
      return true;
    },
    async addMembers(listId, accountIds, ids) {
      if (accountIds.length !== ids.length) throw new TypeError('addMembers: one membership id per account is required');
      const seen = new Set<Id>();
      for (const a of accountIds) {
        if (seen.has(a) || isMember(listId, a)) return 'duplicate';
        seen.add(a);
      }
      if (new Set(ids).size !== ids.length || ids.some((id) => memberships.has(id))) throw new StorageConflict('id');
      accountIds.forEach((accountId, i) => {
        const id = ids[i] as Id;
        memberships.set(id, { id, listId, accountId });
        membershipByPair.set(pair(listId, accountId), id);
      });
      return 'added';
    },
    async removeMembers(listId, accountIds) {
      for (const a of accountIds) {
        const id = membershipByPair.get(pair(listId, a));
        if (id !== undefined) {
          memberships.delete(id);
          membershipByPair.delete(pair(listId, a));
        }
      }
    },
    async members(listId, page) {
      const rows = [...memberships.values()].filter((m) => m.listId === listId);
      return paginate(rows, (m) => m.id, page, true).map((m) => ({ id: m.id, accountId: m.accountId }));
    },
    async listsContaining(accountId) {
      return newestFirst([...lists.values()].filter((l) => isMember(l.id, accountId))).map(clone);
    },
  };
}
