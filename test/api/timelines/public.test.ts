// GET /api/v1/timelines/public and /api/v1/timelines/tag/:hashtag.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { boost, ids, links, post, remoteAccount, remoteStatus } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const amy = await h.user('amy');
const ben = await h.user('ben');
const far = await remoteAccount(h, 'far');

const local1 = await post(h, amy, 'hello #Cats');
const unlisted = await post(h, amy, 'quiet #cats', { visibility: 'unlisted' });
const priv = await post(h, amy, 'private #cats', { visibility: 'private' });
const replyToOther = await post(h, ben, 'reply #cats', { in_reply_to_id: local1.id });
const selfReply = await post(h, amy, 'more #dogs', { in_reply_to_id: local1.id });
const boosted = await boost(h, ben, local1.id);
const remote = await remoteStatus(h, far, 'from afar #cats', { tags: ['cats', 'birds'] });
const both = await post(h, ben, '#cats and #dogs');

async function get(path: string, token: string | null = null) {
  const res = await h.request('GET', path, { token });
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return res;
}

t.test('public: public statuses, no boosts, no replies to others, anonymous allowed', async (t) => {
  t.same(ids((await get('/api/v1/timelines/public')).json), [both.id, remote.id, selfReply.id, local1.id]);
  t.same(ids((await get('/api/v1/timelines/public?local=true')).json), [both.id, selfReply.id, local1.id]);
  t.same(ids((await get('/api/v1/timelines/public?remote=true')).json), [remote.id]);
  t.same(ids((await get('/api/v1/timelines/public?only_media=true')).json), []);
  const shown = new Set(ids((await get('/api/v1/timelines/public', amy.token)).json));
  for (const s of [unlisted, priv, replyToOther, boosted]) t.notOk(shown.has(s.id));
});

t.test('public: paging and Link', async (t) => {
  const res = await get('/api/v1/timelines/public?local=true&limit=2');
  t.same(ids(res.json), [both.id, selfReply.id]);
  t.same(links(res.headers), {
    next: `https://rookery.test/api/v1/timelines/public?local=true&limit=2&max_id=${selfReply.id}`,
    prev: `https://rookery.test/api/v1/timelines/public?local=true&limit=2&min_id=${both.id}`,
  });
  const next = await get(`/api/v1/timelines/public?local=true&limit=2&max_id=${selfReply.id}`);
  t.same(ids(next.json), [local1.id]);
  t.same(Object.keys(links(next.headers)), ['prev']);
});

t.test('public: accounts the viewer blocks or mutes are left out', async (t) => {
  const carl = await h.user('carl');
  await h.request('POST', `/api/v1/accounts/${ben.account.id}/mute`, { token: carl.token });
  t.same(ids((await get('/api/v1/timelines/public?local=true', carl.token)).json), [selfReply.id, local1.id]);
});

t.test('tag: public statuses with the tag, replies included, normalized name', async (t) => {
  const expected = [both.id, remote.id, replyToOther.id, local1.id];
  t.same(ids((await get('/api/v1/timelines/tag/cats')).json), expected);
  t.same(ids((await get('/api/v1/timelines/tag/CATS')).json), expected);
  t.same(ids((await get(`/api/v1/timelines/tag/${encodeURIComponent('Cåts')}`)).json), expected, 'accents folded');
  t.same(ids((await get('/api/v1/timelines/tag/cats?local=true')).json), [both.id, replyToOther.id, local1.id]);
  t.same(ids((await get('/api/v1/timelines/tag/cats?remote=true')).json), [remote.id]);
  t.same(ids((await get('/api/v1/timelines/tag/nothing')).json), []);
});

t.test('tag: any[], all[], none[]', async (t) => {
  t.same(ids((await get('/api/v1/timelines/tag/dogs?any[]=birds')).json), [both.id, remote.id, selfReply.id]);
  t.same(ids((await get('/api/v1/timelines/tag/cats?all[]=dogs')).json), [both.id]);
  t.same(ids((await get('/api/v1/timelines/tag/cats?none[]=dogs&none[]=birds')).json), [replyToOther.id, local1.id]);
  const page = await get('/api/v1/timelines/tag/dogs?any[]=birds&limit=2');
  t.same(ids(page.json), [both.id, remote.id]);
  const next = links(page.headers)['next'] ?? '';
  t.equal(next, `https://rookery.test/api/v1/timelines/tag/dogs?any[]=birds&limit=2&max_id=${remote.id}`.replace('any[]', 'any%5B%5D'));
  t.same(ids((await get(next.replace('https://rookery.test', ''))).json), [selfReply.id]);
  const above = await get(`/api/v1/timelines/tag/dogs?any[]=birds&limit=1&min_id=${selfReply.id}`);
  t.same(ids(above.json), [remote.id], 'min_id across several tags: the nearest above');
});

t.test('limited-federation mode refuses anonymous readers', async (t) => {
  const limited = await harness({ config: { limitedFederation: true } });
  t.teardown(() => limited.close());
  const res = await limited.request('GET', '/api/v1/timelines/public');
  t.equal(res.statusCode, 401);
  t.same(res.json, { error: 'This API requires an authenticated user' });
  const user = await limited.user('insider');
  t.equal((await limited.request('GET', '/api/v1/timelines/public', { token: user.token })).statusCode, 200);
});
