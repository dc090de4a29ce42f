// Follow suggestions (v1 and v2) and their dismissal.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const [ann, ben] = [await h.user('ann'), await h.user('ben')];
const [fof1, fof2, popular, hidden, quiet] = [await h.user('fofone'), await h.user('foftwo'), await h.user('popular'), await h.user('hidden'), await h.user('quiet')];
const fans = [await h.user('fanone'), await h.user('fantwo'), await h.user('fanthree')];

await follow(h, me, ann);
await follow(h, me, ben);
await follow(h, ann, fof1); // fof1: followed by two of mine
await follow(h, ben, fof1);
await follow(h, ann, fof2); // fof2: by one
for (const fan of fans) await follow(h, fan, popular); // popular: three followers, none of mine
await follow(h, ann, hidden);
await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: hidden.token, payload: { discoverable: false } });
// quiet: nobody follows it, it is not suggested.
void quiet;

const v1 = async (token = me.token, query = '') => (await h.request('GET', `/api/v1/suggestions${query}`, { token })).json.map((a: { id: string }) => a.id);

t.test('v1: friends of friends first (most in common first), then the most followed', async (t) => {
  const res = await h.request('GET', '/api/v1/suggestions', { token: me.token });
  t.equal(res.statusCode, 200);
  t.strictSame(
    res.json.map((a: { id: string }) => a.id),
    [fof1.account.id, fof2.account.id, popular.account.id],
    'neither me, those I follow (ann, ben), undiscoverable accounts (hidden) nor accounts nobody follows (quiet)',
  );
  t.strictSame(res.json[0], (await h.request('GET', `/api/v1/accounts/${fof1.account.id}`)).json, 'whole Account entities');
  t.strictSame(await v1(me.token, '?limit=1'), [fof1.account.id], 'limit');
});

t.test("v2: each with Mastodon's source and sources", async (t) => {
  const res = await h.request('GET', '/api/v2/suggestions', { token: me.token });
  t.equal(res.statusCode, 200);
  t.strictSame(
    res.json.map((s: { source: string; sources: string[]; account: { id: string } }) => [s.source, s.sources, s.account.id]),
    [
      ['past_interactions', ['friends_of_friends'], fof1.account.id],
      ['past_interactions', ['friends_of_friends'], fof2.account.id],
      ['global', ['most_followed'], popular.account.id],
    ],
  );
  t.strictSame(Object.keys(res.json[0]).sort(), ['account', 'source', 'sources']);
  const offset = await h.request('GET', '/api/v2/suggestions?offset=1&limit=1', { token: me.token });
  t.strictSame(offset.json.map((s: { account: { id: string } }) => s.account.id), [fof2.account.id], 'offset');
});

t.test('dismissed: gone from v1 and v2 for that user only, for good', async (t) => {
  const res = await h.request('DELETE', `/api/v1/suggestions/${fof1.account.id}`, { token: me.token });
  t.same([res.statusCode, res.json], [200, {}]);
  t.strictSame(await v1(), [fof2.account.id, popular.account.id]);
  const v2 = (await h.request('GET', '/api/v2/suggestions', { token: me.token })).json.map((s: { account: { id: string } }) => s.account.id);
  t.strictSame(v2, [fof2.account.id, popular.account.id]);
  t.ok((await v1(ann.token)).includes(popular.account.id), 'others still see theirs');
  t.same((await h.request('DELETE', `/api/v1/suggestions/${fof1.account.id}`, { token: me.token })).json, {}, 'again: the same answer');
  const unknown = await h.request('DELETE', '/api/v1/suggestions/999999999', { token: me.token });
  t.same([unknown.statusCode, unknown.json], [200, {}], 'no such account: nothing to dismiss, the same answer');
  // Following and unfollowing does not bring it back.
  await follow(h, me, fof1);
  await h.request('POST', `/api/v1/accounts/${fof1.account.id}/unfollow`, { token: me.token });
  t.notOk((await v1()).includes(fof1.account.id), 'still dismissed');
});

t.test('blocked, muted, blocking and requested accounts are not suggested', async (t) => {
  const viewer = await h.user('viewer');
  await follow(h, viewer, ann);
  // ben has one follower (me): after popular, among the most followed.
  t.strictSame(await v1(viewer.token), [fof1.account.id, fof2.account.id, popular.account.id, ben.account.id]);
  await h.request('POST', `/api/v1/accounts/${fof1.account.id}/block`, { token: viewer.token });
  await h.request('POST', `/api/v1/accounts/${fof2.account.id}/mute`, { token: viewer.token });
  await h.request('POST', `/api/v1/accounts/${viewer.account.id}/block`, { token: popular.token });
  t.strictSame(await v1(viewer.token), [ben.account.id], 'only ben left');
  const locked = await h.user('locked');
  await follow(h, fans[0] as (typeof fans)[number], locked); // a follower: now among the most followed
  await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: locked.token, payload: { locked: true } });
  const requester = await h.user('requester');
  t.ok((await v1(requester.token)).includes(locked.account.id));
  await h.request('POST', `/api/v1/accounts/${locked.account.id}/follow`, { token: requester.token });
  t.notOk((await v1(requester.token)).includes(locked.account.id), 'a pending request: not suggested');
});

t.test('scopes', async (t) => {
  const reader = await h.user('sreader', { scopes: ['read:accounts'] });
  t.equal((await h.request('GET', '/api/v1/suggestions', { token: reader.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v2/suggestions', { token: reader.token })).statusCode, 200);
  const refused = await h.request('DELETE', `/api/v1/suggestions/${popular.account.id}`, { token: reader.token });
  t.same([refused.statusCode, refused.json], [403, { error: 'This action is outside the authorized scopes' }]);
  const writer = await h.user('swriter', { scopes: ['write:accounts'] });
  t.equal((await h.request('DELETE', `/api/v1/suggestions/${popular.account.id}`, { token: writer.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/suggestions', { token: writer.token })).statusCode, 403);
  t.same((await h.request('GET', '/api/v1/suggestions')).json, { error: 'The access token is invalid' });
});
