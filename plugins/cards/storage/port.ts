// The preview cards plugin's repository: one shared card per URL, and which card each status
// shows. Contract: cards/storage/contract.ts.

import type { Id, Outbox, PreviewCard } from 'rookery/plugin-kit';

export interface CardRepository {
  /** Inserts or replaces the card with this url; returns the stored card (its id kept on replace). */
  upsert(card: PreviewCard): Promise<PreviewCard>;
  findByUrl(url: string): Promise<PreviewCard | null>;
  /** Links a status to a card (replacing its card), with its outbox's jobs (a status.update). */
  attach(statusId: Id, cardId: Id, outbox?: Outbox<void>): Promise<void>;
  /** statusId → card for those of `statusIds` that have one. */
  forStatuses(statusIds: readonly Id[]): Promise<Map<Id, PreviewCard>>;
}
