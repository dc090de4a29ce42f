import { StorageConflict, type CardRepository } from '../../core/ports/storage.ts';
import type { Id, PreviewCard } from '../../core/model.ts';
import { clone } from './shared.ts';
import type { MemoryState } from './state.ts';

export function cardRepository(state: MemoryState): CardRepository {
  const { cards, cardByUrl, statusCards } = state;
  return {
    async upsert(c) {
      const existingId = cardByUrl.get(c.url);
      if (existingId !== undefined) {
        const stored = { ...clone(c), id: existingId };
        cards.set(existingId, stored);
        return clone(stored);
      }
      if (cards.has(c.id)) throw new StorageConflict('id');
      cards.set(c.id, clone(c));
      cardByUrl.set(c.url, c.id);
      return clone(c);
    },
    async findByUrl(url) {
      const id = cardByUrl.get(url);
      const c = id === undefined ? undefined : cards.get(id);
      return c ? clone(c) : null;
    },
    async attach(statusId, cardId) {
      statusCards.set(statusId, cardId);
    },
    async forStatuses(statusIds) {
      const out = new Map<Id, PreviewCard>();
      for (const id of statusIds) {
        const cardId = statusCards.get(id);
        const c = cardId === undefined ? undefined : cards.get(cardId);
        if (c) out.set(id, clone(c));
      }
      return out;
    },
  };
}
