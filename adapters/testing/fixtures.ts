// Builders of valid model objects for the storage contract suite. Ids come from one generator
// per test and are far above 2^53, so an adapter that squeezes them through JS numbers breaks.

import type {
  AccessToken,
  Account,
  Application,
  AuthorizationCode,
  Block,
  Filter,
  Follow,
  Id,
  List,
  MediaAttachment,
  Millis,
  Mute,
  Notification,
  Poll,
  PreviewCard,
  ScheduledStatus,
  Status,
  StatusEdit,
  StatusMark,
  User,
  WebSession,
} from '../../core/domain/model.ts';
import type { CounterEffects } from '../../core/domain/ports/storage.ts';

/** 2025-01-01T00:00:00Z: every fixture timestamp is an offset from it. */
export const T0: Millis = Date.UTC(2025, 0, 1);

export const NO_EFFECTS: CounterEffects = { countForAuthor: false, countReplyOf: null };
export const POST: CounterEffects = { countForAuthor: true, countReplyOf: null };
export const replyTo = (parentId: Id): CounterEffects => ({ countForAuthor: true, countReplyOf: parentId });

/** Sequential ids shaped like snowflakes ((ms << 16) | seq): 18-digit values above 2^53. */
export class IdSeq {
  #next: bigint;
  constructor(start: bigint = BigInt(T0) << 16n) {
    this.#next = start;
  }
  next(): Id {
    this.#next += 1n;
    return this.#next.toString();
  }
}

export function account(id: Id, o: Partial<Account> = {}): Account {
  return {
    id,
    username: `user${id.slice(-6)}`,
    domain: null,
    displayName: 'Someone',
    note: 'a note',
    locked: false,
    bot: false,
    discoverable: true,
    fields: [{ name: 'site', value: 'https://example.org', verifiedAt: null }],
    avatarUrl: null,
    headerUrl: null,
    url: null,
    uri: null,
    createdAt: T0,
    statusesCount: 0,
    followersCount: 0,
    followingCount: 0,
    lastStatusAt: null,
    role: null,
    deletedAt: null,
    movedToAccountId: null,
    alsoKnownAs: [],
    ...o,
  };
}

export function user(accountId: Id, o: Partial<User> = {}): User {
  return {
    accountId,
    email: `u${accountId.slice(-6)}@example.org`,
    passwordHash: 'scrypt$hash',
    createdAt: T0,
    confirmedAt: T0 + 1,
    approved: true,
    disabled: false,
    locale: 'en',
    createdByApplicationId: null,
    settings: { defaultVisibility: 'public', defaultSensitive: false, defaultLanguage: null, expandMedia: 'default', expandSpoilers: false },
    ...o,
  };
}

export function status(id: Id, accountId: Id, o: Partial<Status> = {}): Status {
  return {
    id,
    accountId,
    local: true,
    uri: null,
    url: null,
    text: `text of ${id}`,
    content: `<p>text of ${id}</p>`,
    spoilerText: '',
    sensitive: false,
    visibility: 'public',
    language: 'en',
    inReplyToId: null,
    inReplyToAccountId: null,
    reblogOfId: null,
    conversationId: id,
    applicationId: null,
    mentionIds: [],
    tags: [],
    mediaIds: [],
    pollId: null,
    createdAt: T0 + 1000,
    editedAt: null,
    deletedAt: null,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    ...o,
  };
}

/** A boost of `original` by `accountId`. */
export function boost(id: Id, accountId: Id, original: Status, o: Partial<Status> = {}): Status {
  return status(id, accountId, {
    text: '',
    content: '',
    reblogOfId: original.id,
    conversationId: original.conversationId,
    visibility: 'public',
    ...o,
  });
}

export function edit(id: Id, s: Status, o: Partial<StatusEdit> = {}): StatusEdit {
  return {
    id,
    statusId: s.id,
    accountId: s.accountId,
    text: s.text,
    content: s.content,
    spoilerText: s.spoilerText,
    sensitive: s.sensitive,
    mediaIds: s.mediaIds,
    pollOptions: null,
    createdAt: T0 + 5000,
    ...o,
  };
}

export function mark(id: Id, accountId: Id, statusId: Id, createdAt: Millis = T0 + 2000): StatusMark {
  return { id, accountId, statusId, createdAt };
}

export function follow(id: Id, accountId: Id, targetAccountId: Id, o: Partial<Follow> = {}): Follow {
  return { id, accountId, targetAccountId, showReblogs: true, notify: false, languages: null, createdAt: T0 + 3000, ...o };
}

export function block(id: Id, accountId: Id, targetAccountId: Id): Block {
  return { id, accountId, targetAccountId, createdAt: T0 + 3000 };
}

export function mute(id: Id, accountId: Id, targetAccountId: Id, o: Partial<Mute> = {}): Mute {
  return { id, accountId, targetAccountId, notifications: true, expiresAt: null, createdAt: T0 + 3000, ...o };
}

export function notification(id: Id, accountId: Id, fromAccountId: Id, o: Partial<Notification> = {}): Notification {
  return { id, accountId, type: 'mention', fromAccountId, statusId: null, createdAt: T0 + 4000, groupKey: null, filtered: false, ...o };
}

export function list(id: Id, accountId: Id, o: Partial<List> = {}): List {
  return { id, accountId, title: `list ${id.slice(-4)}`, repliesPolicy: 'list', exclusive: false, createdAt: T0, ...o };
}

export function filter(id: Id, accountId: Id, o: Partial<Filter> = {}): Filter {
  return {
    id,
    accountId,
    title: 'spoilers',
    context: ['home', 'public'],
    action: 'warn',
    expiresAt: null,
    keywords: [{ id, keyword: 'finale', wholeWord: true }],
    statuses: [],
    createdAt: T0,
    ...o,
  };
}

export function application(id: Id, o: Partial<Application> = {}): Application {
  return {
    id,
    name: 'Test app',
    website: 'https://app.example',
    redirectUris: ['https://app.example/cb', 'urn:ietf:wg:oauth:2.0:oob'],
    scopes: ['read', 'write:statuses'],
    clientId: `client-${id}`,
    clientSecretHash: `secret-hash-${id}`,
    createdAt: T0,
    ...o,
  };
}

export function token(id: Id, applicationId: Id, accountId: Id | null, o: Partial<AccessToken> = {}): AccessToken {
  return { id, tokenHash: `token-hash-${id}`, applicationId, accountId, scopes: ['read'], refreshTokenHash: null, createdAt: T0, revokedAt: null, ...o };
}

export function code(id: Id, applicationId: Id, accountId: Id, o: Partial<AuthorizationCode> = {}): AuthorizationCode {
  return {
    id,
    codeHash: `code-hash-${id}`,
    applicationId,
    accountId,
    redirectUri: 'https://app.example/cb',
    scopes: ['read'],
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    createdAt: T0,
    expiresAt: T0 + 600_000,
    usedAt: null,
    ...o,
  };
}

export function session(id: Id, accountId: Id | null, o: Partial<WebSession> = {}): WebSession {
  return { id, idHash: `session-hash-${id}`, accountId, csrfToken: `csrf-${id}`, createdAt: T0, expiresAt: T0 + 3_600_000, ...o };
}

export function media(id: Id, accountId: Id, o: Partial<MediaAttachment> = {}): MediaAttachment {
  return {
    id,
    accountId,
    statusId: null,
    type: 'image',
    url: `https://files.example/${id}.png`,
    previewUrl: `https://files.example/${id}.small.png`,
    remoteUrl: null,
    description: null,
    blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
    original: { width: 640, height: 480 },
    small: { width: 320, height: 240 },
    focus: null,
    extra: {},
    processed: true,
    createdAt: T0,
    ...o,
  };
}

export function poll(id: Id, accountId: Id, statusId: Id | null, o: Partial<Poll> = {}): Poll {
  return {
    id,
    statusId,
    accountId,
    options: ['yes', 'no', 'maybe'],
    votes: [0, 0, 0],
    multiple: false,
    hideTotals: false,
    expiresAt: T0 + 86_400_000,
    votesCount: 0,
    votersCount: 0,
    createdAt: T0,
    ...o,
  };
}

export function scheduled(id: Id, accountId: Id, scheduledAt: Millis, o: Partial<ScheduledStatus> = {}): ScheduledStatus {
  return {
    id,
    accountId,
    scheduledAt,
    params: {
      text: `scheduled ${id}`,
      mediaIds: null,
      sensitive: null,
      spoilerText: null,
      visibility: 'unlisted',
      inReplyToId: null,
      language: null,
      poll: null,
      idempotency: null,
      applicationId: null,
    },
    claimedUntil: null,
    createdAt: T0,
    ...o,
  };
}

export function card(id: Id, url: string, o: Partial<PreviewCard> = {}): PreviewCard {
  return {
    id,
    url,
    title: 'A page',
    description: 'About things',
    type: 'link',
    authorName: '',
    authorUrl: '',
    providerName: 'Example',
    providerUrl: 'https://example.org',
    html: '',
    width: 400,
    height: 300,
    image: null,
    imageDescription: '',
    embedUrl: '',
    blurhash: null,
    language: 'en',
    publishedAt: null,
    fetchedAt: T0,
    ...o,
  };
}

/** Sorted copy (numeric id order) for comparing id sets whose order is not significant. */
export function sortedIds(ids: Iterable<Id>): Id[] {
  return [...ids].sort((a, b) => (a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0));
}
