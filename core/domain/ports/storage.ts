// The storage port: every repository the core needs. Adapters translate these operations to
// one engine and hold no rules; the rules that decide *what* to write live in the core and
// reach the adapter as explicit arguments (which counters move, which visibilities qualify).
//
// Contract (test/contract/ checks every line of it on every adapter):
// - Every method is async and every write is atomic: it happens entirely or not at all, even
//   when several processes share the store. Methods marked ATOMIC also decide something under
//   that atomicity (a flag and its counter, a uniqueness rule, a limit) and must give the same
//   answer under concurrency as they would one at a time.
// - "Live" statuses are those not deleted; reads return live statuses unless they say otherwise.
// - Lists come back newest first (descending id or cursor) unless they say otherwise. A Page
//   selects by cursor: maxId = strictly older, sinceId = strictly newer (newest first),
//   minId = the `limit` items immediately newer than minId (still returned newest first).
// - Returned objects are copies: mutating them never changes the store.
// - Uniqueness violations throw StorageConflict with the name of the broken rule: 'username',
//   'email', 'id' (a taken primary id), 'reblog', 'clientId', 'tokenHash', 'refreshTokenHash',
//   'codeHash', 'idHash', 'uri' (an ActivityPub id already stored); plugins' checks add their own ('media', 'scheduled' …).
// - A write that takes an `outbox` records the jobs it returns in the same atomic step as the
//   write itself (ports/queue.ts): a committed write never lacks its events, and a write that
//   fails leaves none behind. On an engine without multi-document transactions the adapter must
//   still give that guarantee, for instance by storing the pending jobs inside the document the
//   write changes (one atomic document update) and moving them to the queue afterwards, with a
//   sweep that finishes any move a crash interrupted.
// - Plugin-owned storage. A feature plugin (media, polls, scheduled statuses, cards …) brings
//   its own repository through `extend`: one factory per engine, given that engine's extension
//   context (each adapter exports its context type: the SQLite one runs the plugin's own
//   migrations on the plugin's own tables). A plugin's repository may
//   prepare StorageWrites: work that must commit atomically with a status being created or
//   edited (attach media, insert a poll, remove the scheduled row it came from). The adapter
//   runs every `check` before it writes anything, then its own write, then every `apply`, all
//   in the same transaction; a check that throws (StorageConflict, say) leaves nothing behind.
//   A write is stamped with the identity of the store its context came from, and another
//   store refuses it. On an engine without multi-document transactions the adapter must still
//   give that guarantee, in the outbox's way: the status document carries the pending writes
//   (a "pending" marker plus what each apply must do), is inserted in one atomic document
//   write after the checks passed, and the applies are then run idempotently, with a sweep that
//   finishes what a crash interrupted; readers treat a status whose writes are pending as not
//   yet there. Checks must then be re-validated by the applies (conditional updates), so that
//   two racing writes cannot both pass.

import type {
  AccessToken,
  AdminAction,
  ServerBlock,
  ServerBlockKind,
  Report,
  Account,
  Application,
  AuthorizationCode,
  Block,
  Filter,
  Follow,
  FollowRequest,
  Id,
  List,
  MarkerTimeline,
  Marker,
  Millis,
  Mute,
  Notification,
  Quote,
  QuotePolicy,
  QuoteState,
  NotificationPolicy,
  NotificationRequest,
  NotificationType,
  AccountConversation,
  Status,
  StatusEdit,
  TagFollow,
  FeaturedTag,
  Endorsement,
  StatusMark,
  User,
  UserSettings,
  Visibility,
  WebSession,
} from '../model.ts';
import type { JobQueue, Outbox } from './queue.ts';

export interface Page {
  maxId?: Id | undefined;
  sinceId?: Id | undefined;
  minId?: Id | undefined;
  limit: number;
}

/** Thrown by an adapter when a write would break a uniqueness rule; nothing is written. */
export class StorageConflict extends Error {
  readonly rule: string;
  constructor(rule: string, message?: string) {
    super(message ?? `storage conflict: ${rule}`);
    this.name = 'StorageConflict';
    this.rule = rule;
  }
}

export interface AccountRepository {
  /** Creates an account (and its user, for a local sign-up). ATOMIC: throws StorageConflict
   * 'username' when a live account has the same username and domain ignoring case, and
   * 'email' when a user has the same e-mail ignoring case. */
  create(account: Account, user?: User): Promise<void>;
  get(id: Id): Promise<Account | null>;
  /** Missing ids are skipped; order is not significant. */
  getMany(ids: readonly Id[]): Promise<Account[]>;
  /** Case-insensitive (ASCII) on username and domain; domain null = local. */
  findByUsername(username: string, domain: string | null): Promise<Account | null>;
  /** The account with this ActivityPub id (remote accounts carry one; exact match). create
   * throws StorageConflict 'uri' when another account already has it. */
  findByUri(uri: string): Promise<Account | null>;
  /** With `settings`, the user's settings are replaced in the same atomic step (a profile edit
   * that also changes the posting defaults); null when the account does not exist. */
  update(
    id: Id,
    patch: Partial<Pick<Account, 'displayName' | 'note' | 'locked' | 'bot' | 'discoverable' | 'fields' | 'avatarUrl' | 'headerUrl' | 'url' | 'role' | 'suspendedAt' | 'silencedAt' | 'sensitizedAt' | 'deletedAt' | 'movedToAccountId' | 'alsoKnownAs'>>,
    options?: { settings?: UserSettings; outbox?: Outbox<Account | null> },
  ): Promise<Account | null>;
  getUser(accountId: Id): Promise<User | null>;
  /** Case-insensitive (ASCII). */
  findUserByEmail(email: string): Promise<User | null>;
  updateUser(
    accountId: Id,
    patch: Partial<Pick<User, 'passwordHash' | 'confirmedAt' | 'approved' | 'disabled' | 'locale' | 'settings'>>,
    outbox?: Outbox<User | null>,
  ): Promise<User | null>;
  /** Local accounts that have a user, deleted ones left out; with `activeSince`, only those
   * whose last status is at or after it (NodeInfo's active users). */
  /** Sets a user's e-mail address; StorageConflict 'email' when another user has it (case
   * ignored); null when there is no such user. */
  changeEmail(accountId: Id, email: string): Promise<User | null>;
  countLocalUsers(activeSince?: Millis): Promise<number>;
  /** Local accounts holding a staff role (a handful), in no particular order. Deleted accounts
   * are left out. */
  listStaff(): Promise<Account[]>;
  /** The admin API's account listing: the accounts matching every criterion given, newest
   * first by id, paged by id. */
  listForAdmin(filter: AdminAccountFilter, page: Page): Promise<Account[]>;
  /** Removes a local account whose user is not approved yet (a rejected sign-up) with its
   * user, in one atomic step; false (nothing removed) when there is no such account or its
   * user is approved. */
  removeUnapproved(accountId: Id): Promise<boolean>;
}

/** What the admin API filters accounts by (Mastodon's AccountFilter); every criterion given
 * must hold. Text criteria compare ASCII case-insensitively. */
export interface AdminAccountFilter {
  /** local: accounts of this server; remote: the others. */
  origin?: 'local' | 'remote';
  /** active: not suspended; pending: a user not yet approved; disabled: a disabled user, not
   * suspended; silenced, suspended, sensitized: so marked. */
  status?: 'active' | 'pending' | 'disabled' | 'silenced' | 'suspended' | 'sensitized';
  /** Local accounts holding one of these role names. */
  roles?: readonly string[];
  /** The account's domain, exactly. */
  domain?: string;
  /** The username starts with this. */
  usernamePrefix?: string;
  /** The display name contains this. */
  displayNameContains?: string;
  /** The user's e-mail address starts with this. */
  emailPrefix?: string;
}

export interface StatusQuery {
  /** Allowed visibilities. */
  visibilities: readonly Visibility[];
  /** Also allow any visibility when this account is mentioned. */
  orMentioning?: Id | undefined;
  /** Only statuses written by this account. */
  authorId?: Id | undefined;
  /** Only statuses written by this account or by the accounts it follows. */
  homeOf?: Id | undefined;
  /** Only statuses written by members of this list. */
  listId?: Id | undefined;
  /** Only statuses carrying this hashtag (exact match: the core stores and asks for normalized names). */
  tag?: string | undefined;
  /** Only statuses carrying at least one of these hashtags (normalized names; none: no status). */
  anyTag?: readonly string[] | undefined;
  /** true: only local statuses; false: only remote ones. */
  local?: boolean | undefined;
  onlyMedia?: boolean | undefined;
  excludeReblogs?: boolean | undefined;
  /** Drop replies, except a reply by the author of the status it replies to (self-threads). */
  excludeRepliesToOthers?: boolean | undefined;
}

export interface CounterEffects {
  /** Add one to the author's statusesCount (and set its lastStatusAt to the status's createdAt). */
  countForAuthor: boolean;
  /** Add one to this status's repliesCount. */
  countReplyOf: Id | null;
}

export type CreateStatusResult =
  | { created: true; status: Status }
  /** The idempotency key was already used: the first status (null when since deleted). */
  | { created: false; existing: Status | null };

export interface DeletedStatus {
  status: Status;
  /** Its boosts, removed with it. */
  boosts: Status[];
}

/** Work a plugin's repository prepared, to commit atomically with a status write (see the top
 * of this file). `store` is the identity of the store it was prepared for; `tx` is what the
 * engine hands its writes (SQLite: the Db inside its transaction). On SQLite both run
 * synchronously inside BEGIN IMMEDIATE, and a returned promise is an error. */
export interface StorageWrite {
  readonly store: object;
  check?(tx: unknown): void | Promise<void>;
  apply(tx: unknown): void | Promise<void>;
}

/** A plugin's storage: its name (the plugin's) and one factory per engine it supports, given
 * that engine's extension context (adapters export the context types). */
export interface StorageExtension<T> {
  name: string;
  engines: { [engine: string]: ((context: never) => T) | undefined };
}

export interface StatusRepository {
  /** ATOMIC. Inserts a status with its mentions and tags, applies the counter effects, and
   * runs the plugins' writes (checks first, applies after the insert) in the same step: a
   * check that throws leaves nothing written. With an idempotency key: when (author, key) was
   * used at or after `notBefore`, nothing is written (and no write is checked) and the first
   * status is returned instead; concurrent calls with one key create one. */
  create(
    status: Status,
    effects: CounterEffects,
    options?: { idempotency?: { key: string; notBefore: Millis }; writes?: readonly StorageWrite[]; outbox?: Outbox<CreateStatusResult> },
  ): Promise<CreateStatusResult>;
  /** The status an idempotency key of this account was first used for at or after `notBefore`
   * ({status: null} when that status was since deleted), or null when the key is unused. */
  findIdempotent(accountId: Id, key: string, notBefore: Millis): Promise<{ status: Status | null } | null>;
  /** ATOMIC. Inserts a boost unless the account already has a live boost of that status, in
   * which case the existing boost is returned (created false). A new boost adds one to the
   * boosted status's reblogsCount and to the booster's statusesCount. */
  reblog(boost: Status, outbox?: Outbox<{ created: boolean; status: Status }>): Promise<{ created: boolean; status: Status }>;
  get(id: Id): Promise<Status | null>;
  getMany(ids: readonly Id[]): Promise<Status[]>;
  /** The live status (or boost) with this ActivityPub id (exact match). A status id stays
   * taken after a delete: create and reblog throw StorageConflict 'uri' when any stored status,
   * deleted or not, already has it (a deleted remote status is not brought back by a replay). */
  findByUri(uri: string): Promise<Status | null>;
  /** The account's live boost of this status. */
  findReblog(accountId: Id, statusId: Id): Promise<Status | null>;
  /** ATOMIC. Soft-deletes a live status and all of its live boosts; returns null when it is not
   * live. Effects: the counter effects are reversed (countForAuthor: statusesCount -1;
   * countReplyOf: repliesCount -1); when the status is itself a boost, the boosted status's
   * reblogsCount -1; every removed boost takes one from its author's statusesCount; pins of
   * the status are removed. */
  delete(id: Id, deletedAt: Millis, effects: CounterEffects, outbox?: Outbox<DeletedStatus | null>): Promise<DeletedStatus | null>;
  /** ATOMIC. Applies an edit to a live status and appends the given revisions to its history;
   * replaces its mentions and tags and runs the plugins' writes as create does (checks before,
   * applies after the update; none of them when the status is not live). */
  update(
    id: Id,
    patch: Pick<Status, 'text' | 'content' | 'spoilerText' | 'sensitive' | 'language' | 'mentionIds' | 'tags' | 'mediaIds' | 'pollId' | 'editedAt'>,
    revisions: readonly StatusEdit[],
    options?: { writes?: readonly StorageWrite[]; outbox?: Outbox<Status | null> },
  ): Promise<Status | null>;
  /** Oldest first. */
  edits(statusId: Id): Promise<StatusEdit[]>;
  query(query: StatusQuery, page: Page): Promise<Status[]>;
  /** Live direct replies to any of these statuses, oldest first. */
  replies(parentIds: readonly Id[]): Promise<Status[]>;
  /** Live boosts of a status with one of these visibilities, paged by the boost's id. */
  reblogs(statusId: Id, visibilities: readonly Visibility[], page: Page): Promise<Status[]>;
  countLocal(): Promise<number>;
}

export interface InteractionRepository {
  /** ATOMIC. Adds a favourite unless (account, status) already has one; true when added.
   * Adding changes the status's favouritesCount by +1 in the same step. */
  favourite(mark: StatusMark, outbox?: Outbox<boolean>): Promise<boolean>;
  /** ATOMIC. Removes the favourite; true when there was one (favouritesCount -1). */
  unfavourite(accountId: Id, statusId: Id, outbox?: Outbox<boolean>): Promise<boolean>;
  /** Favourites of a status, paged by favourite id. */
  favouritesOf(statusId: Id, page: Page): Promise<StatusMark[]>;
  /** An account's favourites of live statuses, paged by favourite id. */
  favouritesBy(accountId: Id, page: Page): Promise<StatusMark[]>;
  /** ATOMIC. true when added, false when it was already there. */
  bookmark(mark: StatusMark): Promise<boolean>;
  /** ATOMIC. true when there was one. */
  unbookmark(accountId: Id, statusId: Id): Promise<boolean>;
  /** An account's bookmarks of live statuses, paged by bookmark id. */
  bookmarksBy(accountId: Id, page: Page): Promise<StatusMark[]>;
  /** ATOMIC. 'limit' when the account already has `max` pins of live statuses. */
  pin(mark: StatusMark, max: number): Promise<'added' | 'exists' | 'limit'>;
  /** ATOMIC. true when there was one. */
  unpin(accountId: Id, statusId: Id): Promise<boolean>;
  /** Pins of live statuses, most recently pinned first. */
  pinsBy(accountId: Id): Promise<StatusMark[]>;
  /** ATOMIC. true when added. */
  muteConversation(accountId: Id, conversationId: Id): Promise<boolean>;
  /** ATOMIC. true when there was one. */
  unmuteConversation(accountId: Id, conversationId: Id): Promise<boolean>;
  /** Accounts among `accountIds` that muted the conversation. */
  conversationMutedBy(conversationId: Id, accountIds: readonly Id[]): Promise<Id[]>;
  /** The per-viewer flags of many statuses at once. */
  viewerState(accountId: Id, statusIds: readonly Id[], conversationIds: readonly Id[]): Promise<ViewerState>;
}

export interface ViewerState {
  favourited: Set<Id>;
  /** Statuses the viewer has a live boost of. */
  reblogged: Set<Id>;
  bookmarked: Set<Id>;
  pinned: Set<Id>;
  mutedConversations: Set<Id>;
}

export interface RelationshipFacts {
  targetId: Id;
  following: Follow | null;
  followedBy: boolean;
  requested: FollowRequest | null;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  muting: Mute | null;
  /** The account blocks the other account's (remote) domain. */
  domainBlocking: boolean;
}

export interface Suggestion {
  accountId: Id;
  /** Why: Mastodon's `sources` names. */
  source: 'friends_of_friends' | 'most_followed';
}

export interface RelationshipRepository {
  /** ATOMIC. Creates the follow (followingCount of the follower and followersCount of the
   * target +1) or, when it exists, updates its options. Removes a pending request between them. */
  follow(follow: Follow, outbox?: Outbox<'created' | 'updated'>): Promise<'created' | 'updated'>;
  /** ATOMIC. true when there was one (both counters -1). */
  unfollow(accountId: Id, targetId: Id, outbox?: Outbox<boolean>): Promise<boolean>;
  getFollow(accountId: Id, targetId: Id): Promise<Follow | null>;
  /** ATOMIC. 'exists' when a request or a follow already exists (the request's options are updated). */
  requestFollow(request: FollowRequest, outbox?: Outbox<'created' | 'exists'>): Promise<'created' | 'exists'>;
  /** ATOMIC. true when there was one. */
  cancelFollowRequest(accountId: Id, targetId: Id, outbox?: Outbox<boolean>): Promise<boolean>;
  /** Pending requests to follow this account, paged by request id. */
  followRequestsTo(targetId: Id, page: Page): Promise<FollowRequest[]>;
  /** Pending requests this account made, paged by request id. */
  followRequestsBy(accountId: Id, page: Page): Promise<FollowRequest[]>;
  /** Follows of this account, paged by follow id. */
  followersOf(targetId: Id, page: Page): Promise<Follow[]>;
  /** Follows by this account, paged by follow id. */
  followingOf(accountId: Id, page: Page): Promise<Follow[]>;
  /** The follows of this account by local accounts (for delivery), newest first. */
  localFollowers(targetId: Id): Promise<Follow[]>;
  /** The follows of this account by local accounts that asked to be told of its posts
   * (`notify`), newest first: who gets a `status` notification. Its own read, not a filter of
   * localFollowers: a post would otherwise build every follower's follow to find these few. */
  notifiedFollowers(targetId: Id): Promise<Follow[]>;
  /** Follows of this account by remote accounts (for delivery), paged by follow id: a
   * federation plugin finds who gets an author's activities without reading every local
   * follower's account. */
  remoteFollowersOf(targetId: Id, page: Page): Promise<Follow[]>;
  /** Accepted follows of any of `targetIds` by an account `viewerId` follows (accepted): the
   * viewer's "familiar followers" of them. Newest first, at most `limit`. */
  familiarFollows(viewerId: Id, targetIds: readonly Id[], limit: number): Promise<Follow[]>;
  /** Follow suggestions for `viewerId`, best first, at most `limit`: first the accounts followed
   * by the accounts it follows (most such follows first, then most followers), then the local
   * accounts with most followers (at least one). Only discoverable accounts; never the viewer,
   * nor an account it follows, has asked to follow, or dismissed. */
  suggestions(viewerId: Id, limit: number): Promise<Suggestion[]>;
  /** Records that `accountId` no longer wants `targetId` suggested (idempotent). */
  dismissSuggestion(accountId: Id, targetId: Id, createdAt: Millis): Promise<void>;
  /** ATOMIC. Adds a block and removes the follows and requests in both directions (with their
   * counters). false when it already existed. */
  block(block: Block, outbox?: Outbox<boolean>): Promise<boolean>;
  unblock(accountId: Id, targetId: Id, outbox?: Outbox<boolean>): Promise<boolean>;
  blocksBy(accountId: Id, page: Page): Promise<Block[]>;
  /** ATOMIC. Adds the mute or updates its options; true when added. */
  mute(mute: Mute, outbox?: Outbox<boolean>): Promise<boolean>;
  unmute(accountId: Id, targetId: Id, outbox?: Outbox<boolean>): Promise<boolean>;
  mutesBy(accountId: Id, page: Page): Promise<Mute[]>;
  /** The earliest time after `after` at which one of `accountId`'s mutes ends; null when none
   * of them ends later (what that account sees then changes with nothing written). */
  nextMuteEnd(accountId: Id, after: Millis): Promise<Millis | null>;
  /** Facts between one account and many others, in the order of targetIds (missing accounts
   * still get a row of falsy facts). */
  relationships(accountId: Id, targetIds: readonly Id[]): Promise<RelationshipFacts[]>;
  /** Of `accountIds`, those that `accountId` blocks or mutes (mutes expired by `now` excepted)
   * or that block `accountId`. */
  hiddenFrom(accountId: Id, accountIds: readonly Id[], now: Millis): Promise<Set<Id>>;
  /** ATOMIC. Hides a whole domain (stored lower case) from the account; false when it already was. */
  blockDomain(block: DomainBlock, outbox?: Outbox<boolean>): Promise<boolean>;
  /** true when there was one. */
  unblockDomain(accountId: Id, domain: string, outbox?: Outbox<boolean>): Promise<boolean>;
  /** The account's domain blocks, paged by their own id. */
  domainBlocksBy(accountId: Id, page: Page): Promise<DomainBlock[]>;
  /** Everything an account keeps out of its sight, whole: what a live stream filters with.
   * Mutes expired by `now` are left out. */
  hiddenState(accountId: Id, now: Millis): Promise<HiddenState>;
}

export interface DomainBlock {
  id: Id;
  accountId: Id;
  /** Lower case. */
  domain: string;
  createdAt: Millis;
}

export interface HiddenState {
  blocking: Id[];
  blockedBy: Id[];
  /** Muted accounts with the time the mute ends (null: never). */
  muting: { accountId: Id; expiresAt: Millis | null }[];
  domains: string[];
}

export interface NotificationFilter {
  types?: readonly NotificationType[] | undefined;
  excludeTypes?: readonly NotificationType[] | undefined;
  fromAccountId?: Id | undefined;
  /** Only the notifications about this status. */
  statusId?: Id | undefined;
  /** Only notifications with this `filtered` flag (absent: both). */
  filtered?: boolean | undefined;
  /** Only the notifications of this group (absent: any). */
  groupKey?: string | undefined;
}

/** What a page of grouped notifications shows of one group: counted over the group's
 * notifications with an id at or below `upTo`. */
export interface NotificationGroupSummary {
  groupKey: string;
  /** The newest notification of the group at or below `upTo`. */
  mostRecentId: Id;
  mostRecentAt: Millis;
  count: number;
  /** Senders of the newest notifications first, each once, at most `sample`. */
  sampleAccountIds: Id[];
  /** The oldest notification of the group at or above `from` (null without `from`). */
  oldestFromId: Id | null;
}

export interface NotificationRepository {
  /** ATOMIC. With a key, creates the notification only if no notification of the recipient was
   * created with that key before (a retried job creates it once); true when created. */
  create(notification: Notification, options?: { key?: string; outbox?: Outbox<boolean> }): Promise<boolean>;
  get(accountId: Id, id: Id): Promise<Notification | null>;
  list(accountId: Id, filter: NotificationFilter, page: Page): Promise<Notification[]>;
  /** true when it existed. */
  dismiss(accountId: Id, id: Id): Promise<boolean>;
  clear(accountId: Id): Promise<void>;
  /** Notifications of this account with an id above `sinceId` (all when null), at most `limit`. */
  countSince(accountId: Id, sinceId: Id | null, limit: number): Promise<number>;
  /** Notifications that match `filter`, counted up to `limit`. */
  count(accountId: Id, filter: NotificationFilter, limit: number): Promise<number>;
  /** The newest notification of this type about this status (null: about no status) that has a
   * group key: where a new one may join its group. */
  latestGrouped(accountId: Id, type: NotificationType, statusId: Id | null): Promise<Notification | null>;
  /** One summary for each of `groupKeys` that has a notification at or below `upTo`. */
  summarizeGroups(accountId: Id, groupKeys: readonly string[], range: { upTo: Id; from: Id | null }, sample: number): Promise<NotificationGroupSummary[]>;
  /** Deletes the notifications that match `filter` (a group, a sender's filtered ones); how many. */
  deleteWhere(accountId: Id, filter: NotificationFilter): Promise<number>;
  /** Clears the `filtered` flag of a sender's filtered notifications; how many. */
  unfilterFrom(accountId: Id, fromAccountId: Id): Promise<number>;
  /** Deletes at most `limit` notifications sent by `fromAccountId`, to anyone (an account
   * deleted); how many. */
  deleteFrom(fromAccountId: Id, limit: number): Promise<number>;
}

export interface NotificationPolicyRepository {
  /** null: the account never changed its policy (the defaults apply). */
  getPolicy(accountId: Id): Promise<NotificationPolicy | null>;
  /** Creates or replaces the account's policy. */
  setPolicy(policy: NotificationPolicy): Promise<void>;
  /** ATOMIC. Creates the request from `fromAccountId`, or, when one exists, moves its last
   * status and updatedAt to the given ones (keeping its id and createdAt); returns it as stored. */
  upsertRequest(request: NotificationRequest): Promise<NotificationRequest>;
  getRequest(accountId: Id, id: Id): Promise<NotificationRequest | null>;
  /** Requests of this account, paged by request id. */
  listRequests(accountId: Id, page: Page): Promise<NotificationRequest[]>;
  /** Requests of this account, counted up to `limit`. */
  countRequests(accountId: Id, limit: number): Promise<number>;
  /** true when it existed. */
  deleteRequest(accountId: Id, id: Id): Promise<boolean>;
  /** Lets every later notification from `fromAccountId` through the policy (idempotent). */
  permit(accountId: Id, fromAccountId: Id, createdAt: Millis): Promise<void>;
  isPermitted(accountId: Id, fromAccountId: Id): Promise<boolean>;
}

export interface ConversationRepository {
  /** ATOMIC. Adds a status to the account's conversation of (thread, participants), creating it
   * (with `conversation.id`) when there is none. A status it did not hold yet becomes part of it,
   * moves lastStatusId to the highest of its statuses and sets `unread` as given; a status it
   * held already changes nothing (added false). */
  addStatus(conversation: AccountConversation, statusId: Id): Promise<{ conversation: AccountConversation; added: boolean }>;
  /** ATOMIC, per conversation. Takes the status out of every conversation that holds it, of any
   * account: lastStatusId falls back to the highest remaining status, and a conversation left
   * with none is deleted (`conversation` null). */
  removeStatus(statusId: Id): Promise<{ accountId: Id; id: Id; conversation: AccountConversation | null }[]>;
  get(accountId: Id, id: Id): Promise<AccountConversation | null>;
  /** The account's conversations paged by lastStatusId (newest first). */
  list(accountId: Id, page: Page): Promise<AccountConversation[]>;
  /** null when the account has no such conversation. */
  setUnread(accountId: Id, id: Id, unread: boolean): Promise<AccountConversation | null>;
  /** true when it existed. */
  delete(accountId: Id, id: Id): Promise<boolean>;
}

/** One use of a hashtag: a live status carrying it. */
export interface TagUse {
  tag: string;
  statusId: Id;
  accountId: Id;
  createdAt: Millis;
}

export interface TagUseQuery {
  /** Statuses created at or after this time. */
  since: Millis;
  visibilities: readonly Visibility[];
  /** Leave boosts out. */
  excludeReblogs?: boolean | undefined;
  /** Only these hashtags (normalized names). */
  tags?: readonly string[] | undefined;
  /** Only statuses of this account. */
  accountId?: Id | undefined;
}

/** How often an account used a hashtag: its live statuses with the asked visibilities. */
export interface TagStats {
  tag: string;
  count: number;
  lastStatusAt: Millis;
}

export interface TagRepository {
  /** ATOMIC. Creates the follow unless the account already follows the tag; returns the follow
   * as stored (the earlier one when there was one). */
  follow(follow: TagFollow): Promise<TagFollow>;
  /** true when there was one. */
  unfollow(accountId: Id, tag: string): Promise<boolean>;
  /** The account's follows, paged by follow id. */
  followedBy(accountId: Id, page: Page): Promise<TagFollow[]>;
  /** Those of `tags` the account follows. */
  followedAmong(accountId: Id, tags: readonly string[]): Promise<string[]>;
  /** Accounts following at least one of `tags`, each once. */
  followersOf(tags: readonly string[]): Promise<Id[]>;
  /** ATOMIC. Features the tag unless the account already does ('exists', with the stored one) or
   * already features `max` tags ('limit', featured null). */
  feature(featured: FeaturedTag, max: number): Promise<{ result: 'added' | 'exists' | 'limit'; featured: FeaturedTag | null }>;
  /** true when the account featured a tag with this id. */
  unfeature(accountId: Id, id: Id): Promise<boolean>;
  /** Oldest first. */
  featuredBy(accountId: Id): Promise<FeaturedTag[]>;
  /** For each of `tags` the account used: how many of its live statuses with these
   * visibilities carry it, and when the newest was created. */
  statsOf(accountId: Id, tags: readonly string[], visibilities: readonly Visibility[]): Promise<TagStats[]>;
  /** Uses by live statuses, newest status first, at most `limit`. */
  uses(query: TagUseQuery, limit: number): Promise<TagUse[]>;
}

export interface EndorsementRepository {
  /** ATOMIC. true when added, false when the account already endorses the target. */
  endorse(endorsement: Endorsement): Promise<boolean>;
  /** true when there was one. */
  unendorse(accountId: Id, targetId: Id): Promise<boolean>;
  /** The account's endorsements, paged by endorsement id. */
  endorsedBy(accountId: Id, page: Page): Promise<Endorsement[]>;
  /** Those of `targetIds` the account endorses. */
  endorsedAmong(accountId: Id, targetIds: readonly Id[]): Promise<Id[]>;
}

/** Quotes (one per quoting status) and the quote policy of each status (absent: none stored). */
export interface QuoteRepository {
  /** A write for statuses.create/update of this store: the status's quote (replacing any it had)
   * and its policy, committed with the status; `removeQuoteOf` deletes the quote that status
   * makes (an edit dropping it), before a new `quote` is stored. */
  attach(values: { quote?: Quote; policy?: { statusId: Id; policy: QuotePolicy }; removeQuoteOf?: Id }): StorageWrite;
  /** Stores a quote, replacing the quoting status's earlier one (its id included). */
  save(quote: Quote): Promise<void>;
  /** Sets the quote policy of a status. */
  setPolicy(statusId: Id, policy: QuotePolicy): Promise<void>;
  /** statusId → policy, for those of `statusIds` that have one. */
  policies(statusIds: readonly Id[]): Promise<Map<Id, QuotePolicy>>;
  /** Quoting statusId → its quote, for those of `statusIds` that quote something. */
  ofStatuses(statusIds: readonly Id[]): Promise<Map<Id, Quote>>;
  /** ATOMIC. Moves the status's quote to `to` when its state is one of `from` (setting the
   * authorization when given, and updatedAt); the updated quote, or null when there is no quote
   * or its state was not one of `from`. The outbox records its jobs with the change. */
  transition(
    statusId: Id,
    from: readonly QuoteState[],
    to: QuoteState,
    at: Millis,
    options?: { authorizationUri?: string | null; outbox?: Outbox<Quote | null> },
  ): Promise<Quote | null>;
  /** The quote whose authorization or request has this ActivityPub id (exact match). */
  findByUri(uri: string): Promise<Quote | null>;
  /** Quotes of a status in one of `states`, paged by quote id. */
  quotesOf(quotedStatusId: Id, states: readonly QuoteState[], page: Page): Promise<Quote[]>;
  /** quotedStatusId → how many quotes in one of `states` it has (absent: none). */
  count(quotedStatusIds: readonly Id[], states: readonly QuoteState[]): Promise<Map<Id, number>>;
  /** What rendering these statuses needs, in one call: ofStatuses, policies and count of
   * `countStates` together. */
  summary(statusIds: readonly Id[], countStates: readonly QuoteState[]): Promise<QuoteSummary>;
}

export interface QuoteSummary {
  quotes: Map<Id, Quote>;
  policies: Map<Id, QuotePolicy>;
  counts: Map<Id, number>;
}

/** What an account wrote for itself about other accounts (Mastodon's private notes). */
export interface AccountNoteRepository {
  /** Sets the account's note about the target; an empty comment removes it. */
  set(accountId: Id, targetId: Id, comment: string, updatedAt: Millis): Promise<void>;
  /** targetId → note, for those of `targetIds` the account has one about. */
  about(accountId: Id, targetIds: readonly Id[]): Promise<Map<Id, string>>;
}

export interface ListRepository {
  create(list: List): Promise<void>;
  get(id: Id): Promise<List | null>;
  /** Oldest first. */
  listBy(accountId: Id): Promise<List[]>;
  update(id: Id, patch: Partial<Pick<List, 'title' | 'repliesPolicy' | 'exclusive'>>): Promise<List | null>;
  /** Removes the list and its members; true when it existed. */
  delete(id: Id): Promise<boolean>;
  /** ATOMIC. Adds every account or none: 'duplicate' when one is already a member. */
  addMembers(listId: Id, accountIds: readonly Id[], ids: readonly Id[]): Promise<'added' | 'duplicate'>;
  removeMembers(listId: Id, accountIds: readonly Id[]): Promise<void>;
  /** Member account ids paged by membership id; limit 0 = all. */
  members(listId: Id, page: Page): Promise<{ id: Id; accountId: Id }[]>;
  /** Lists, of any owner, that contain this account (for delivery). */
  listsContaining(accountId: Id): Promise<List[]>;
}

export interface FilterRepository {
  create(filter: Filter, outbox?: Outbox<Filter>): Promise<void>;
  get(id: Id): Promise<Filter | null>;
  /** Oldest first. */
  listBy(accountId: Id): Promise<Filter[]>;
  /** Replaces the whole filter (keywords and statuses included); null when missing. */
  replace(filter: Filter, outbox?: Outbox<Filter | null>): Promise<Filter | null>;
  delete(id: Id, outbox?: Outbox<boolean>): Promise<boolean>;
}

export interface MarkerRepository {
  get(accountId: Id, timelines: readonly MarkerTimeline[]): Promise<Marker[]>;
  /** ATOMIC. Sets last_read_id and adds one to the version (0 for a new marker). */
  set(accountId: Id, timeline: MarkerTimeline, lastReadId: Id, updatedAt: Millis): Promise<Marker>;
}

export interface OAuthRepository {
  createApplication(app: Application): Promise<void>;
  getApplication(id: Id): Promise<Application | null>;
  getApplicationsMany(ids: readonly Id[]): Promise<Application[]>;
  findApplicationByClientId(clientId: string): Promise<Application | null>;
  createToken(token: AccessToken): Promise<void>;
  /** Includes revoked tokens (revokedAt set). */
  findTokenByHash(tokenHash: string): Promise<AccessToken | null>;
  /** ATOMIC. true when the token was live. */
  revokeToken(id: Id, at: Millis, outbox?: Outbox<boolean>): Promise<boolean>;
  /** The token issued with this refresh token; includes revoked tokens. */
  findTokenByRefreshHash(refreshTokenHash: string): Promise<AccessToken | null>;
  /** ATOMIC. Revokes the live token that carries this refresh token and returns it as it was
   * (revokedAt null); null when no live token carries it. Two concurrent calls never both get it,
   * so a refresh token can be used once. */
  revokeTokenByRefreshHash(refreshTokenHash: string, at: Millis, outbox?: Outbox<AccessToken | null>): Promise<AccessToken | null>;
  createCode(code: AuthorizationCode): Promise<void>;
  /** ATOMIC. Marks the code used and returns it, unless it was used or expired before `now`:
   * then null. Two concurrent calls never both get the code. */
  consumeCode(codeHash: string, now: Millis): Promise<AuthorizationCode | null>;
  /** ATOMIC. Revokes the live tokens issued for the code with this digest (authorizationCodeId)
   * and returns them as they were; [] when there are none. */
  revokeTokensOfCode(codeHash: string, at: Millis, outbox?: Outbox<AccessToken[]>): Promise<AccessToken[]>;
  createSession(session: WebSession): Promise<void>;
  /** Unexpired sessions only. */
  findSessionByHash(idHash: string, now: Millis): Promise<WebSession | null>;
  deleteSession(id: Id): Promise<void>;
  /** Revokes every live token of the account (a password reset); the ids of those it revoked. */
  revokeTokensOfAccount(accountId: Id, at: Millis): Promise<Id[]>;
  /** Deletes the account's browser sessions; how many there were. */
  deleteSessionsOf(accountId: Id): Promise<number>;
  /** Deletes the sessions expired at `now`; how many there were. */
  pruneSessions(now: Millis): Promise<number>;
}

export interface ReportFilter {
  resolved: boolean;
  accountId?: Id;
  targetAccountId?: Id;
}

export interface ReportRepository {
  /** Stores a new report; its outbox is recorded in the same atomic step. */
  create(report: Report, outbox?: Outbox<Report>): Promise<void>;
  get(id: Id): Promise<Report | null>;
  /** Missing ids are skipped; order is not significant. */
  getMany(ids: readonly Id[]): Promise<Report[]>;
  /** Newest first, by id. */
  list(filter: ReportFilter, page: Page): Promise<Report[]>;
  /** Changes a report and records what a moderator did, in one atomic step; null (nothing
   * recorded) when the report does not exist. */
  update(
    id: Id,
    patch: Partial<Pick<Report, 'category' | 'ruleIds' | 'assignedAccountId' | 'actionTakenAt' | 'actionTakenByAccountId' | 'updatedAt'>>,
    action: AdminAction,
  ): Promise<Report | null>;
  /** The audit log, newest first. */
  actions(page: Page): Promise<AdminAction[]>;
}

/** The admin API's blocks and allows; every change records its admin action in the same
 * atomic step (the audit log that reports.actions reads). */
export interface ServerBlockRepository {
  /** false (nothing stored, nothing recorded) when a block of that kind has that key. */
  create(block: ServerBlock, action: AdminAction): Promise<boolean>;
  get(kind: ServerBlockKind, id: Id): Promise<ServerBlock | null>;
  /** Newest first, by id. */
  list(kind: ServerBlockKind, page: Page): Promise<ServerBlock[]>;
  /** The blocks of that kind whose key is one of `keys` (at most 100 keys). */
  withKeys(kind: ServerBlockKind, keys: readonly string[]): Promise<ServerBlock[]>;
  /** Changes severity, comment, expiry (and the key); null when there is none with that id;
   * false when the new key is another block's. */
  update(kind: ServerBlockKind, id: Id, patch: Partial<Pick<ServerBlock, 'key' | 'severity' | 'comment' | 'expiresAt' | 'updatedAt'>>, action: AdminAction): Promise<ServerBlock | null | false>;
  /** The deleted block; null when there was none (nothing recorded). */
  delete(kind: ServerBlockKind, id: Id, action: AdminAction): Promise<ServerBlock | null>;
  /** Records an admin action on something another store keeps (a plugin's domain blocks). */
  record(action: AdminAction): Promise<void>;
}

/** What the admin dashboard counts (Mastodon's measures), each at a moment: the UTC day of that
 * moment is the day it counts for. Statuses are live ones; domains are compared exactly (the core
 * lowercases them), and with `subdomains` their subdomains count too. */
export type AnalyticsCount =
  /** Local accounts active on a day (recordActivity): distinct accounts. */
  | { what: 'activeUsers' }
  /** Local users, at their sign-up. */
  | { what: 'newUsers' }
  /** Reports, at their creation. */
  | { what: 'openedReports' }
  /** Reports, at their resolution (actionTakenAt). */
  | { what: 'resolvedReports' }
  /** What local accounts did to statuses, each at its creation: favourites, boosts, and replies
   * to another account's status. */
  | { what: 'interactions' }
  /** Statuses carrying the tag (normalized name). */
  | { what: 'tagUses'; tag: string }
  /** Distinct authors of statuses carrying the tag. */
  | { what: 'tagAccounts'; tag: string }
  /** Distinct domains of the remote authors of statuses carrying the tag (local ones not counted). */
  | { what: 'tagServers'; tag: string }
  /** Accounts of the domain, at their creation. */
  | { what: 'domainAccounts'; domain: string; subdomains?: boolean }
  /** Statuses by accounts of the domain. */
  | { what: 'domainStatuses'; domain: string; subdomains?: boolean }
  /** Reports about accounts of the domain. */
  | { what: 'domainReports'; domain: string; subdomains?: boolean }
  /** Follows (not requests) of accounts of the domain, by anyone. */
  | { what: 'domainFollows'; domain: string; subdomains?: boolean }
  /** Follows (not requests) by accounts of the domain. */
  | { what: 'domainFollowers'; domain: string; subdomains?: boolean };

/** How the admin dashboard breaks things down (Mastodon's dimensions): keys ranked by a count. */
export type AnalyticsDimension =
  /** Locales of the local users active in the range (distinct users). */
  | { what: 'languages' }
  /** Names of the applications local users signed up with in the range (key null: none, the web). */
  | { what: 'sources' }
  /** Domains of the authors of statuses created in the range (key null: local). */
  | { what: 'servers' }
  /** Domains of the authors of statuses carrying the tag created in the range (null: local). */
  | { what: 'tagServers'; tag: string }
  /** Languages of statuses carrying the tag created in the range (null: none said). */
  | { what: 'tagLanguages'; tag: string }
  /** Languages of statuses by accounts of the domain created in the range (null: none said). */
  | { what: 'domainLanguages'; domain: string }
  /** Usernames of the accounts of the domain, ranked by their followers (follows stored here, at
   * any time: the range does not apply). */
  | { what: 'domainAccounts'; domain: string; subdomains?: boolean };

/** [from, to): two moments. */
export interface TimeRange {
  from: Millis;
  to: Millis;
}

/** Local users who signed up on one UTC day and were last active on another (null: never). */
export interface RetentionRow {
  signedUpDay: Millis;
  lastActiveDay: Millis | null;
  users: number;
}

/** The admin dashboard's figures, read from what the store holds. Days are UTC days, given as
 * the moment they begin. */
export interface AnalyticsRepository {
  /** Records that a local account was active on a day (idempotent). */
  recordActivity(accountId: Id, day: Millis): Promise<void>;
  /** One number per day for `days` days from `from` (the start of a day): what counts on that
   * day (distinct counts are distinct within the day). */
  daily(count: AnalyticsCount, from: Millis, days: number): Promise<number[]>;
  /** What counts in the range (distinct counts are distinct over the whole range); null: at any
   * time. */
  total(count: AnalyticsCount, range: TimeRange | null): Promise<number>;
  /** At most `limit` keys with their counts, the highest count first, then by key (null last). */
  top(dimension: AnalyticsDimension, range: TimeRange, limit: number): Promise<{ key: string | null; count: number }[]>;
  /** Local users who signed up in the range, grouped by sign-up day and last day of activity
   * (at any time), in no particular order. */
  retention(range: TimeRange): Promise<RetentionRow[]>;
}

/** Storage.stamp's mark: equal marks mean nothing was written in between. */
export type StoreStamp = string | number;

export interface Storage {
  accounts: AccountRepository;
  reports: ReportRepository;
  analytics: AnalyticsRepository;
  serverBlocks: ServerBlockRepository;
  statuses: StatusRepository;
  interactions: InteractionRepository;
  relationships: RelationshipRepository;
  notifications: NotificationRepository;
  notificationPolicies: NotificationPolicyRepository;
  conversations: ConversationRepository;
  lists: ListRepository;
  tags: TagRepository;
  endorsements: EndorsementRepository;
  accountNotes: AccountNoteRepository;
  quotes: QuoteRepository;
  filters: FilterRepository;
  markers: MarkerRepository;
  oauth: OAuthRepository;
  /** Which engine this store runs on ('sqlite', 'postgres', 'mongodb' …): the key of the factory
   * `extend` picks. */
  readonly engine: string;
  /** A plugin's repository on this store, made once per extension (a second call returns the
   * same instance). Throws, naming the plugin and the engine, when the plugin has no
   * implementation for this engine. */
  extend<T>(extension: StorageExtension<T>): T;
  /** The store's own durable job queue; writes with an outbox enqueue into it. */
  jobs: JobQueue;
  /** Called as a request or a stream begins: reads from here on must see every write committed
   * before this call, by any process or connection. A store whose reads always do (no cache)
   * need not have it; one that caches may otherwise reuse its last freshness check for a
   * little while. */
  freshen?(): void;
  /** A mark of what the store holds, for answers kept ready (core/mastodon/http/kept.ts): it
   * moves whenever a write committed by any process or connection may have changed anything a
   * read returns, and stays the same while nothing was written. The mark returned reflects
   * every write committed before the call. null: the store cannot tell now, and nothing is
   * kept. A store without it keeps no answers. */
  stamp?(): StoreStamp | null | Promise<StoreStamp | null>;
  /** The stamp as the reads and writes made since the last stamp() found the store, without
   * looking again: equal to that stamp when none of them began on anything committed after it.
   * What an action that wrote nothing needs to answer from an answer kept at its first stamp
   * (http/front.ts, answerAsGet). A store without it: stamp(). */
  stampSeen?(): StoreStamp | null;
  /** Calls `fn` once the write transaction running now, if any, has committed, so that a
   * worker woken by it finds the jobs that write recorded. A store without it: the core waits
   * one timer tick, which most commits beat but none is held to. */
  afterCommit?(fn: () => void): void;
  /** Flushes and releases the store; acknowledged writes survive a reopen. */
  close(): Promise<void>;
}

/** For adapters whose transactions are synchronous (SQLite): runs the `check` (or
 * `apply`) of every write, in order, refusing a write prepared for another store and a
 * returned promise (which would run outside the transaction). */
export function runWritesSync(writes: readonly StorageWrite[] | undefined, store: object, phase: 'check' | 'apply', tx: unknown): void {
  for (const write of writes ?? []) {
    if (write.store !== store) throw new Error('a StorageWrite prepared for another store was given to this one');
    const step = phase === 'check' ? write.check : write.apply;
    if (step === undefined) continue;
    const result: unknown = step.call(write, tx);
    if (result instanceof Promise) {
      result.catch(() => undefined);
      throw new Error(`a StorageWrite's ${phase} returned a promise: this engine runs writes synchronously inside its transaction`);
    }
  }
}

/** For adapters: `Storage.extend` over a context maker. One repository per extension (and one
 * extension per name); an engine the plugin has no factory for is a clear error. */
export function extensionRegistry(engine: string, contextFor: (name: string) => unknown): <T>(extension: StorageExtension<T>) => T {
  const made = new Map<string, { extension: StorageExtension<unknown>; repository: unknown }>();
  return <T>(extension: StorageExtension<T>): T => {
    const existing = made.get(extension.name);
    if (existing !== undefined) {
      if (existing.extension !== extension) throw new Error(`another storage extension named "${extension.name}" is already in use on this store`);
      return existing.repository as T;
    }
    const factory = Object.hasOwn(extension.engines, engine) ? extension.engines[engine] : undefined;
    if (factory === undefined) {
      const supported = Object.keys(extension.engines).filter((name) => extension.engines[name] !== undefined);
      throw new Error(
        `the plugin "${extension.name}" has no storage for the "${engine}" engine` +
          (supported.length > 0 ? ` (it supports: ${supported.join(', ')})` : ''),
      );
    }
    const repository = factory(contextFor(extension.name) as never);
    made.set(extension.name, { extension: extension as StorageExtension<unknown>, repository });
    return repository;
  };
}
