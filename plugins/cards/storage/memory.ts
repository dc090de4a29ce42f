import type { MemoryExtensionContext } from 'rookery/memory';
import { type Id, type PreviewCard, StorageConflict } from 'rookery/plugin-kit';
import type { CardRepository } from './port.ts';

const clone = <T>(value: T): T => structuredClone(value);

export function memoryCardRepository(context: MemoryExtensionContext): CardRepository {
  const cards = (context.state['cards'] ??= new Map<Id, PreviewCard>()) as Map<Id, PreviewCard>;
  const byUrl = (context.state['byUrl'] ??= new Map<string, Id>()) as Map<string, Id>;
  const ofStatus = (context.state['ofStatus'] ??= new Map<Id, Id>()) as Map<Id, Id>;
  return {
    async upsert(c) {
      const existingId = byUrl.get(c.url);
      if (existingId !== undefined) {
        const stored = { ...clone(c), id: existingId };
        cards.set(existingId, stored);
        return clone(stored);
      }
      if (cards.has(c.id)) throw new StorageConflict('id');
      cards.set(c.id, clone(c));
      byUrl.set(c.url, c.id);
      return clone(c);
    },
    async findByUrl(url) {
      const id = byUrl.get(url);
      const c = id === undefined ? undefined : cards.get(id);
      return c ? clone(c) : null;
    },
    async attach(statusId, cardId, outbox) {
      context.withOutbox(outbox, () => void ofStatus.set(statusId, cardId));
    },
    async forStatuses(statusIds) {
      const out = new Map<Id, PreviewCard>();
      for (const id of statusIds) {
        const cardId = ofStatus.get(id);
        const c = cardId === undefined ? undefined : cards.get(cardId);
        if (c) out.set(id, clone(c));
      }
      return out;
    },
  };
}
