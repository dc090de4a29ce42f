// Small helpers for the API tests: publishing and acting on statuses, following (through the
// API, or straight into the store), reading Link headers, remote accounts and statuses.

import type { Account, Status } from '../../core/domain/model.ts';
import { account, status } from './fixtures.ts';
import type { Harness, TestUser } from './harness.ts';

/** Asks to publish `payload` and returns the answer as it is, refusals included. */
export function publish(h: Harness, user: TestUser, payload: Record<string, unknown>) {
  return h.request('POST', '/api/v1/statuses', { token: user.token, payload });
}

/** The refusal of a quote of a status that does not exist or that its quoter may not see. */
export const QUOTE_MISSING = { error: 'The post you are trying to quote does not appear to exist.' };

/** Publishes through the API (a text, or a whole body) and returns the rendered status; fails loudly otherwise. */
export async function post(h: Harness, user: TestUser, status: string | Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> {
  const payload = typeof status === 'string' ? { status, ...extra } : { ...status, ...extra };
  const res = await h.request('POST', '/api/v1/statuses', { token: user.token, payload });
  if (res.statusCode !== 200) throw new Error(`publish failed: ${res.statusCode} ${res.body}`);
  return res.json;
}

/** POST /api/v1/statuses/:id/<action>, as `user` (or anonymously). */
export function act(h: Harness, user: TestUser | null, id: string, action: string, payload?: Record<string, unknown>) {
  const options: { token?: string; payload?: unknown } = {};
  if (user) options.token = user.token;
  if (payload) options.payload = payload;
  return h.request('POST', `/api/v1/statuses/${id}/${action}`, options);
}

/** GET /api/v1/statuses/:id[suffix], as `user` (or anonymously). */
export function view(h: Harness, user: TestUser | null, id: string, suffix = '') {
  return h.request('GET', `/api/v1/statuses/${id}${suffix}`, user ? { token: user.token } : {});
}

/** A follow written straight to the store: for tests of other things than following. */
export async function followInStore(h: Harness, follower: TestUser, target: TestUser): Promise<void> {
  const outcome = await h.core.storage.relationships.follow({
    id: h.core.ids.next(),
    accountId: follower.account.id,
    targetAccountId: target.account.id,
    showReblogs: true,
    notify: false,
    languages: null,
    createdAt: h.core.clock.now(),
  });
  if (outcome !== 'created') throw new Error('follow failed');
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
  const remote = account({
    id: h.core.ids.next(),
    username,
    domain,
    url: `https://${domain}/@${username}`,
    uri: `https://${domain}/users/${username}`,
    createdAt: h.clock.now(),
  });
  await h.core.storage.accounts.create(remote);
  return remote;
}

/** `count` public statuses of `user`, written straight to the store with no event (no stream,
 * notification or job hears of them): filler that moves older entries of the home feeds that
 * show `user`'s statuses out of the window a boost's de-duplication looks at (core/domain/feeds.ts). */
export async function quietStatuses(h: Harness, user: TestUser, count: number): Promise<Status[]> {
  const written: Status[] = [];
  for (let i = 0; i < count; i += 1) {
    const quiet = status(user.account, { id: h.core.ids.next(), text: `filler ${i}`, content: `<p>filler ${i}</p>`, createdAt: h.clock.now() });
    await h.core.storage.statuses.create(quiet, { countForAuthor: true, countReplyOf: null });
    written.push(quiet);
  }
  return written;
}

/** A public status of a remote account, written straight to the store; `announce` also
 * records status.created with it (as federation will) and runs the jobs, so streams get it. */
export async function remoteStatus(h: Harness, author: Account, text: string, overrides: Partial<Status> = {}, options: { announce?: boolean } = {}): Promise<Status> {
  const id = h.core.ids.next();
  const remote = status(author, {
    id,
    uri: `https://${author.domain}/users/${author.username}/statuses/${id}`,
    url: `https://${author.domain}/@${author.username}/${id}`,
    text,
    content: `<p>${text}</p>`,
    createdAt: h.clock.now(),
    ...overrides,
  });
  const outbox = options.announce ? () => h.core.record({ type: 'status.created', status: remote }) : undefined;
  await h.core.storage.statuses.create(remote, { countForAuthor: true, countReplyOf: null }, outbox ? { outbox } : {});
  if (options.announce) await h.rookery.drain();
  return remote;
}
