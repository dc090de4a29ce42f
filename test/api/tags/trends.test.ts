// A hashtag's 7-day history from real statuses, and the trends that follow from it:
// GET /api/v1/trends/tags (and /api/v1/trends), GET /api/v1/trends/statuses.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { act, boost, ids, links, post } from '../../helpers/api.ts';

const DAY = 86_400_000;
const h = await harness();
t.teardown(() => h.close());
const ann = await h.user('ann');
const ben = await h.user('ben');
const cat = await h.user('cat');
const dan = await h.user('dan');
const viewer = await h.user('viewer');
await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: dan.token, payload: { discoverable: false } });

// Two days ago, yesterday, today (UTC).
h.clock.advance(-2 * DAY);
await post(h, ann, 'long ago #old');
h.clock.advance(DAY);
await post(h, ann, 'yesterday #Rust');
await post(h, ben, 'yesterday #rust #go');
h.clock.advance(DAY);
const annGo = await post(h, ann, 'today #go');
const benGo = await post(h, ben, 'today #go too');
const catBoth = await post(h, cat, 'today #go #rust');
await post(h, cat, 'quiet #hidden', { visibility: 'unlisted' });
await post(h, cat, 'private #hidden', { visibility: 'private' });
await boost(h, ann, catBoth.id);

const dayOf = (offset: number) => String((Math.floor(h.clock.now() / DAY) - offset) * 86_400);

t.test('history: seven days, today first, from the statuses', async (t) => {
  const rust = await h.request('GET', '/api/v1/tags/rust');
  t.equal(rust.statusCode, 200);
  t.same(rust.json.history, [
    { day: dayOf(0), uses: '1', accounts: '1' },
    { day: dayOf(1), uses: '2', accounts: '2' },
    ...[2, 3, 4, 5, 6].map((i) => ({ day: dayOf(i), uses: '0', accounts: '0' })),
  ], 'public statuses, boosts aside, counted per UTC day');
  t.same((await h.request('GET', '/api/v1/tags/hidden')).json.history[0], { day: dayOf(0), uses: '0', accounts: '0' }, 'unlisted and private statuses do not count');
  t.same((await h.request('GET', '/api/v1/tags/old')).json.history[2], { day: dayOf(2), uses: '1', accounts: '1' });
});

t.test('trending hashtags: accounts of the last two days, then uses', async (t) => {
  const res = await h.request('GET', '/api/v1/trends/tags', { token: viewer.token });
  t.equal(res.statusCode, 200);
  t.same(res.json.map((tag: { name: string }) => tag.name), ['go', 'rust'], 'go: 3 accounts, 4 uses; rust: 3 accounts, 3 uses; old is too old');
  t.same(res.json[1], {
    id: (await h.request('GET', '/api/v1/tags/Rust')).json.id,
    name: 'rust',
    url: 'https://rookery.test/tags/rust',
    history: (await h.request('GET', '/api/v1/tags/rust')).json.history,
    following: false,
    featuring: false,
  });
  t.same((await h.request('GET', '/api/v1/trends')).json, (await h.request('GET', '/api/v1/trends/tags')).json, '/api/v1/trends is the same list');

  const first = await h.request('GET', '/api/v1/trends/tags?limit=1');
  t.same(first.json.map((tag: { name: string }) => tag.name), ['go']);
  t.same(links(first.headers), { next: 'https://rookery.test/api/v1/trends/tags?limit=1&offset=1' });
  const second = await h.request('GET', '/api/v1/trends/tags?limit=1&offset=1');
  t.same(second.json.map((tag: { name: string }) => tag.name), ['rust']);
  t.same(links(second.headers), { next: 'https://rookery.test/api/v1/trends/tags?limit=1&offset=2' }, "no prev link at the second page, as Mastodon's");
  const third = await h.request('GET', '/api/v1/trends/tags?limit=1&offset=2');
  t.same(third.json, []);
  t.same(links(third.headers), { prev: 'https://rookery.test/api/v1/trends/tags?limit=1&offset=1' });
  t.same((await h.request('GET', '/api/v1/trends/tags?offset=-5')).json.length, 2, 'a negative offset is the start');
});

t.test('trending statuses: public, discoverable, without a warning, by boosts and favourites', async (t) => {
  const warned = await post(h, cat, 'careful', { spoiler_text: 'cw' });
  const sensitive = await post(h, cat, 'sensitive', { sensitive: true });
  const undiscoverable = await post(h, dan, 'not discoverable');
  const reply = await post(h, ben, 'a reply', { in_reply_to_id: annGo.id });
  const quiet = await post(h, ben, 'unlisted', { visibility: 'unlisted' });
  for (const s of [warned, sensitive, undiscoverable, reply, quiet]) await act(h, viewer, s.id, 'favourite');
  await act(h, ben, annGo.id, 'favourite');
  await act(h, cat, annGo.id, 'favourite');
  await act(h, viewer, benGo.id, 'favourite');

  const res = await h.request('GET', '/api/v1/trends/statuses', { token: viewer.token });
  t.equal(res.statusCode, 200);
  t.same(ids(res.json), [annGo.id, catBoth.id, benGo.id], 'annGo: 2; catBoth (boosted) and benGo: 1, newer first');
  t.equal(res.json[2].favourited, true, 'rendered for the viewer');
  t.same(ids((await h.request('GET', '/api/v1/trends/statuses?limit=1&offset=1')).json), [catBoth.id]);

  await h.request('POST', `/api/v1/accounts/${ann.account.id}/block`, { token: viewer.token });
  t.same(ids((await h.request('GET', '/api/v1/trends/statuses', { token: viewer.token })).json), [catBoth.id, benGo.id], 'what the viewer blocks is left out');
  t.same(ids((await h.request('GET', '/api/v1/trends/statuses')).json), [annGo.id, catBoth.id, benGo.id], 'anonymous readers see them all');
});
