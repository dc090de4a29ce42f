// The scheduled statuses plugin's repository. A due status is published by a write that removes
// its row inside the status's own transaction (`consume`), so it is published exactly once
// whoever runs the job and however often. Contract: scheduled/storage/contract.ts.

import type { Id, Millis, Outbox, Page, ScheduledStatus, StorageWrite } from 'rookery/plugin-kit';

export interface ScheduledStatusRepository {
  /** Inserts it (StorageConflict 'id' when the id is taken), with its outbox's jobs. */
  create(scheduled: ScheduledStatus, outbox?: Outbox<void>): Promise<void>;
  get(id: Id): Promise<ScheduledStatus | null>;
  /** Paged by id. */
  listBy(accountId: Id, page: Page): Promise<ScheduledStatus[]>;
  /** Moves it; null when it does not exist (then the outbox gets null). */
  update(id: Id, scheduledAt: Millis, outbox?: Outbox<ScheduledStatus | null>): Promise<ScheduledStatus | null>;
  delete(id: Id): Promise<boolean>;
  /** Pending statuses of the account scheduled in [from, to). */
  countBetween(accountId: Id, from: Millis, to: Millis): Promise<number>;
  countPending(accountId: Id): Promise<number>;
  /** ATOMIC. Leases up to `limit` due statuses (scheduledAt <= now, no live lease) until
   * now + leaseMs; two processes never lease the same one at once. Oldest first. */
  claimDue(now: Millis, leaseMs: number, limit: number): Promise<ScheduledStatus[]>;
  /** A write for statuses.create: its check refuses (StorageConflict 'scheduled', nothing
   * written) when the row is gone; its apply removes the row. */
  consume(id: Id): StorageWrite;
}
