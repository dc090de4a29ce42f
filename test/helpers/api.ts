// Small helpers for the API tests: publishing through POST /api/v1/statuses, following, and
// reading Link headers.

import type { Account, Status } from '../../core/model.ts';
import type { Harness, TestUser } from './harness.ts';

/** Publishes through the API and returns the rendered status (fails loudly otherwise). */
export async function post(h: Harness, user: TestUser, status: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await h.request('POST', '/api/v1/statuses', { token: user.token, payload: { status, ...extra } });
  if (res.statusCode !== 200) throw new Error(`publish failed: ${res.statusCode} ${res.body}`);
  return res.json;
}

export async function follow(h: Harness, from: TestUser, to: TestUser, payload: Record<string, unknown> = {}): Promise<any> {
  const res = await h.request('POST', `/api/v1/accounts/${to.account.id}/follow`, { token: from.token, payload });
  if (res.statusCode !== 200) throw new Error(`follow failed: ${res.statusCode} ${res.body}`);
  return res.json;
}

export async function boost(h: Harness, user: TestUser, statusId: string): Promise<any> {
  const res = await h.request('POST', `/api/v1/statuses/${statusId}/reblog`, { token: user.token });
  if (res.statusCode !== 200) throw new Error(`boost failed: ${res.statusCode} ${res.body}`);
  return res.json;
}

export function ids(body: { id: string }[]): string[] {
  return body.map((item) => item.id);
}

/** rel → URL of a Link header; {} when there is none. */
export function links(headers: Record<string, unknown>): Record<string, string> {
  const header = headers['link'];
  const out: Record<string, string> = {};
  if (typeof header !== 'string') return out;
  for (const part of header.split(', ')) {
    const match = /^<([^>]+)>; rel="([a-z]+)"$/.exec(part);
    if (match?.[1] !== undefined && match[2] !== undefined) out[match[2]] = match[1];
  }
  return out;
}

/** A remote account, written straight to the store (there is no federation to bring one). */
export async function remoteAccount(h: Harness, username: string, domain = 'far.example'): Promise<Account> {
  const account: Account = {
    id: h.core.ids.next(),
    username,
    domain,
    displayName: '',
    note: '',
    locked: false,
    bot: false,
    discoverable: true,
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    url: `https://${domain}/@${username}`,
    uri: `https://${domain}/users/${username}`,
    createdAt: h.clock.now(),
    statusesCount: 0,
    followersCount: 0,
    followingCount: 0,
    lastStatusAt: null,
  };
  await h.core.storage.accounts.create(account);
  return account;
}

/** A public status of a remote account, written straight to the store. */
export async function remoteStatus(h: Harness, author: Account, text: string, overrides: Partial<Status> = {}): Promise<Status> {
  const id = h.core.ids.next();
  const status: Status = {
    id,
    accountId: author.id,
    local: false,
    uri: `https://${author.domain}/users/${author.username}/statuses/${id}`,
    url: `https://${author.domain}/@${author.username}/${id}`,
    text,
    content: `<p>${text}</p>`,
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
    createdAt: h.clock.now(),
    editedAt: null,
    deletedAt: null,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    ...overrides,
  };
  await h.core.storage.statuses.create(status, { countForAuthor: true, countReplyOf: null });
  return status;
}
