// The notification policy (v1 and v2) and the requests its filter makes: defaults, changes,
// a bad value, filter and drop, requests listed, one request, accept (single and bulk: the
// sender passes from then on, the held mentions come back, direct ones into conversations),
// dismiss, merged.

import t from 'tap';
import { harness, type TestUser } from '../../helpers/harness.ts';
import { follow, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const stranger = await h.user('stranger');
const friend = await h.user('friend');
await follow(h, me, friend);

const policy = async (version = 'v2') => (await h.request('GET', `/api/${version}/notifications/policy`, { token: me.token })).json;
const patch = (payload: Record<string, unknown>, version = 'v2') => h.request('PATCH', `/api/${version}/notifications/policy`, { token: me.token, payload });
const types = async (query = '') => ((await h.request('GET', `/api/v1/notifications${query}`, { token: me.token })).json as { type: string; account: { id: string } }[]).map((n) => `${n.type}:${n.account.id}`);
const requests = async () => (await h.request('GET', '/api/v1/notifications/requests', { token: me.token })).json;
const mention = (user: TestUser, text: string, extra: Record<string, unknown> = {}) => post(h, user, `@me ${text}`, extra);

t.test('defaults, in v2 and v1', async (t) => {
  const summary = { pending_requests_count: 0, pending_notifications_count: 0 };
  t.same(await policy(), { for_not_following: 'accept', for_not_followers: 'accept', for_new_accounts: 'accept', for_private_mentions: 'filter', for_limited_accounts: 'filter', summary });
  t.same(await policy('v1'), { filter_not_following: false, filter_not_followers: false, filter_new_accounts: false, filter_private_mentions: true, summary });
});

t.test('a private mention out of the blue is filtered by default; one from someone followed is not', async (t) => {
  const secret = await mention(stranger, 'psst', { visibility: 'direct' });
  await mention(friend, 'hello friend', { visibility: 'direct' });
  t.same(await types(), [`mention:${friend.account.id}`], 'only the friend’s');
  t.same(await types('?include_filtered=true'), [`mention:${friend.account.id}`, `mention:${stranger.account.id}`]);
  t.same(await types(`?account_id=${stranger.account.id}`), [`mention:${stranger.account.id}`], 'by sender, filtered ones are listed (as Mastodon)');
  const [request] = await requests();
  t.same(
    { ...request, account: request.account.id, last_status: request.last_status.id },
    { id: request.id, created_at: request.created_at, updated_at: request.updated_at, notifications_count: '1', account: stranger.account.id, last_status: secret.id },
  );
  t.same((await policy()).summary, { pending_requests_count: 1, pending_notifications_count: 1 });
  const one = await h.request('GET', `/api/v1/notifications/requests/${request.id}`, { token: me.token });
  t.same([one.statusCode, one.json], [200, request]);
  t.same((await h.request('GET', '/api/v1/conversations', { token: me.token })).json.length, 1, 'only the friend’s conversation');
  const reply = await mention(stranger, 'again', { visibility: 'direct' });
  const [moved] = await requests();
  t.same([moved.id, moved.notifications_count, moved.last_status.id], [request.id, '2', reply.id], 'one request per sender, moved on');

  const accepted = await h.request('POST', `/api/v1/notifications/requests/${request.id}/accept`, { token: me.token });
  t.same([accepted.statusCode, accepted.json], [200, {}]);
  t.same(await requests(), []);
  t.same(await types(), [`mention:${stranger.account.id}`, `mention:${friend.account.id}`, `mention:${stranger.account.id}`], 'the held mentions are in the list now');
  t.same((await h.request('GET', '/api/v1/conversations', { token: me.token })).json.length, 3, 'and the private ones in the conversations (two threads of the stranger’s)');
  await mention(stranger, 'now allowed', { visibility: 'direct' });
  t.same((await types()).length, 4, 'an accepted sender passes from then on');
  t.equal((await h.request('GET', `/api/v1/notifications/requests/${request.id}`, { token: me.token })).statusCode, 404);
  await h.request('POST', '/api/v1/notifications/clear', { token: me.token });
});

t.test('changing the policy: v2 actions, v1 flags, a bad value', async (t) => {
  // masto.js sends PUT, other clients PATCH: Rails routes both to the update.
  const changed = await h.request('PUT', '/api/v2/notifications/policy', { token: me.token, payload: { for_not_following: 'drop', for_new_accounts: 'filter' } });
  t.same([changed.statusCode, changed.json.for_not_following, changed.json.for_new_accounts, changed.json.for_private_mentions], [200, 'drop', 'filter', 'filter'], 'only what was given changes');
  const bad = await patch({ for_not_followers: 'ignore' });
  t.same([bad.statusCode, bad.json], [422, { error: 'Validation failed: For not followers is not included in the list' }]);
  t.equal((await policy()).for_not_followers, 'accept', 'nothing changed');
  const v1 = await patch({ filter_not_following: true, filter_private_mentions: false }, 'v1');
  t.same([v1.statusCode, v1.json.filter_not_following, v1.json.filter_private_mentions], [200, true, false]);
  t.same([(await policy()).for_not_following, (await policy()).for_private_mentions], ['filter', 'accept'], 'true filters, false accepts');
  const reader = await h.user('preader', { scopes: ['read:notifications'] });
  t.equal((await h.request('PATCH', '/api/v2/notifications/policy', { token: reader.token, payload: {} })).statusCode, 403);
});

t.test('drop stores nothing; filter holds favourites without a request; dismiss deletes what was held', async (t) => {
  // The stranger was accepted above: someone new.
  const newcomer = await h.user('newcomer');
  await patch({ for_not_following: 'drop', for_private_mentions: 'accept', for_new_accounts: 'accept' });
  await mention(newcomer, 'dropped');
  t.same(await types('?include_filtered=true'), [], 'dropped: nothing at all');
  await patch({ for_not_following: 'filter' });
  const mine = await post(h, me, 'like me');
  await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: newcomer.token });
  await mention(newcomer, 'held');
  t.same(await types(), [], 'both held');
  t.same(await types('?include_filtered=true'), [`mention:${newcomer.account.id}`, `favourite:${newcomer.account.id}`]);
  const [request] = await requests();
  t.equal(request.notifications_count, '1', 'a request counts mentions');
  const dismissed = await h.request('POST', `/api/v1/notifications/requests/${request.id}/dismiss`, { token: me.token });
  t.same([dismissed.statusCode, dismissed.json], [200, {}]);
  t.same(await types('?include_filtered=true'), [], 'what was held is deleted');
  t.same(await requests(), []);
});

t.test('bulk accept and dismiss, merged, someone else’s request', async (t) => {
  const other = await h.user('other');
  const third = await h.user('third');
  await mention(third, 'one');
  await mention(other, 'two');
  const [second, first] = await requests();
  const theirs = await h.request('POST', `/api/v1/notifications/requests/${first.id}/accept`, { token: third.token });
  t.same([theirs.statusCode, theirs.json], [404, { error: 'Record not found' }]);
  const nothing = await h.request('POST', '/api/v1/notifications/requests/accept', { token: me.token });
  t.same([nothing.statusCode, nothing.json], [200, {}], 'no ids: nothing to do');
  t.equal((await requests()).length, 2);
  const bulk = await h.request('POST', '/api/v1/notifications/requests/dismiss', { token: me.token, payload: { id: [first.id, second.id, 'nope'] } });
  t.same([bulk.statusCode, bulk.json], [200, {}]);
  t.same(await requests(), []);
  t.same((await h.request('GET', '/api/v1/notifications/requests/merged', { token: me.token })).json, { merged: true });
});
