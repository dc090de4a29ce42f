import { compareIds } from '../../core/ids.ts';
import { StorageConflict, type ScheduledStatusRepository } from '../../core/ports/storage.ts';
import { clone, paginate } from './shared.ts';
import type { MemoryState } from './state.ts';

export function scheduledStatusRepository(state: MemoryState): ScheduledStatusRepository {
  const { scheduledById } = state;
  return {
    async create(s) {
      if (scheduledById.has(s.id)) throw new StorageConflict('id');
      scheduledById.set(s.id, clone(s));
    },
    async get(id) {
      const s = scheduledById.get(id);
      return s ? clone(s) : null;
    },
    async listBy(accountId, page) {
      const rows = [...scheduledById.values()].filter((s) => s.accountId === accountId);
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async update(id, scheduledAt) {
      const s = scheduledById.get(id);
      if (!s) return null;
      s.scheduledAt = scheduledAt;
      return clone(s);
    },
    async delete(id) {
      return scheduledById.delete(id);
    },
    async countBetween(accountId, from, to) {
      let n = 0;
      for (const s of scheduledById.values()) if (s.accountId === accountId && s.scheduledAt >= from && s.scheduledAt < to) n += 1;
      return n;
    },
    async countPending(accountId) {
      let n = 0;
      for (const s of scheduledById.values()) if (s.accountId === accountId) n += 1;
      return n;
    },
    async claimDue(now, leaseMs, limit) {
      const due = [...scheduledById.values()]
        .filter((s) => s.scheduledAt <= now && (s.claimedUntil === null || s.claimedUntil <= now))
        .sort((a, b) => a.scheduledAt - b.scheduledAt || compareIds(a.id, b.id))
        .slice(0, Math.max(0, limit));
      for (const s of due) s.claimedUntil = now + leaseMs;
      return due.map(clone);
    },
  };
}
