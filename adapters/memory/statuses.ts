import { compareIds } from '../../core/domain/ids.ts';
import { runWritesSync, StorageConflict, type StatusQuery, type StatusRepository } from '../../core/domain/ports/storage.ts';
import type { Id, Status } from '../../core/domain/model.ts';
import { addToAccount } from './accounts.ts';
import { assignDefined, clone, decrement, newestFirst, paginate, pair, uniqueIds } from './shared.ts';
import type { MemoryState } from './state.ts';
import { recordOutbox } from './jobs.ts';

/** The stored status when it exists and is not deleted (what every reader of statuses sees). */
export function live(state: MemoryState, id: Id | null): Status | undefined {
  if (id === null) return undefined;
  const s = state.statuses.get(id);
  return s !== undefined && s.deletedAt === null ? s : undefined;
}

/** Moves a status's counter by one, never below zero (replies, boosts, favourites call this). */
export function addToStatus(state: MemoryState, id: Id | null, field: 'repliesCount' | 'reblogsCount' | 'favouritesCount', delta: 1 | -1): void {
  const s = id === null ? undefined : state.statuses.get(id);
  if (s) s[field] = delta > 0 ? s[field] + 1 : decrement(s[field]);
}

function insertStatus(state: MemoryState, s: Status): Status {
  const { statuses, liveBoosts } = state;
  if (statuses.has(s.id)) throw new StorageConflict('id');
  if (s.reblogOfId !== null && s.deletedAt === null && liveBoosts.has(pair(s.accountId, s.reblogOfId))) throw new StorageConflict('reblog');
  if (s.uri !== null && state.statusByUri.has(s.uri)) throw new StorageConflict('uri');
  const stored = clone(s);
  statuses.set(stored.id, stored);
  if (stored.uri !== null) state.statusByUri.set(stored.uri, stored.id);
  if (stored.reblogOfId !== null && stored.deletedAt === null) liveBoosts.set(pair(stored.accountId, stored.reblogOfId), stored.id);
  return stored;
}

function softDelete(state: MemoryState, s: Status, at: number): void {
  s.deletedAt = at;
  if (s.reblogOfId !== null) state.liveBoosts.delete(pair(s.accountId, s.reblogOfId));
}

function matches(s: Status, q: StatusQuery, followed: Set<Id> | null, members: Set<Id> | null): boolean {
  if (s.deletedAt !== null) return false;
  if (!q.visibilities.includes(s.visibility) && !(q.orMentioning !== undefined && s.mentionIds.includes(q.orMentioning))) return false;
  if (q.authorId !== undefined && s.accountId !== q.authorId) return false;
  if (followed !== null && s.accountId !== q.homeOf && !followed.has(s.accountId)) return false;
  if (members !== null && !members.has(s.accountId)) return false;
  if (q.tag !== undefined && !s.tags.includes(q.tag)) return false;
  if (q.local !== undefined && s.local !== q.local) return false;
  if (q.onlyMedia && s.mediaIds.length === 0) return false;
  if (q.excludeReblogs && s.reblogOfId !== null) return false;
  if (q.excludeRepliesToOthers && s.inReplyToId !== null && s.inReplyToAccountId !== s.accountId) return false;
  return true;
}

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function statusRepository(state: MemoryState, store: object): StatusRepository {
  const { statuses, liveBoosts, idempotency, edits, editIds, accounts, pins, follows, memberships } = state;
  return {
    async create(s, effects, options) {
      return recordOutbox(state.jobs, options?.outbox, (() => {
        const idem = options?.idempotency;
        if (idem) {
          const used = idempotency.get(pair(s.accountId, idem.key));
          if (used && used.usedAt >= idem.notBefore) {
            const first = live(state, used.statusId);
            return { created: false, existing: first ? clone(first) : null };
          }
        }
        if (statuses.has(s.id)) throw new StorageConflict('id');
        runWritesSync(options?.writes, store, 'check', undefined);
        const stored = insertStatus(state, s);
        runWritesSync(options?.writes, store, 'apply', undefined);
        if (effects.countForAuthor) {
          addToAccount(state, s.accountId, 'statusesCount', 1);
          const a = accounts.get(s.accountId);
          if (a) a.lastStatusAt = s.createdAt;
        }
        addToStatus(state, effects.countReplyOf, 'repliesCount', 1);
        if (idem) idempotency.set(pair(s.accountId, idem.key), { statusId: s.id, usedAt: s.createdAt });
        return { created: true, status: clone(stored) };
      })());
    },
    async findIdempotent(accountId, key, notBefore) {
      const used = idempotency.get(pair(accountId, key));
      if (!used || used.usedAt < notBefore) return null;
      const first = live(state, used.statusId);
      return { status: first ? clone(first) : null };
    },
    async reblog(b, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (b.reblogOfId === null) throw new TypeError('reblog: the status is not a boost (reblogOfId is null)');
        const existing = live(state, liveBoosts.get(pair(b.accountId, b.reblogOfId)) ?? null);
        if (existing) return { created: false, status: clone(existing) };
        const stored = insertStatus(state, b);
        addToStatus(state, b.reblogOfId, 'reblogsCount', 1);
        addToAccount(state, b.accountId, 'statusesCount', 1);
        return { created: true, status: clone(stored) };
      })());
    },
    async get(id) {
      const s = live(state, id);
      return s ? clone(s) : null;
    },
    async getMany(ids) {
      const out: Status[] = [];
      for (const id of uniqueIds(ids)) {
        const s = live(state, id);
        if (s) out.push(clone(s));
      }
      return newestFirst(out);
    },
    async findByUri(uri) {
      const s = live(state, state.statusByUri.get(uri) ?? null);
      return s ? clone(s) : null;
    },
    async findReblog(accountId, statusId) {
      const s = live(state, liveBoosts.get(pair(accountId, statusId)) ?? null);
      return s ? clone(s) : null;
    },
    async delete(id, deletedAt, effects, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const s = live(state, id);
        if (!s) return null;
        softDelete(state, s, deletedAt);
        if (effects.countForAuthor) addToAccount(state, s.accountId, 'statusesCount', -1);
        addToStatus(state, effects.countReplyOf, 'repliesCount', -1);
        if (s.reblogOfId !== null) addToStatus(state, s.reblogOfId, 'reblogsCount', -1);
        const boosts: Status[] = [];
        for (const b of statuses.values()) {
          if (b.reblogOfId === id && b.deletedAt === null) {
            softDelete(state, b, deletedAt);
            addToAccount(state, b.accountId, 'statusesCount', -1);
            boosts.push(b);
          }
        }
        boosts.sort((a, b) => compareIds(a.id, b.id));
        for (const p of [...pins.values()]) if (p.statusId === id) pins.remove(p.accountId, p.statusId);
        return { status: clone(s), boosts: boosts.map(clone) };
      })());
    },
    async update(id, patch, revisions, options) {
      return recordOutbox(state.jobs, options?.outbox, (() => {
        const s = live(state, id);
        if (!s) return null;
        for (const r of revisions) if (editIds.has(r.id)) throw new StorageConflict('id');
        runWritesSync(options?.writes, store, 'check', undefined);
        assignDefined(s, patch);
        const history = edits.get(id) ?? [];
        for (const r of revisions) {
          history.push(clone(r));
          editIds.add(r.id);
        }
        edits.set(id, history);
        runWritesSync(options?.writes, store, 'apply', undefined);
        return clone(s);
      })());
    },
    async edits(statusId) {
      const history = [...(edits.get(statusId) ?? [])];
      history.sort((a, b) => a.createdAt - b.createdAt || compareIds(a.id, b.id));
      return history.map(clone);
    },
    async query(q, page) {
      let followed: Set<Id> | null = null;
      if (q.homeOf !== undefined) {
        followed = new Set();
        for (const f of follows.values()) if (f.accountId === q.homeOf) followed.add(f.targetAccountId);
      }
      let members: Set<Id> | null = null;
      if (q.listId !== undefined) {
        members = new Set();
        for (const m of memberships.values()) if (m.listId === q.listId) members.add(m.accountId);
      }
      const rows: Status[] = [];
      for (const s of statuses.values()) if (matches(s, q, followed, members)) rows.push(s);
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async replies(parentIds) {
      const parents = new Set(parentIds);
      const out: Status[] = [];
      for (const s of statuses.values()) if (s.deletedAt === null && s.inReplyToId !== null && parents.has(s.inReplyToId)) out.push(s);
      out.sort((a, b) => compareIds(a.id, b.id));
      return out.map(clone);
    },
    async reblogs(statusId, visibilities, page) {
      const rows: Status[] = [];
      for (const s of statuses.values()) {
        if (s.deletedAt === null && s.reblogOfId === statusId && visibilities.includes(s.visibility)) rows.push(s);
      }
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async countLocal() {
      let n = 0;
      for (const s of statuses.values()) if (s.local && s.deletedAt === null) n += 1;
      return n;
    },
  };
}
