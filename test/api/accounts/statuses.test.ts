// GET /api/v1/accounts/:id/statuses: what each kind of viewer sees, the filters, pins, paging.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { boost, follow, ids, links, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');
const carol = await h.user('carol');
const dave = await h.user('dave');
await follow(h, bob, alice);

const bobs = await post(h, bob, 'bob speaks');
const pub = await post(h, alice, 'public');
const unlisted = await post(h, alice, 'unlisted', { visibility: 'unlisted' });
const priv = await post(h, alice, 'private', { visibility: 'private' });
const dm = await post(h, alice, '@carol direct', { visibility: 'direct' });
const privMention = await post(h, alice, '@carol private mention', { visibility: 'private' });
const replyToBob = await post(h, alice, 'reply to bob', { in_reply_to_id: bobs.id });
const selfReply = await post(h, alice, 'self reply', { in_reply_to_id: pub.id });
const boosted = await boost(h, alice, bobs.id);
const tagged = await post(h, alice, 'about #Cats');

const newestFirst = (...statuses: { id: string }[]) => ids(statuses).reverse();
const url = `/api/v1/accounts/${alice.account.id}/statuses`;

async function seen(token: string | null, query = ''): Promise<string[]> {
  const res = await h.request('GET', `${url}${query}`, { token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return ids(res.json);
}

t.test('the author sees everything, direct messages included', async (t) => {
  t.same(await seen(alice.token), newestFirst(pub, unlisted, priv, dm, privMention, replyToBob, selfReply, boosted, tagged));
});

t.test('a follower sees private statuses but not a direct message to someone else', async (t) => {
  t.same(await seen(bob.token), newestFirst(pub, unlisted, priv, privMention, replyToBob, selfReply, boosted, tagged));
});

t.test('a mentioned stranger sees the direct and private statuses mentioning them', async (t) => {
  t.same(await seen(carol.token), newestFirst(pub, unlisted, dm, privMention, replyToBob, selfReply, boosted, tagged));
});

t.test('a stranger and an anonymous visitor see public and unlisted statuses only', async (t) => {
  const expected = newestFirst(pub, unlisted, replyToBob, selfReply, boosted, tagged);
  t.same(await seen(dave.token), expected);
  t.same(await seen(null), expected);
});

t.test('someone the author blocks sees nothing', async (t) => {
  const eve = await h.user('eve');
  t.equal((await h.request('POST', `/api/v1/accounts/${eve.account.id}/block`, { token: alice.token })).statusCode, 200);
  t.same(await seen(eve.token), []);
});

t.test('exclude_replies keeps self-replies; exclude_reblogs drops boosts; tagged', async (t) => {
  t.same(await seen(null, '?exclude_replies=true'), newestFirst(pub, unlisted, selfReply, boosted, tagged));
  t.same(await seen(null, '?exclude_reblogs=true'), newestFirst(pub, unlisted, replyToBob, selfReply, tagged));
  t.same(await seen(null, '?tagged=cats'), [tagged.id]);
  t.same(await seen(null, '?tagged=CATS'), [tagged.id], 'tags are compared normalized');
  t.same(await seen(null, '?tagged=dogs'), []);
  t.same(await seen(null, '?only_media=true'), [], 'no status has media');
});

t.test('pinned=true: pins, most recently pinned first, without a Link header', async (t) => {
  for (const s of [tagged, pub]) {
    t.equal((await h.request('POST', `/api/v1/statuses/${s.id}/pin`, { token: alice.token })).statusCode, 200);
  }
  const res = await h.request('GET', `${url}?pinned=true`);
  t.equal(res.statusCode, 200);
  t.same(ids(res.json), [pub.id, tagged.id]);
  t.equal(res.headers['link'], undefined);
  const mine = await h.request('GET', `${url}?pinned=true`, { token: alice.token });
  t.same(mine.json.map((s: { pinned: boolean }) => s.pinned), [true, true]);
});

t.test('paging: limit, Link header, max_id, since_id and min_id', async (t) => {
  const all = await seen(null);
  const first = await h.request('GET', `${url}?limit=2`);
  t.same(ids(first.json), all.slice(0, 2));
  t.same(links(first.headers), {
    next: `https://rookery.test${url}?limit=2&max_id=${all[1]}`,
    prev: `https://rookery.test${url}?limit=2&min_id=${all[0]}`,
  });
  const second = await h.request('GET', `${url}?limit=2&max_id=${all[1]}`);
  t.same(ids(second.json), all.slice(2, 4));
  const oldest = all[all.length - 1];
  const sinceOldest = await h.request('GET', `${url}?limit=2&since_id=${oldest}`);
  t.same(ids(sinceOldest.json), all.slice(0, 2), 'since_id: the newest statuses above the cursor');
  const minOldest = await h.request('GET', `${url}?limit=2&min_id=${oldest}`);
  t.same(ids(minOldest.json), all.slice(-3, -1), 'min_id: the statuses just above the cursor, newest first');
  const last = await h.request('GET', `${url}?limit=2&max_id=${all[all.length - 2]}`);
  t.same(ids(last.json), [oldest]);
  t.same(Object.keys(links(last.headers)), ['prev'], 'a short page has no next link');
  const empty = await h.request('GET', `${url}?max_id=${oldest}`);
  t.same(empty.json, []);
  t.equal(empty.headers['link'], undefined, 'no Link header on an empty page');
  t.equal((await h.request('GET', `${url}?limit=100`)).json.length, all.length, 'limit is capped, not refused');
  t.same((await h.request('GET', `${url}?limit=0`)).json, []);
});

t.test('the default limit is 20 and the maximum 40', async (t) => {
  const prolific = await h.user('prolific');
  for (let i = 0; i < 45; i += 1) await post(h, prolific, `post ${i}`);
  const path = `/api/v1/accounts/${prolific.account.id}/statuses`;
  t.equal((await h.request('GET', path)).json.length, 20);
  t.equal((await h.request('GET', `${path}?limit=80`)).json.length, 40);
});

t.test('an unknown account is 404', async (t) => {
  const res = await h.request('GET', '/api/v1/accounts/12345/statuses');
  t.equal(res.statusCode, 404);
  t.same(res.json, { error: 'Record not found' });
});
