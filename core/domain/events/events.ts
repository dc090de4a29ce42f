// Domain events: what happened. Each one is recorded by the write that made it happen, in the
// same atomic step (the storage port's outbox), and handled afterwards, off the request path, by
// every handler that subscribed to its type (notifications, streams, plugins, federation), each
// as its own job with its own retries. Events carry plain data, so a job can be stored anywhere.

import type { Account, Filter, Follow, Id, Notification, Quote, Report, Status } from '../model.ts';

export type DomainEvent =
  /** `quotedStatusId`: the status it quotes, null when none; a local publish says which, so that
   * listeners need not read it. Left out where it is not told (a remote status, an event
   * recorded before it was named): then whoever needs it reads the quote. */
  | { type: 'status.created'; status: Status; quotedStatusId?: Id | null }
  | { type: 'status.updated'; status: Status }
  /** What readers see of a status changed without an edit (its preview card arrived). */
  | { type: 'status.refreshed'; status: Status }
  /** A local account was created (federation makes its keys). Queued just after the write, not
   * in it: what listens must also cope without it (keys are made on first need too). */
  | { type: 'account.created'; account: Account }
  /** A profile changed (display name, note, images, fields …), for federation and plugins. */
  | { type: 'account.updated'; account: Account }
  | { type: 'status.deleted'; status: Status; boosts: Status[] }
  | { type: 'status.reblogged'; boost: Status; original: Status }
  | { type: 'status.unreblogged'; boost: Status; original: Status }
  | { type: 'status.favourited'; status: Status; by: Account }
  /** A favourite taken back (not recorded when there was none). */
  | { type: 'status.unfavourited'; status: Status; by: Account }
  | { type: 'account.followed'; follow: Follow; requested: boolean }
  /** A follow ended, or a pending request to follow was withdrawn, by its follower. */
  | { type: 'account.unfollowed'; follow: Follow }
  /** The target accepted a request: `follow` is the follow now in place. */
  | { type: 'follow_request.authorized'; follow: Follow }
  /** The target (`targetAccountId`) turned down the request of `accountId`, or removed it from
   * its followers. */
  | { type: 'follow_request.rejected'; accountId: Id; targetAccountId: Id }
  | { type: 'account.blocked'; accountId: Id; targetAccountId: Id }
  | { type: 'account.unblocked'; accountId: Id; targetAccountId: Id }
  | { type: 'notification.created'; notification: Notification }
  /** A user reported an account to the moderators. */
  | { type: 'report.created'; report: Report }
  /** An account's private conversation gained or lost a status (`id`: the AccountConversation). */
  | { type: 'conversation.updated'; accountId: Id; id: Id }
  | { type: 'filters.changed'; accountId: Id; filter: Filter | null }
  /** A block, mute or domain block of `accountId` changed (about `targetAccountId` when it is an
   * account): what both of them may see of each other changed. */
  | { type: 'relationship.changed'; accountId: Id; targetAccountId: Id | null }
  /** The user's reading settings (chosen languages) changed. */
  | { type: 'settings.changed'; accountId: Id }
  | { type: 'token.revoked'; tokenId: Id; accountId: Id | null }
  | { type: 'account.disabled'; accountId: Id }
  /** An account was deleted (accounts/delete.ts): `account` as it was, with its deletedAt; its
   * data goes in the background. Plugins remove what they keep for it. */
  | { type: 'account.deleted'; account: Account }
  /** A page of the remote accounts that knew a deleted local account (followers, follows):
   * their servers are to be told (federation sends the `Delete` of the actor). */
  | { type: 'account.departed'; account: Account; audience: Id[] }
  /** A local account moved to another (`target`, local or remote): its followers are asked to
   * follow the target (federation sends the `Move` to the remote ones' servers). */
  | { type: 'account.moved'; account: Account; target: Account }
  /** Who may quote a local status changed (its interaction policy): readers and other servers
   * learn it as they learn of an edit, but it is none. */
  | { type: 'status.policy_changed'; status: Status }
  /** A quote's state changed after its status was written (accepted, rejected, revoked). */
  | { type: 'quote.changed'; quote: Quote; from: Quote['state'] };

export type DomainEventType = DomainEvent['type'];

/** The key that keeps one subject's events in order (a status's update before its delete): the
 * status a status event concerns (a boost's original), else the account or token. */
export function orderingKeyOf(event: DomainEvent): string {
  switch (event.type) {
    case 'status.created':
    case 'status.updated':
    case 'status.refreshed':
    case 'status.policy_changed':
    case 'status.deleted':
      return `status:${event.status.reblogOfId ?? event.status.id}`;
    case 'account.created':
    case 'account.updated':
    case 'account.deleted':
    case 'account.departed':
    case 'account.moved':
      return `account:${event.account.id}`;
    case 'status.reblogged':
    case 'status.unreblogged':
      return `status:${event.original.id}`;
    case 'status.favourited':
    case 'status.unfavourited':
      return `status:${event.status.id}`;
    case 'account.followed':
    case 'account.unfollowed':
    case 'follow_request.authorized':
      return `account:${event.follow.targetAccountId}`;
    case 'follow_request.rejected':
    case 'account.blocked':
    case 'account.unblocked':
      return `account:${event.targetAccountId}`;
    case 'notification.created':
      return `account:${event.notification.accountId}`;
    case 'report.created':
      return `account:${event.report.targetAccountId}`;
    case 'conversation.updated':
    case 'filters.changed':
    case 'relationship.changed':
    case 'settings.changed':
    case 'account.disabled':
      return `account:${event.accountId}`;
    case 'token.revoked':
      return `token:${event.tokenId}`;
    case 'quote.changed':
      return `status:${event.quote.statusId}`;
  }
}

/** A recorded event: the event and the id it was recorded under (stable across retries, so a
 * handler can make its effects idempotent with it). */
export interface RecordedEvent {
  id: Id;
  event: DomainEvent;
}
