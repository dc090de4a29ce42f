// Domain events: what happened, emitted only after the write that made it happen committed.
// core/events/dispatch.ts turns them into notifications and stream messages; plugins may
// listen to them too (a preview-card fetcher listens to status.created, for instance).

import type { Account, Filter, Follow, Id, Notification, Status } from '../model.ts';

export type DomainEvent =
  | { type: 'status.created'; status: Status }
  | { type: 'status.updated'; status: Status }
  | { type: 'status.deleted'; status: Status; boosts: Status[] }
  | { type: 'status.reblogged'; boost: Status; original: Status }
  | { type: 'status.unreblogged'; boost: Status; original: Status }
  | { type: 'status.favourited'; status: Status; by: Account }
  | { type: 'account.followed'; follow: Follow; requested: boolean }
  | { type: 'notification.created'; notification: Notification }
  | { type: 'filters.changed'; accountId: Id; filter: Filter | null };

export type DomainEventType = DomainEvent['type'];
