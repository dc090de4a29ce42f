// Shortcuts for status tests over HTTP.

import type { Harness, TestUser } from './harness.ts';

export async function post(h: Harness, user: TestUser, body: Record<string, unknown> | string, headers: Record<string, string> = {}) {
  const res = await h.request('POST', '/api/v1/statuses', { token: user.token, payload: typeof body === 'string' ? { status: body } : body, headers });
  if (res.statusCode !== 200) throw new Error(`posting failed: ${res.statusCode} ${res.body}`);
  return res.json as { id: string; [key: string]: any };
}

/** POST /api/v1/statuses/:id/<action> */
export function act(h: Harness, user: TestUser | null, id: string, action: string, payload?: Record<string, unknown>) {
  const options: { token?: string; payload?: unknown } = {};
  if (user) options.token = user.token;
  if (payload) options.payload = payload;
  return h.request('POST', `/api/v1/statuses/${id}/${action}`, options);
}

export function view(h: Harness, user: TestUser | null, id: string, suffix = '') {
  return h.request('GET', `/api/v1/statuses/${id}${suffix}`, user ? { token: user.token } : {});
}

export async function follow(h: Harness, follower: TestUser, target: TestUser): Promise<void> {
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
