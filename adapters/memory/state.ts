// The one state behind every repository of the memory adapter. Rules that span repositories
// (counters moved by interactions and follows, boosts deleted with their status, only live
// statuses seen) need the same maps, so their shape lives here, once; each repository file owns
// the logic on its own part. Stored objects are private copies: repositories clone in and out.

import type {
  AccessToken,
  Account,
  Application,
  AuthorizationCode,
  Block,
  Filter,
  Follow,
  FollowRequest,
  Id,
  List,
  Marker,
  Mute,
  Notification,
  Status,
  StatusEdit,
  StatusMark,
  User,
  WebSession,
} from '../../core/domain/model.ts';
import type { DomainBlock } from '../../core/domain/ports/storage.ts';
import { createJobState, type JobState } from './jobs.ts';
import { PairTable } from './shared.ts';

export interface Membership {
  id: Id;
  listId: Id;
  accountId: Id;
}

export interface MemoryState {
  readonly accounts: Map<Id, Account>;
  readonly accountByAcct: Map<string, Id>; // acctKey(username, domain) → account id
  readonly accountByUri: Map<string, Id>; // a remote account's ActivityPub id → account id
  readonly users: Map<Id, User>; // by account id
  readonly userByEmail: Map<string, Id>; // ASCII-lower-cased e-mail → account id

  readonly statuses: Map<Id, Status>; // soft-deleted ones too
  readonly statusByUri: Map<string, Id>; // a remote status's ActivityPub id → status id (deleted ones too)
  readonly liveBoosts: Map<string, Id>; // pair(booster, original) → boost id
  readonly idempotency: Map<string, { statusId: Id; usedAt: number }>; // pair(account, key)
  readonly edits: Map<Id, StatusEdit[]>; // status id → revisions
  readonly editIds: Set<Id>;

  readonly favourites: PairTable<StatusMark>;
  readonly bookmarks: PairTable<StatusMark>;
  readonly pins: PairTable<StatusMark>;
  readonly conversationMutes: Set<string>; // pair(account, conversation)

  readonly follows: PairTable<Follow>;
  readonly requests: PairTable<FollowRequest>;
  readonly blocks: PairTable<Block>;
  readonly mutes: PairTable<Mute>;
  readonly domainBlocks: PairTable<DomainBlock>; // pair(account, domain)

  readonly notifications: Map<Id, Notification>;
  readonly notificationKeys: Set<string>; // pair(recipient, dedupe key)
  readonly lists: Map<Id, List>;
  readonly memberships: Map<Id, Membership>;
  readonly membershipByPair: Map<string, Id>; // pair(list, account) → membership id
  readonly filters: Map<Id, Filter>;
  readonly markers: Map<string, Marker>; // pair(account, timeline)

  readonly applications: Map<Id, Application>;
  readonly applicationByClientId: Map<string, Id>;
  readonly tokens: Map<Id, AccessToken>;
  readonly tokenByHash: Map<string, Id>;
  readonly tokenByRefreshHash: Map<string, Id>;
  readonly codes: Map<Id, AuthorizationCode>;
  readonly codeByHash: Map<string, Id>;
  readonly sessions: Map<Id, WebSession>;
  readonly sessionByHash: Map<string, Id>;

  /** Private state of each storage extension (plugin), by its name. */
  readonly extensions: Map<string, Record<string, unknown>>;

  readonly jobs: JobState;
}

export function createMemoryState(): MemoryState {
  return {
    accounts: new Map(),
    accountByAcct: new Map(),
    accountByUri: new Map(),
    users: new Map(),
    userByEmail: new Map(),

    statuses: new Map(),
    statusByUri: new Map(),
    liveBoosts: new Map(),
    idempotency: new Map(),
    edits: new Map(),
    editIds: new Set(),

    favourites: new PairTable(),
    bookmarks: new PairTable(),
    pins: new PairTable(),
    conversationMutes: new Set(),

    follows: new PairTable(),
    requests: new PairTable(),
    blocks: new PairTable(),
    mutes: new PairTable(),
    domainBlocks: new PairTable(),

    notifications: new Map(),
    notificationKeys: new Set(),
    lists: new Map(),
    memberships: new Map(),
    membershipByPair: new Map(),
    filters: new Map(),
    markers: new Map(),

    applications: new Map(),
    applicationByClientId: new Map(),
    tokens: new Map(),
    tokenByHash: new Map(),
    tokenByRefreshHash: new Map(),
    codes: new Map(),
    codeByHash: new Map(),
    sessions: new Map(),
    sessionByHash: new Map(),

    extensions: new Map(),

    jobs: createJobState(),
  };
}
