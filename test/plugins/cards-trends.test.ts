// GET /api/v1/trends/links (the cards plugin): the cards of recent statuses that may trend,
// ranked by the accounts that shared them, each with its 7-day history; without the plugin
// the list is empty.

import t from 'tap';
import { cardsPlugin, type PageFetcher } from '../../plugins/cards/index.ts';
import { harness } from '../helpers/harness.ts';
import { links, post } from '../helpers/api.ts';

const DAY = 86_400_000;
const fetcher: PageFetcher = {
  async fetch(url) {
    const title = new URL(url).pathname.slice(1);
    return { url, status: 200, contentType: 'text/html', body: `<html><head><meta property="og:title" content="${title}"></head></html>` };
  },
};
const h = await harness({ plugins: [cardsPlugin({ fetcher })] });
t.teardown(() => h.close());
const ann = await h.user('ann');
const ben = await h.user('ben');
const cat = await h.user('cat');

h.clock.advance(-3 * DAY);
await post(h, ann, 'old news https://news.example/old');
h.clock.advance(3 * DAY);
await post(h, ann, 'see https://news.example/popular');
await post(h, ben, 'also https://news.example/popular');
await post(h, cat, 'mine https://news.example/niche');
await post(h, cat, 'again https://news.example/niche');
await post(h, ben, 'hidden https://news.example/warned', { spoiler_text: 'cw' });
await post(h, ben, 'quiet https://news.example/quiet', { visibility: 'unlisted' });

const dayOf = (offset: number) => String((Math.floor(h.clock.now() / DAY) - offset) * 86_400);

t.test('trending links: accounts, then shares; cards with their history', async (t) => {
  const res = await h.request('GET', '/api/v1/trends/links');
  t.equal(res.statusCode, 200);
  t.same(res.json.map((l: { title: string }) => l.title), ['popular', 'niche'], 'popular: 2 accounts; niche: 1 account twice; old is too old; warned and unlisted never trend');
  t.equal(res.json[0].url, 'https://news.example/popular');
  t.same(res.json[0].history, [{ day: dayOf(0), uses: '2', accounts: '2' }, ...[1, 2, 3, 4, 5, 6].map((i) => ({ day: dayOf(i), uses: '0', accounts: '0' }))]);
  t.same(res.json[1].history[0], { day: dayOf(0), uses: '2', accounts: '1' });
  const first = await h.request('GET', '/api/v1/trends/links?limit=1');
  t.same(first.json.map((l: { title: string }) => l.title), ['popular']);
  t.same(links(first.headers), { next: 'https://rookery.test/api/v1/trends/links?limit=1&offset=1' });
});

t.test('the admin API: trending links with their ids, and their publishers, for a moderator', async (t) => {
  const mod = await h.user('meg', { role: 'Moderator', scopes: ['read', 'admin:read'] });
  const plain = await h.user('pia', { scopes: ['read', 'admin:read'] });
  const res = await h.request('GET', '/api/v1/admin/trends/links', { token: mod.token });
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json.map((l: { title: string }) => l.title), ['popular', 'niche']);
  t.match(res.json[0], { url: 'https://news.example/popular', id: /^\d+$/, requires_review: false });
  t.same(res.json[0].history[0], { day: dayOf(0), uses: '2', accounts: '2' });
  const publishers = await h.request('GET', '/api/v1/admin/trends/links/publishers', { token: mod.token });
  t.equal(publishers.statusCode, 200);
  t.same(publishers.json.map((p: { domain: string }) => p.domain), ['news.example'], 'each site once');
  t.strictSame(Object.keys(publishers.json[0]), ['id', 'domain', 'trendable', 'reviewed_at', 'requested_review_at', 'requires_review']);
  for (const path of ['/api/v1/admin/trends/links', '/api/v1/admin/trends/links/publishers']) {
    t.same(await h.request('GET', path, { token: plain.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${path}: no role`);
    t.same(await h.request('GET', path).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${path}: no token`);
  }
});

t.test('without the cards plugin: none', async (t) => {
  const plain = await harness();
  t.teardown(() => plain.close());
  const res = await plain.request('GET', '/api/v1/trends/links');
  t.same([res.statusCode, res.json], [200, []]);
});
