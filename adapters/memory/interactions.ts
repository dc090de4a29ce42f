import { compareIds } from '../../core/domain/ids.ts';
import type { InteractionRepository } from '../../core/domain/ports/storage.ts';
import type { Id } from '../../core/domain/model.ts';
import { clone, paginate, pair, uniqueIds } from './shared.ts';
import type { MemoryState } from './state.ts';
import { addToStatus, live } from './statuses.ts';
import { recordOutbox } from './jobs.ts';

export function interactionRepository(state: MemoryState): InteractionRepository {
  const { favourites, bookmarks, pins, conversationMutes, liveBoosts } = state;
  const livePinCount = (accountId: Id): number => {
    let n = 0;
    for (const p of pins.values()) if (p.accountId === accountId && live(state, p.statusId)) n += 1;
    return n;
  };
  return {
    async favourite(m, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (favourites.get(m.accountId, m.statusId)) return false;
        favourites.insert(m.accountId, m.statusId, clone(m));
        addToStatus(state, m.statusId, 'favouritesCount', 1);
        return true;
      })());
    },
    async unfavourite(accountId, statusId, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        if (!favourites.remove(accountId, statusId)) return false;
        addToStatus(state, statusId, 'favouritesCount', -1);
        return true;
      })());
    },
    async favouritesOf(statusId, page) {
      const rows = [...favourites.values()].filter((m) => m.statusId === statusId);
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async favouritesBy(accountId, page) {
      const rows = [...favourites.values()].filter((m) => m.accountId === accountId && live(state, m.statusId));
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async bookmark(m) {
      if (bookmarks.get(m.accountId, m.statusId)) return false;
      bookmarks.insert(m.accountId, m.statusId, clone(m));
      return true;
    },
    async unbookmark(accountId, statusId) {
      return bookmarks.remove(accountId, statusId) !== undefined;
    },
    async bookmarksBy(accountId, page) {
      const rows = [...bookmarks.values()].filter((m) => m.accountId === accountId && live(state, m.statusId));
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async pin(m, max) {
      if (pins.get(m.accountId, m.statusId)) return 'exists';
      if (livePinCount(m.accountId) >= max) return 'limit';
      pins.insert(m.accountId, m.statusId, clone(m));
      return 'added';
    },
    async unpin(accountId, statusId) {
      return pins.remove(accountId, statusId) !== undefined;
    },
    async pinsBy(accountId) {
      const rows = [...pins.values()].filter((m) => m.accountId === accountId && live(state, m.statusId));
      rows.sort((a, b) => compareIds(b.id, a.id));
      return rows.map(clone);
    },
    async muteConversation(accountId, conversationId) {
      const k = pair(accountId, conversationId);
      if (conversationMutes.has(k)) return false;
      conversationMutes.add(k);
      return true;
    },
    async unmuteConversation(accountId, conversationId) {
      return conversationMutes.delete(pair(accountId, conversationId));
    },
    async conversationMutedBy(conversationId, accountIds) {
      return uniqueIds(accountIds).filter((a) => conversationMutes.has(pair(a, conversationId)));
    },
    async viewerState(accountId, statusIds, conversationIds) {
      const viewer = {
        favourited: new Set<Id>(),
        reblogged: new Set<Id>(),
        bookmarked: new Set<Id>(),
        pinned: new Set<Id>(),
        mutedConversations: new Set<Id>(),
      };
      for (const id of statusIds) {
        if (favourites.get(accountId, id)) viewer.favourited.add(id);
        if (live(state, liveBoosts.get(pair(accountId, id)) ?? null)) viewer.reblogged.add(id);
        if (bookmarks.get(accountId, id)) viewer.bookmarked.add(id);
        if (pins.get(accountId, id)) viewer.pinned.add(id);
      }
      for (const c of conversationIds) if (conversationMutes.has(pair(accountId, c))) viewer.mutedConversations.add(c);
      return viewer;
    },
  };
}
