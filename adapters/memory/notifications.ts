import { compareIds } from '../../core/domain/ids.ts';
import { StorageConflict, type NotificationRepository } from '../../core/domain/ports/storage.ts';
import { recordOutbox } from './jobs.ts';
import { clone, pair, paginate } from './shared.ts';
import type { MemoryState } from './state.ts';

export function notificationRepository(state: MemoryState): NotificationRepository {
  const { notifications } = state;
  return {
    async create(n, options = {}) {
      const key = options.key === undefined ? null : pair(n.accountId, options.key);
      if (key !== null && state.notificationKeys.has(key)) return recordOutbox(state.jobs, options.outbox, false);
      if (notifications.has(n.id)) throw new StorageConflict('id');
      notifications.set(n.id, clone(n));
      if (key !== null) state.notificationKeys.add(key);
      return recordOutbox(state.jobs, options.outbox, true);
    },
    async get(accountId, id) {
      const n = notifications.get(id);
      return n && n.accountId === accountId ? clone(n) : null;
    },
    async list(accountId, f, page) {
      const rows = [...notifications.values()].filter(
        (n) =>
          n.accountId === accountId &&
          (f.types === undefined || f.types.includes(n.type)) &&
          (f.excludeTypes === undefined || !f.excludeTypes.includes(n.type)) &&
          (f.fromAccountId === undefined || n.fromAccountId === f.fromAccountId),
      );
      return paginate(rows, (n) => n.id, page).map(clone);
    },
    async dismiss(accountId, id) {
      const n = notifications.get(id);
      if (!n || n.accountId !== accountId) return false;
      notifications.delete(id);
      return true;
    },
    async clear(accountId) {
      for (const [id, n] of [...notifications]) if (n.accountId === accountId) notifications.delete(id);
    },
    async countSince(accountId, sinceId, limit) {
      let n = 0;
      for (const x of notifications.values()) if (x.accountId === accountId && (sinceId === null || compareIds(x.id, sinceId) > 0)) n += 1;
      return Math.min(n, Math.max(0, limit));
    },
  };
}
