// Endorsements: POST /api/v1/accounts/:id/pin|unpin and 4.4's endorse|unendorse, the
// `endorsed` relationship field, GET /api/v1/endorsements and GET /api/v1/accounts/:id/endorsements.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, links } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');
const carol = await h.user('carol');
const dave = await h.user('dave');
const reader = await h.user('reader', { scopes: ['read'] });
await follow(h, alice, bob);
await follow(h, alice, carol);
await follow(h, alice, dave);

const act = (who: typeof alice, target: typeof alice, action: string) => h.request('POST', `/api/v1/accounts/${target.account.id}/${action}`, { token: who.token });

t.test('endorse and pin, unendorse and unpin answer the relationship', async (t) => {
  const endorsed = await act(alice, bob, 'endorse');
  t.equal(endorsed.statusCode, 200);
  t.same([endorsed.json.id, endorsed.json.following, endorsed.json.endorsed], [bob.account.id, true, true]);
  t.equal((await act(alice, bob, 'pin')).json.endorsed, true, 'again, by its older name');
  const rel = await h.request('GET', `/api/v1/accounts/relationships?id[]=${bob.account.id}&id[]=${carol.account.id}`, { token: alice.token });
  t.same(rel.json.map((r: { endorsed: boolean }) => r.endorsed), [true, false]);
  t.equal((await act(alice, bob, 'unendorse')).json.endorsed, false);
  t.equal((await act(alice, bob, 'unpin')).json.endorsed, false, 'unpinning what is not pinned');
});

t.test('only accounts one follows', async (t) => {
  for (const [who, target] of [[bob, alice], [alice, alice]] as const) {
    const res = await act(who, target, 'endorse');
    t.equal(res.statusCode, 422);
    t.same(res.json, { error: 'Validation failed: You must be already following the person you want to endorse' });
  }
  t.same((await act(bob, alice, 'pin')).json, { error: 'Validation failed: You must be already following the person you want to endorse' });
  const missing = await h.request('POST', '/api/v1/accounts/12345/endorse', { token: alice.token });
  t.same([missing.statusCode, missing.json], [404, { error: 'Record not found' }]);
  t.equal((await act(reader, alice, 'endorse')).statusCode, 403, 'write:accounts is needed');
  t.equal((await h.request('POST', `/api/v1/accounts/${bob.account.id}/endorse`, { token: null })).statusCode, 401);
});

t.test('listed newest first, paged, on the profile too; unfollowing ends the endorsement', async (t) => {
  await act(alice, bob, 'endorse');
  await act(alice, carol, 'endorse');
  await act(alice, dave, 'endorse');
  const mine = await h.request('GET', '/api/v1/endorsements?limit=2', { token: alice.token });
  t.equal(mine.statusCode, 200);
  t.same(ids(mine.json), [dave.account.id, carol.account.id]);
  const link = links(mine.headers);
  t.match(link['next'], /^https:\/\/rookery\.test\/api\/v1\/endorsements\?limit=2&max_id=\d+$/);
  t.match(link['prev'], /^https:\/\/rookery\.test\/api\/v1\/endorsements\?limit=2&since_id=\d+$/);
  t.same(ids((await h.request('GET', (link['next'] as string).replace('https://rookery.test', ''), { token: alice.token })).json), [bob.account.id]);

  const profile = await h.request('GET', `/api/v1/accounts/${alice.account.id}/endorsements`, { token: null });
  t.equal(profile.statusCode, 200);
  t.same(ids(profile.json), [dave.account.id, carol.account.id, bob.account.id], 'anyone sees them');
  t.same((await h.request('GET', `/api/v1/accounts/${bob.account.id}/endorsements`)).json, []);
  t.equal((await h.request('GET', '/api/v1/accounts/12345/endorsements')).statusCode, 404);

  await h.request('POST', `/api/v1/accounts/${carol.account.id}/unfollow`, { token: alice.token });
  t.same(ids((await h.request('GET', '/api/v1/endorsements', { token: alice.token })).json), [dave.account.id, bob.account.id], 'unfollowed: no longer endorsed');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/block`, { token: dave.token });
  t.same(ids((await h.request('GET', '/api/v1/endorsements', { token: alice.token })).json), [bob.account.id], 'a block ends the follow, and the endorsement');
  await follow(h, alice, carol);
  t.equal((await h.request('GET', `/api/v1/accounts/relationships?id[]=${carol.account.id}`, { token: alice.token })).json[0].endorsed, false, 'following again does not bring it back');
  t.equal((await h.request('GET', '/api/v1/endorsements', { token: null })).statusCode, 401);
});
