import { StorageConflict, type MediaRepository, type PollRepository } from '../../core/ports/storage.ts';
import type { Id, MediaAttachment, Poll } from '../../core/model.ts';
import { assignDefined, clone, newestFirst, pair, uniqueIds } from './shared.ts';
import type { MemoryState } from './state.ts';

// ---- helpers for statuses, which attach media and polls ----------------------------------------

/** Each media must exist, belong to the author and be unattached (or attached to `own`). */
export function checkMedia(state: MemoryState, accountId: Id, mediaIds: readonly Id[], own: Id | null): void {
  for (const id of mediaIds) {
    const m = state.mediaById.get(id);
    if (!m || m.accountId !== accountId || (m.statusId !== null && m.statusId !== own)) throw new StorageConflict('media');
  }
}

export function attachMedia(state: MemoryState, statusId: Id, mediaIds: readonly Id[]): void {
  for (const id of mediaIds) {
    const m = state.mediaById.get(id);
    if (m) m.statusId = statusId;
  }
}

/** Inserts a poll; `replace` overwrites one with the same id, dropping its votes when it has no voters. */
export function storePoll(state: MemoryState, p: Poll, replace: boolean): void {
  const { polls, pollVotes } = state;
  if (polls.has(p.id)) {
    if (!replace) throw new StorageConflict('id');
    if (p.votersCount === 0) {
      for (const k of [...pollVotes.keys()]) if (k.startsWith(pair(p.id, ''))) pollVotes.delete(k);
    }
  }
  polls.set(p.id, clone(p));
}

// ---- media -------------------------------------------------------------------------------------

export function mediaRepository(state: MemoryState): MediaRepository {
  const { mediaById } = state;
  return {
    async create(m) {
      if (mediaById.has(m.id)) throw new StorageConflict('id');
      mediaById.set(m.id, clone(m));
    },
    async get(id) {
      const m = mediaById.get(id);
      return m ? clone(m) : null;
    },
    async getMany(ids) {
      const out: MediaAttachment[] = [];
      for (const id of uniqueIds(ids)) {
        const m = mediaById.get(id);
        if (m) out.push(clone(m));
      }
      return out;
    },
    async update(id, patch) {
      const m = mediaById.get(id);
      if (!m) return null;
      assignDefined(m, patch);
      return clone(m);
    },
    async deleteUnattached(id) {
      const m = mediaById.get(id);
      if (!m || m.statusId !== null) return false;
      mediaById.delete(id);
      return true;
    },
  };
}

// ---- polls -------------------------------------------------------------------------------------

export function pollRepository(state: MemoryState): PollRepository {
  const { polls, pollVotes } = state;
  return {
    async get(id) {
      const p = polls.get(id);
      return p ? clone(p) : null;
    },
    async getMany(ids) {
      const out: Poll[] = [];
      for (const id of uniqueIds(ids)) {
        const p = polls.get(id);
        if (p) out.push(clone(p));
      }
      return newestFirst(out);
    },
    async vote(pollId, accountId, choices) {
      const p = polls.get(pollId);
      const k = pair(pollId, accountId);
      if (!p || pollVotes.has(k)) return 'already';
      pollVotes.set(k, [...choices]);
      for (const c of choices) p.votes[c] = (p.votes[c] ?? 0) + 1;
      p.votesCount += choices.length;
      p.votersCount += 1;
      return 'voted';
    },
    async votesBy(accountId, pollIds) {
      const out = new Map<Id, number[]>();
      for (const id of pollIds) {
        const v = pollVotes.get(pair(id, accountId));
        if (v) out.set(id, [...v]);
      }
      return out;
    },
  };
}
