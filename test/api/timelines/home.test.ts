// GET /api/v1/timelines/home: whose statuses, and Mastodon's home feed rules.

import t from 'tap';
import { compareIds } from '../../../core/domain/ids.ts';
import { harness } from '../../helpers/harness.ts';
import { boost, follow, ids, links, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const viewer = await h.user('viewer');
const friend = await h.user('friend');
const quiet = await h.user('quiet'); // followed, boosts hidden
const german = await h.user('german'); // followed for German posts only
const stranger = await h.user('stranger');
const muted = await h.user('muted');
await follow(h, viewer, friend);
await follow(h, viewer, quiet, { reblogs: false });
await follow(h, viewer, german, { languages: ['de'] });
await follow(h, viewer, muted);

const own = await post(h, viewer, 'my own');
const ownDirect = await post(h, viewer, '@friend psst', { visibility: 'direct' });
const strangers = await post(h, stranger, 'not followed');
const fPublic = await post(h, friend, 'friend public');
const fUnlisted = await post(h, friend, 'friend unlisted', { visibility: 'unlisted' });
const fPrivate = await post(h, friend, 'friend private', { visibility: 'private' });
const fDirect = await post(h, friend, '@viewer direct', { visibility: 'direct' });
const replyToStranger = await post(h, friend, 'to stranger', { in_reply_to_id: strangers.id });
const replyToQuiet = await post(h, friend, 'to quiet', { in_reply_to_id: (await post(h, quiet, 'quiet says')).id });
const replyToViewer = await post(h, friend, 'to viewer', { in_reply_to_id: own.id });
const selfReply = await post(h, friend, 'thread', { in_reply_to_id: fPublic.id });
const quietBoost = await boost(h, quiet, strangers.id);
const friendBoost = await boost(h, friend, strangers.id);
const english = await post(h, german, 'hello', { language: 'en' });
const deutsch = await post(h, german, 'hallo', { language: 'de' });
const mutedPost = await post(h, muted, 'muted says');
const boostOfMuted = await boost(h, friend, mutedPost.id);
await h.request('POST', `/api/v1/accounts/${muted.account.id}/mute`, { token: viewer.token });

async function home(query = ''): Promise<{ statusCode: number; json: any; headers: Record<string, unknown> }> {
  return h.request('GET', `/api/v1/timelines/home${query}`, { token: viewer.token });
}

t.test('what the home timeline holds', async (t) => {
  const res = await home('?limit=40');
  t.equal(res.statusCode, 200);
  const quietSays = (await h.request('GET', `/api/v1/accounts/${quiet.account.id}/statuses?exclude_reblogs=true`)).json[0];
  const expected = [own, fPublic, fUnlisted, fPrivate, quietSays, replyToQuiet, replyToViewer, selfReply, friendBoost, deutsch];
  t.same(ids(res.json).sort(), ids(expected).sort());
  t.same(ids(res.json), ids(expected).sort((a, b) => compareIds(b, a)), 'newest first');
  const shown = new Set(ids(res.json));
  const hidden = { ownDirect, strangers, fDirect, replyToStranger, quietBoost, english, mutedPost, boostOfMuted };
  for (const [name, s] of Object.entries(hidden)) t.notOk(shown.has(s.id), `${name} is not shown`);
});

t.test('a blocked account disappears from home, with its boosts', async (t) => {
  const before = ids((await home('?limit=40')).json);
  t.ok(before.includes(friendBoost.id));
  await h.request('POST', `/api/v1/accounts/${stranger.account.id}/block`, { token: viewer.token });
  const after = ids((await home('?limit=40')).json);
  t.notOk(after.includes(friendBoost.id), 'a boost of a blocked account is hidden');
  t.ok(after.includes(fPublic.id));
  await h.request('POST', `/api/v1/accounts/${stranger.account.id}/unblock`, { token: viewer.token });
});

t.test('pages are filled despite filtered statuses, and Link headers chain them', async (t) => {
  const all = ids((await home('?limit=40')).json);
  const seen: string[] = [];
  let path: string | undefined = '/api/v1/timelines/home?limit=3';
  let pages = 0;
  while (path !== undefined && pages < 10) {
    const res = await h.request('GET', path, { token: viewer.token });
    const page = ids(res.json);
    if (page.length === 0) break;
    if (links(res.headers)['next'] !== undefined) t.equal(page.length, 3, 'a page with a next link is full');
    seen.push(...page);
    path = links(res.headers)['next']?.replace('https://rookery.test', '');
    pages += 1;
  }
  t.same(seen, all);
  const first = await home('?limit=3');
  t.same(links(first.headers), {
    next: `https://rookery.test/api/v1/timelines/home?limit=3&max_id=${all[2]}`,
    prev: `https://rookery.test/api/v1/timelines/home?limit=3&min_id=${all[0]}`,
  });
  const newer = await home(`?limit=2&min_id=${all[5]}`);
  t.same(ids(newer.json), [all[3], all[4]], 'min_id: the page just above the cursor');
  const newest = await home(`?limit=2&since_id=${all[5]}`);
  t.same(ids(newest.json), [all[0], all[1]], 'since_id: the newest page above the cursor');
  const empty = await home(`?since_id=${all[0]}`);
  t.same(empty.json, []);
  t.equal(empty.headers['link'], undefined);
});

t.test('members of an exclusive list stay out of home', async (t) => {
  const list = await h.request('POST', '/api/v1/lists', { token: viewer.token, payload: { title: 'Friends', exclusive: true } });
  await h.request('POST', `/api/v1/lists/${list.json.id}/accounts`, { token: viewer.token, payload: { account_ids: [friend.account.id] } });
  const shown = ids((await home('?limit=40')).json);
  t.notOk(shown.includes(fPublic.id));
  t.ok(shown.includes(own.id));
  await h.request('DELETE', `/api/v1/lists/${list.json.id}`, { token: viewer.token });
  t.ok(ids((await home('?limit=40')).json).includes(fPublic.id));
});

t.test('auth: 401 without a token, 403 without read:statuses, 200 with it', async (t) => {
  const anonymous = await h.request('GET', '/api/v1/timelines/home');
  t.equal(anonymous.statusCode, 401);
  t.same(anonymous.json, { error: 'The access token is invalid' });
  const follower = await h.user('follower', { scopes: ['read:follows'] });
  const narrow = await h.request('GET', '/api/v1/timelines/home', { token: follower.token });
  t.equal(narrow.statusCode, 403);
  t.same(narrow.json, { error: 'This action is outside the authorized scopes' });
  const reader = await h.user('reader', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v1/timelines/home', { token: reader.token })).statusCode, 200);
  const app = await h.app(['read']);
  const appOnly = await h.request('GET', '/api/v1/timelines/home', { token: app.token });
  t.equal(appOnly.statusCode, 422, 'an app token acts for nobody');
});
