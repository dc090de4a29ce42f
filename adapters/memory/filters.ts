import { compareIds } from '../../core/domain/ids.ts';
import { StorageConflict, type FilterRepository, type MarkerRepository } from '../../core/domain/ports/storage.ts';
import type { Marker } from '../../core/domain/model.ts';
import { clone, pair } from './shared.ts';
import type { MemoryState } from './state.ts';
import { recordOutbox } from './jobs.ts';

// ---- filters ----------------------------------------------------------------------------------

export function filterRepository(state: MemoryState): FilterRepository {
  const { filters } = state;
  return {
    async create(f, outbox) {
      if (filters.has(f.id)) throw new StorageConflict('id');
      filters.set(f.id, clone(f));
      recordOutbox(state.jobs, outbox, f);
    },
    async get(id) {
      const f = filters.get(id);
      return f ? clone(f) : null;
    },
    async listBy(accountId) {
      return [...filters.values()].filter((f) => f.accountId === accountId).sort((a, b) => compareIds(a.id, b.id)).map(clone);
    },
    async replace(f, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (!filters.has(f.id)) return null;
        filters.set(f.id, clone(f));
        return clone(f);
      })());
    },
    async delete(id, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        return filters.delete(id);
      })());
    },
  };
}

// ---- markers ----------------------------------------------------------------------------------

export function markerRepository(state: MemoryState): MarkerRepository {
  const { markers } = state;
  return {
    async get(accountId, timelines) {
      const out: Marker[] = [];
      for (const tl of new Set(timelines)) {
        const m = markers.get(pair(accountId, tl));
        if (m) out.push(clone(m));
      }
      return out;
    },
    async set(accountId, timeline, lastReadId, updatedAt) {
      const k = pair(accountId, timeline);
      const previous = markers.get(k);
      const m: Marker = { accountId, timeline, lastReadId, updatedAt, version: previous ? previous.version + 1 : 0 };
      markers.set(k, m);
      return clone(m);
    },
  };
}
