// The read operations: context (4), reblogged_by and favourited_by with Link paging (5, 6),
// the preview card (17), the batch read, and limited-federation (whitelist) mode.

import t from 'tap';
import { cardsPlugin, cardStorage, type PageFetcher } from '../../../plugins/cards/index.ts';
import { harness, type TestUser } from '../../helpers/harness.ts';
import { act, followInStore, post, view } from '../../helpers/api.ts';

t.test('context: ancestors from the thread start down, descendants depth-first, self-replies first', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const root = await post(h, alice, 'root');
  const a1 = await post(h, bob, { status: 'a1', in_reply_to_id: root.id });
  const a2 = await post(h, alice, { status: 'a2', in_reply_to_id: a1.id });
  const target = await post(h, bob, { status: 'target', in_reply_to_id: a2.id });
  const c1 = await post(h, alice, { status: 'c1', in_reply_to_id: target.id });
  const c1a = await post(h, bob, { status: 'c1a', in_reply_to_id: c1.id });
  const c2 = await post(h, bob, { status: 'c2 self', in_reply_to_id: target.id });
  const c1b = await post(h, alice, { status: 'c1b', in_reply_to_id: c1.id });
  const hidden = await post(h, alice, { status: 'followers only', in_reply_to_id: target.id, visibility: 'private' });
  const res = await view(h, null, target.id, '/context');
  t.equal(res.statusCode, 200);
  t.same(res.json.ancestors.map((s: { id: string }) => s.id), [root.id, a1.id, a2.id], 'from the first status down to the parent');
  t.same(
    res.json.descendants.map((s: { id: string }) => s.id),
    [c1b.id, c2.id, c1.id, c1a.id],
    'depth-first with siblings oldest first (c1, c1a, c1b, c2), then the self-replies c1b and c2 moved to the front in that order',
  );
  t.notOk(res.json.descendants.some((s: { id: string }) => s.id === hidden.id), 'invisible replies are left out');
  const asAlice = await view(h, alice, target.id, '/context');
  t.ok(asAlice.json.descendants.some((s: { id: string }) => s.id === hidden.id), 'the author sees their own private reply');
  const top = await view(h, null, root.id, '/context');
  t.same(top.json.ancestors, [], 'no parent: no ancestors');
  t.equal(top.json.descendants.length, 7, 'everything below but the private reply');
  await h.close();
});

t.test('context: anonymous callers get the nearest 40 ancestors', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  let parent = await post(h, alice, 'start');
  const chain = [parent.id];
  for (let i = 0; i < 45; i++) {
    parent = await post(h, alice, { status: `step ${i}`, in_reply_to_id: parent.id });
    chain.push(parent.id);
  }
  const leaf = chain[chain.length - 1] as string;
  const anonymous = await view(h, null, leaf, '/context');
  t.equal(anonymous.json.ancestors.length, 40);
  t.same(anonymous.json.ancestors.map((s: { id: string }) => s.id), chain.slice(5, 45), 'the nearest ones, root-most first');
  const signedIn = await view(h, alice, leaf, '/context');
  t.equal(signedIn.json.ancestors.length, 45, 'signed-in callers get more');
  await h.close();
});

t.test('favourited_by and reblogged_by: newest first, Link paging, only public and unlisted boosts', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const s = await post(h, alice, 'popular');
  const fans: TestUser[] = [];
  for (let i = 0; i < 5; i++) {
    const fan = await h.user(`fan${i}`);
    fans.push(fan);
    await act(h, fan, s.id, 'favourite');
    await act(h, fan, s.id, 'reblog', { visibility: i === 4 ? 'private' : 'public' });
  }
  const page1 = await h.request('GET', `/api/v1/statuses/${s.id}/favourited_by?limit=2`);
  t.equal(page1.statusCode, 200);
  t.same(page1.json.map((a: { id: string }) => a.id), [fans[4]?.account.id, fans[3]?.account.id], 'newest first');
  const link = String(page1.headers['link']);
  const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
  const prev = /<([^>]+)>; rel="prev"/.exec(link)?.[1] ?? '';
  t.match(next, new RegExp(`^https://rookery\\.test/api/v1/statuses/${s.id}/favourited_by\\?limit=2&max_id=\\d+$`));
  t.match(prev, new RegExp(`^https://rookery\\.test/api/v1/statuses/${s.id}/favourited_by\\?limit=2&since_id=\\d+$`));
  const page2 = await h.request('GET', next.replace('https://rookery.test', ''));
  t.same(page2.json.map((a: { id: string }) => a.id), [fans[2]?.account.id, fans[1]?.account.id]);
  const page3 = await h.request('GET', String(/<([^>]+)>; rel="next"/.exec(String(page2.headers['link']))?.[1]).replace('https://rookery.test', ''));
  t.same(page3.json.map((a: { id: string }) => a.id), [fans[0]?.account.id]);
  t.notOk(String(page3.headers['link']).includes('rel="next"'), 'a page that is not full has no next link');
  const newer = await h.request('GET', prev.replace('https://rookery.test', ''));
  t.same(newer.json, [], 'nothing newer');
  t.equal(newer.headers['link'], undefined, 'an empty page has no Link header');

  const boosters = await h.request('GET', `/api/v1/statuses/${s.id}/reblogged_by`);
  t.same(
    boosters.json.map((a: { id: string }) => a.id),
    [fans[3], fans[2], fans[1], fans[0]].map((f) => f?.account.id),
    'the private boost is not listed',
  );
  t.type(boosters.json[0].username, 'string', 'Account objects');
  await h.close();
});

t.test('card (operation 17) without the cards plugin: {} for a visible status, 404 otherwise', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const s = await post(h, alice, 'see https://example.com/page');
  const none = await view(h, null, s.id, '/card');
  t.equal(none.statusCode, 200);
  t.same(none.json, {});
  t.equal((await view(h, null, s.id)).json.card, null);
  const secret = await post(h, alice, { status: 'secret', visibility: 'private' });
  t.equal((await view(h, null, secret.id, '/card')).statusCode, 404);
  t.same((await view(h, null, '12345', '/card')).json, { error: 'Record not found' });
  await h.close();
});

t.test('card (operation 17): {} without a card, the card when there is one, 404 when not visible', async (t) => {
  const refuse: PageFetcher = { fetch: async () => Promise.reject(new Error('no network in this test')) };
  const h = await harness({ plugins: [cardsPlugin({ fetcher: refuse })] });
  const cards = h.core.storage.extend(cardStorage);
  const alice = await h.user('alice');
  const s = await post(h, alice, 'see https://example.com/page');
  const none = await view(h, null, s.id, '/card');
  t.equal(none.statusCode, 200);
  t.same(none.json, {});
  const card = await cards.upsert({
    id: h.core.ids.next(), url: 'https://example.com/page', title: 'Example', description: 'A page', type: 'link', authorName: '', authorUrl: '',
    providerName: 'Example', providerUrl: 'https://example.com', html: '', width: 0, height: 0, image: null, imageDescription: '',
    embedUrl: '', blurhash: null, language: 'en', publishedAt: null, fetchedAt: Date.now(),
  });
  await cards.attach(s.id, card.id);
  const withCard = await view(h, null, s.id, '/card');
  t.equal(withCard.json.url, 'https://example.com/page');
  t.equal(withCard.json.title, 'Example');
  t.equal(withCard.json.type, 'link');
  t.equal(withCard.json.width, 0);
  t.equal((await view(h, null, s.id)).json.card.title, 'Example', 'inlined in the Status too');
  const secret = await post(h, alice, { status: 'secret', visibility: 'private' });
  t.equal((await view(h, null, secret.id, '/card')).statusCode, 404);
  await h.close();
});

t.test('GET /api/v1/statuses?id[]= returns the visible ones in order', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const a = await post(h, alice, 'a');
  const b = await post(h, alice, { status: 'b', visibility: 'private' });
  const c = await post(h, alice, 'c');
  const res = await h.request('GET', `/api/v1/statuses?id[]=${c.id}&id[]=${b.id}&id[]=${a.id}&id[]=123`, { token: bob.token });
  t.same(res.json.map((s: { id: string }) => s.id), [c.id, a.id]);
  await followInStore(h, bob, alice);
  const asFollower = await h.request('GET', `/api/v1/statuses?id[]=${b.id}`, { token: bob.token });
  t.same(asFollower.json.map((s: { id: string }) => s.id), [b.id]);
  const tooMany = await h.request('GET', `/api/v1/statuses?${Array.from({ length: 21 }, (_, i) => `id[]=${i + 1}`).join('&')}`);
  t.equal(tooMany.statusCode, 422);
  await h.close();
});

t.test('whitelist mode: anonymous views get 401 with the spec text; users read as usual', async (t) => {
  const h = await harness({ config: { limitedFederation: true } });
  const alice = await h.user('alice');
  const s = await post(h, alice, 'members only');
  for (const suffix of ['', '/context', '/favourited_by', '/reblogged_by', '/card']) {
    const res = await view(h, null, s.id, suffix);
    t.equal(res.statusCode, 401, `anonymous ${suffix || 'view'}`);
    t.same(res.json, { error: 'This API requires an authenticated user' });
  }
  const app = await h.app(['read']);
  const appOnly = await h.request('GET', `/api/v1/statuses/${s.id}`, { token: app.token });
  t.equal(appOnly.statusCode, 401, 'an app token is not a user');
  t.same(appOnly.json, { error: 'This API requires an authenticated user' });
  const bob = await h.user('bob');
  t.equal((await view(h, bob, s.id)).statusCode, 200);
  await h.close();
});
