// Preferences, search, hashtags, and the empty answers of features Rookery does not have.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import { json } from '../../../core/mastodon/endpoint/types.ts';
import { follow, ids, post, remoteAccount } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');

t.test('preferences come from the user settings', async (t) => {
  const res = await h.request('GET', '/api/v1/preferences', { token: alice.token });
  t.equal(res.statusCode, 200);
  t.same(res.json, {
    'posting:default:visibility': 'public',
    'posting:default:sensitive': false,
    'posting:default:language': null,
    'posting:default:quote_policy': 'public',
    'reading:expand:media': 'default',
    'reading:expand:spoilers': false,
  });
  await h.core.storage.accounts.updateUser(bob.account.id, {
    settings: { defaultVisibility: 'private', defaultSensitive: true, defaultLanguage: 'de', expandMedia: 'show_all', expandSpoilers: true, defaultQuotePolicy: 'followers' },
  });
  t.same((await h.request('GET', '/api/v1/preferences', { token: bob.token })).json, {
    'posting:default:visibility': 'private',
    'posting:default:sensitive': true,
    'posting:default:language': 'de',
    'posting:default:quote_policy': 'followers',
    'reading:expand:media': 'show_all',
    'reading:expand:spoilers': true,
  });
  t.equal((await h.request('GET', '/api/v1/preferences')).statusCode, 401);
  const narrow = await h.user('narrow', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v1/preferences', { token: narrow.token })).statusCode, 403);
});

t.test('empty answers for features Rookery does not have', async (t) => {
  const lists = [
    '/api/v1/custom_emojis', '/api/v1/trends', '/api/v1/trends/tags', '/api/v1/trends/statuses', '/api/v1/trends/links',
    '/api/v1/announcements', '/api/v1/suggestions', '/api/v2/suggestions', '/api/v1/conversations', '/api/v1/followed_tags',
    '/api/v1/featured_tags', '/api/v1/endorsements', '/api/v1/domain_blocks', '/api/v1/scheduled_statuses', '/api/v1/directory',
    '/api/v1/notifications/requests',
  ];
  for (const path of lists) {
    const res = await h.request('GET', path, { token: alice.token });
    t.equal(res.statusCode, 200, path);
    t.same(res.json, [], path);
  }
  const policy = await h.request('GET', '/api/v2/notifications/policy', { token: alice.token });
  t.match(policy.json, { for_not_following: 'accept', summary: { pending_requests_count: 0 } });
  t.equal((await h.request('GET', '/api/v1/custom_emojis')).statusCode, 200, 'custom emojis need no token');
  t.equal((await h.request('GET', '/api/v1/trends')).statusCode, 200, 'trends need no token');
  t.equal((await h.request('GET', '/api/v1/conversations')).statusCode, 401);
  t.equal((await h.request('GET', '/api/v1/familiar_followers')).statusCode, 404, 'unknown paths stay 404');
  const familiar = await h.request('GET', `/api/v1/accounts/familiar_followers?id[]=${bob.account.id}`, { token: alice.token });
  t.same(familiar.json, [{ id: bob.account.id, accounts: [] }]);
});

t.test('a plugin endpoint takes a placeholder path over', async (t) => {
  const scheduled: RookeryPlugin = {
    name: 'scheduled',
    register(host) {
      host.addEndpoint({ method: 'GET', path: '/api/v1/scheduled_statuses', auth: 'user', scopes: ['read'], handle: async () => json([{ id: '1' }]) });
    },
  };
  const withPlugin = await harness({ plugins: [scheduled] });
  t.teardown(() => withPlugin.close());
  const user = await withPlugin.user('planner');
  t.same((await withPlugin.request('GET', '/api/v1/scheduled_statuses', { token: user.token })).json, [{ id: '1' }]);
});

t.test('search: accounts by handle or URL, hashtags in use, statuses by URL', async (t) => {
  const far = await remoteAccount(h, 'distant');
  const tagged = await post(h, alice, 'about #Gardening');
  const q = async (query: string, token: string | null = alice.token) => {
    const res = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(query)}`, { token });
    if (res.statusCode !== 200) throw new Error(res.body);
    return res.json;
  };
  const byName = await q('@bob');
  t.same(Object.keys(byName).sort(), ['accounts', 'hashtags', 'statuses']);
  t.same(ids(byName.accounts), [bob.account.id]);
  t.same(ids((await q('bob@rookery.test')).accounts), [bob.account.id]);
  t.same(ids((await q('distant@far.example')).accounts), [far.id]);
  t.same(ids((await q('https://rookery.test/@bob')).accounts), [bob.account.id]);
  t.same((await q('nobody')).accounts, []);
  const tag = await q('#gardening');
  // Mastodon 4.4: seven days of history (the status above is today's use), and `featuring`.
  const today = { day: String(Math.floor(h.clock.now() / 86_400_000) * 86_400), uses: '1', accounts: '1' };
  t.same(tag.hashtags.map((x: { history: unknown[] }) => ({ ...x, id: '', history: x.history.slice(0, 1) })), [{ id: '', name: 'gardening', url: 'https://rookery.test/tags/gardening', history: [today], following: false, featuring: false }]);
  t.same((await q('gardening', null)).hashtags.map((x: { history: unknown[] }) => ({ ...x, id: '', history: x.history.length })), [{ id: '', name: 'gardening', url: 'https://rookery.test/tags/gardening', history: 7 }]);
  t.same((await q('#unused')).hashtags, []);
  const byUrl = await q(`https://rookery.test/@alice/${tagged.id}`);
  t.same(ids(byUrl.statuses), [tagged.id]);
  t.same(byUrl.accounts, []);
  t.same(ids((await q(`https://rookery.test/users/alice/statuses/${tagged.id}`)).statuses), [tagged.id]);
  const onlyAccounts = await h.request('GET', '/api/v2/search?q=bob&type=hashtags', { token: alice.token });
  t.same(onlyAccounts.json.accounts, []);
  t.same((await h.request('GET', '/api/v2/search?q=bob&following=true', { token: alice.token })).json.accounts, []);
  await follow(h, alice, bob);
  t.same(ids((await h.request('GET', '/api/v2/search?q=bob&following=true', { token: alice.token })).json.accounts), [bob.account.id]);
  t.same((await h.request('GET', '/api/v2/search?q=bob&offset=1', { token: alice.token })).json.accounts, []);
  const accountsSearch = await h.request('GET', '/api/v1/accounts/search?q=bob', { token: alice.token });
  t.same(ids(accountsSearch.json), [bob.account.id]);
});

t.test('search: refusals', async (t) => {
  const missing = await h.request('GET', '/api/v2/search', { token: alice.token });
  t.equal(missing.statusCode, 400);
  t.same(missing.json, { error: "param is missing or the request can't be satisfied: q" });
  const offset = await h.request('GET', '/api/v2/search?q=bob&offset=1');
  t.equal(offset.statusCode, 401);
  t.same(offset.json, { error: 'Search queries pagination is not supported without authentication' });
  const resolve = await h.request('GET', '/api/v2/search?q=bob&resolve=true');
  t.equal(resolve.statusCode, 401);
  t.same(resolve.json, { error: 'Search queries that resolve remote resources are not supported without authentication' });
  t.equal((await h.request('GET', '/api/v2/search?q=bob')).statusCode, 200, 'anonymous search is allowed');
  const narrow = await h.user('searchless', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v2/search?q=bob', { token: narrow.token })).statusCode, 403);
});

t.test('a hashtag', async (t) => {
  const res = await h.request('GET', '/api/v1/tags/Gardening', { token: alice.token });
  t.equal(res.statusCode, 200);
  // Mastodon 4.4: seven days of history, today first, and `featuring` beside `following`.
  t.equal(res.json.history.length, 7);
  t.match(res.json.id, /^\d+$/);
  t.same({ ...res.json, id: '', history: [] }, { id: '', name: 'Gardening', url: 'https://rookery.test/tags/Gardening', history: [], following: false, featuring: false });
  t.equal((await h.request('GET', `/api/v1/tags/${encodeURIComponent('!!!')}`)).statusCode, 404);
});
