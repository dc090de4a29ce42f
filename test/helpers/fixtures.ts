// Plain domain objects for pure tests of the core.

import type { Account, Status, Visibility } from '../../core/domain/model.ts';

let counter = 1000n;
export function nextId(): string {
  counter += 1n;
  return ((BigInt(Date.UTC(2024, 0, 1)) << 16n) + counter).toString();
}

export function account(overrides: Partial<Account> = {}): Account {
  const id = overrides.id ?? nextId();
  return {
    id,
    username: `user${id.slice(-4)}`,
    domain: null,
    displayName: '',
    note: '',
    locked: false,
    bot: false,
    discoverable: true,
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    url: null,
    uri: null,
    createdAt: Date.UTC(2024, 0, 1, 13, 45, 12, 345),
    statusesCount: 0,
    followersCount: 0,
    followingCount: 0,
    lastStatusAt: null,
    role: null,
    deletedAt: null,
    movedToAccountId: null,
    alsoKnownAs: [],
    ...overrides,
  };
}

export function status(author: Account, overrides: Partial<Status> = {}): Status {
  const id = overrides.id ?? nextId();
  return {
    id,
    accountId: author.id,
    local: author.domain === null,
    uri: null,
    url: null,
    text: 'hello',
    content: '<p>hello</p>',
    spoilerText: '',
    sensitive: false,
    visibility: 'public' as Visibility,
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
    createdAt: Date.UTC(2024, 0, 2, 3, 4, 5, 678),
    editedAt: null,
    deletedAt: null,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    ...overrides,
  };
}
