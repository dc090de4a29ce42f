import type { MemoryExtensionContext } from 'rookery/memory';
import { type Id, type MediaAttachment, StorageConflict } from 'rookery/plugin-kit';
import type { MediaRepository } from './port.ts';

const clone = <T>(value: T): T => structuredClone(value);

export function memoryMediaRepository(context: MemoryExtensionContext): MediaRepository {
  const byId = (context.state['media'] ??= new Map<Id, MediaAttachment>()) as Map<Id, MediaAttachment>;
  return {
    async create(m, outbox) {
      context.withOutbox(outbox, () => {
        if (byId.has(m.id)) throw new StorageConflict('id');
        byId.set(m.id, clone(m));
      });
    },
    async get(id) {
      const m = byId.get(id);
      return m ? clone(m) : null;
    },
    async getMany(ids) {
      const out: MediaAttachment[] = [];
      for (const id of new Set(ids)) {
        const m = byId.get(id);
        if (m) out.push(clone(m));
      }
      return out;
    },
    async update(id, patch) {
      const m = byId.get(id);
      if (!m) return null;
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) (m as unknown as Record<string, unknown>)[k] = clone(v);
      return clone(m);
    },
    async deleteUnattached(id) {
      const m = byId.get(id);
      if (!m || m.statusId !== null) return false;
      byId.delete(id);
      return true;
    },
    async unattachedBefore(before, limit) {
      return [...byId.values()]
        .filter((m) => m.statusId === null && m.createdAt < before)
        .sort((a, b) => a.createdAt - b.createdAt)
        .slice(0, Math.max(0, limit))
        .map(clone);
    },
    attach(accountId, statusId, mediaIds, released = []) {
      return context.prepare({
        check() {
          for (const id of mediaIds) {
            const m = byId.get(id);
            if (!m || m.accountId !== accountId || (m.statusId !== null && m.statusId !== statusId && !released.includes(m.statusId))) throw new StorageConflict('media');
          }
        },
        apply() {
          for (const id of mediaIds) {
            const m = byId.get(id);
            if (m) m.statusId = statusId;
          }
        },
      });
    },
  };
}
