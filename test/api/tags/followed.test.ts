// Followed hashtags: POST /api/v1/tags/:name/follow|unfollow, GET /api/v1/followed_tags,
// `following` on GET /api/v1/tags/:name, and the statuses a followed hashtag brings into the
// home timeline and the user stream (Mastodon's FeedManager for tag follows).

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { boost, ids, links, post, remoteAccount, remoteStatus } from '../../helpers/api.ts';
import { openStream } from '../../helpers/streams.ts';
import { tagIdOf } from '../../../core/domain/tags/names.ts';

const h = await harness();
t.teardown(() => h.close());
const viewer = await h.user('viewer');
const stranger = await h.user('stranger');
const muted = await h.user('muted');
const blocked = await h.user('blocked');
const blocker = await h.user('blocker');
const reader = await h.user('reader', { scopes: ['read'] });

const zeroHistory = (t0: number) => Array.from({ length: 7 }, (_, i) => ({ day: String((Math.floor(t0 / 86_400_000) - i) * 86_400), uses: '0', accounts: '0' }));

t.test('a tag before and after following it', async (t) => {
  const before = await h.request('GET', '/api/v1/tags/Knitting', { token: viewer.token });
  t.equal(before.statusCode, 200);
  t.match(before.json.id, /^\d+$/);
  t.equal(before.json.id, tagIdOf('knitting'), 'an id derived from the normalized name');
  t.same(before.json, { id: tagIdOf('knitting'), name: 'Knitting', url: 'https://rookery.test/tags/Knitting', history: zeroHistory(h.clock.now()), following: false, featuring: false });
  const anonymous = await h.request('GET', '/api/v1/tags/Knitting');
  t.same(anonymous.json, { id: tagIdOf('knitting'), name: 'Knitting', url: 'https://rookery.test/tags/Knitting', history: zeroHistory(h.clock.now()) }, 'no viewer fields without a viewer');

  const followed = await h.request('POST', '/api/v1/tags/Knitting/follow', { token: viewer.token });
  t.equal(followed.statusCode, 200);
  t.same(followed.json, { ...before.json, following: true });
  t.equal((await h.request('POST', '/api/v1/tags/knitting/follow', { token: viewer.token })).json.following, true, 'following again (any case) changes nothing');
  t.equal((await h.request('GET', '/api/v1/tags/KNITTING', { token: viewer.token })).json.following, true, 'following is per normalized name');
  const list = await h.request('GET', '/api/v1/followed_tags', { token: viewer.token });
  t.equal(list.statusCode, 200);
  t.same(list.json.map((tag: { name: string }) => tag.name), ['Knitting'], 'listed once, as first written');

  const unfollowed = await h.request('POST', '/api/v1/tags/knitting/unfollow', { token: viewer.token });
  t.equal(unfollowed.statusCode, 200);
  t.same(unfollowed.json, { id: tagIdOf('knitting'), name: 'knitting', url: 'https://rookery.test/tags/knitting', history: zeroHistory(h.clock.now()), following: false, featuring: false });
  t.same((await h.request('POST', '/api/v1/tags/knitting/unfollow', { token: viewer.token })).json.following, false, 'unfollowing again is fine');
  t.same((await h.request('GET', '/api/v1/followed_tags', { token: viewer.token })).json, []);
});

t.test('names that are not hashtags are not found', async (t) => {
  for (const name of ['!!!', '123', '#cats', 'a b', 'x'.repeat(257)]) {
    for (const [method, path] of [['GET', ''], ['POST', '/follow'], ['POST', '/unfollow']] as const) {
      const res = await h.request(method, `/api/v1/tags/${encodeURIComponent(name)}${path}`, { token: viewer.token });
      t.equal(res.statusCode, 404, `${method} ${name.slice(0, 10)}${path}`);
      t.same(res.json, { error: 'Record not found' });
    }
  }
  t.equal((await h.request('GET', `/api/v1/tags/${encodeURIComponent('café_2')}`)).statusCode, 200, 'letters beyond ASCII and digits with a letter are');
});

t.test('scopes and sign-in', async (t) => {
  const narrow = await h.request('POST', '/api/v1/tags/cats/follow', { token: reader.token });
  t.equal(narrow.statusCode, 403);
  t.same(narrow.json, { error: 'This action is outside the authorized scopes' });
  const anonymous = await h.request('POST', '/api/v1/tags/cats/follow', { token: null });
  t.equal(anonymous.statusCode, 401);
  t.equal((await h.request('GET', '/api/v1/followed_tags', { token: null })).statusCode, 401);
  t.equal((await h.request('GET', '/api/v1/followed_tags', { token: reader.token })).statusCode, 200, 'read reads them');
});

t.test('followed_tags: newest follow first, paged with Link headers', async (t) => {
  const pager = await h.user('pager');
  for (const name of ['one', 'two', 'three']) await h.request('POST', `/api/v1/tags/${name}/follow`, { token: pager.token });
  const first = await h.request('GET', '/api/v1/followed_tags?limit=2', { token: pager.token });
  t.same(first.json.map((tag: { name: string }) => tag.name), ['three', 'two']);
  const link = links(first.headers);
  t.match(link['next'], /^https:\/\/rookery\.test\/api\/v1\/followed_tags\?limit=2&max_id=\d+$/);
  t.match(link['prev'], /^https:\/\/rookery\.test\/api\/v1\/followed_tags\?limit=2&since_id=\d+$/);
  const next = await h.request('GET', (link['next'] as string).replace('https://rookery.test', ''), { token: pager.token });
  t.same(next.json.map((tag: { name: string }) => tag.name), ['one']);
  t.notOk(links(next.headers)['next'], 'a short page is the last');
});

t.test('statuses with a followed hashtag reach the home timeline and the user stream', async (t) => {
  await h.request('POST', `/api/v1/accounts/${muted.account.id}/mute`, { token: viewer.token });
  await h.request('POST', `/api/v1/accounts/${blocked.account.id}/block`, { token: viewer.token });
  await h.request('POST', `/api/v1/accounts/${viewer.account.id}/block`, { token: blocker.token });
  await h.request('POST', '/api/v1/domain_blocks', { token: viewer.token, payload: { domain: 'blocked.example' } });
  await h.request('POST', '/api/v1/tags/Cats/follow', { token: viewer.token });
  const stream = await openStream(h, viewer, 'user');

  const shown = {
    plain: await post(h, stranger, 'look #cats'),
    accented: await post(h, stranger, 'more #CATS'),
    reply: await post(h, stranger, 'a reply #cats', { in_reply_to_id: (await post(h, muted, 'unrelated')).id }),
  };
  const remote = await remoteStatus(h, await remoteAccount(h, 'far'), '#cats from afar', { tags: ['cats'] }, { announce: true });
  const hidden = {
    unlisted: await post(h, stranger, 'quiet #cats', { visibility: 'unlisted' }),
    private: await post(h, stranger, 'private #cats', { visibility: 'private' }),
    direct: await post(h, stranger, '@viewer direct #cats', { visibility: 'direct' }),
    other: await post(h, stranger, 'not the tag #dogs'),
    mutedAuthor: await post(h, muted, 'muted #cats'),
    blockedAuthor: await post(h, blocked, 'blocked #cats'),
    blocksViewer: await post(h, blocker, 'blocker #cats'),
    mentionsMuted: await post(h, stranger, '@muted hello #cats'),
    blockedDomain: await remoteStatus(h, await remoteAccount(h, 'shunned', 'blocked.example'), '#cats from a blocked domain', { tags: ['cats'] }, { announce: true }),
  };
  const repeat = await boost(h, stranger, shown.plain.id);

  const home = await h.request('GET', '/api/v1/timelines/home?limit=40', { token: viewer.token });
  t.equal(home.statusCode, 200);
  const timeline = ids(home.json);
  t.same(timeline, [remote.id, shown.reply.id, shown.accented.id, shown.plain.id], 'newest first: local and remote public statuses, replies included');
  for (const [name, s] of Object.entries(hidden)) t.notOk(timeline.includes(s.id), `${name} is not in the home timeline`);
  t.notOk(timeline.includes(repeat.id), 'nor a boost of a tagged status by someone not followed');

  const streamed = stream.sink.received.filter((r) => r.event === 'update').map((r) => r.payload.id as string);
  t.same(streamed, [shown.plain.id, shown.accented.id, shown.reply.id, remote.id], 'the user stream gets the same statuses');
  stream.connection.close();

  await h.request('POST', '/api/v1/tags/cats/unfollow', { token: viewer.token });
  t.same(ids((await h.request('GET', '/api/v1/timelines/home', { token: viewer.token })).json), [], 'unfollowed: gone from home');
});
