// GET /api/v1/accounts/familiar_followers: for each asked account, the accounts the viewer
// follows that follow it (Mastodon's [{id, accounts}]).

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const [ann, ben, cat, dan] = [await h.user('ann'), await h.user('ben'), await h.user('cat'), await h.user('dan')];
const target = await h.user('target');
const other = await h.user('other');
const pending = await h.user('pending', { confirmed: false });

await follow(h, me, ann);
await follow(h, me, ben);
await follow(h, me, cat);
await follow(h, ann, target);
await follow(h, ben, target);
await follow(h, dan, target); // not followed by me
await follow(h, cat, other);

const ask = (ids: string[], token = me.token) => h.request('GET', `/api/v1/accounts/familiar_followers?${ids.map((i) => `id[]=${i}`).join('&')}`, { token });
const ids = (entry: { accounts: { id: string }[] }) => entry.accounts.map((a) => a.id);

t.test('the followed accounts that follow each asked account, in the order asked', async (t) => {
  const res = await ask([target.account.id, other.account.id, dan.account.id]);
  t.equal(res.statusCode, 200);
  t.strictSame(res.json.map((e: { id: string }) => e.id), [target.account.id, other.account.id, dan.account.id]);
  t.strictSame(ids(res.json[0]), [ann.account.id, ben.account.id], 'oldest follow first');
  t.strictSame(ids(res.json[1]), [cat.account.id]);
  t.strictSame(ids(res.json[2]), [], 'nobody in common');
  const whole = (await h.request('GET', `/api/v1/accounts/${ann.account.id}`)).json;
  t.strictSame(res.json[0].accounts[0], whole, 'whole Account entities');
  t.strictSame(Object.keys(res.json[0]).sort(), ['accounts', 'id']);
});

t.test('unknown, malformed, unconfirmed and repeated ids', async (t) => {
  const res = await ask(['999999999', 'abc', pending.account.id, target.account.id, target.account.id]);
  t.equal(res.statusCode, 200);
  t.strictSame(res.json.map((e: { id: string }) => e.id), [target.account.id], 'only the accounts that exist, once');
  t.strictSame((await h.request('GET', '/api/v1/accounts/familiar_followers', { token: me.token })).json, []);
  t.strictSame((await ask([target.account.id], other.token)).json, [{ id: target.account.id, accounts: [] }], 'another viewer follows nobody');
});

t.test('blocked and muted accounts are left out; a target that blocks the viewer shows nobody', async (t) => {
  await h.request('POST', `/api/v1/accounts/${ben.account.id}/mute`, { token: me.token });
  t.strictSame(ids((await ask([target.account.id])).json[0]), [ann.account.id], 'a muted one is hidden');
  await h.request('POST', `/api/v1/accounts/${ben.account.id}/unmute`, { token: me.token });
  t.strictSame(ids((await ask([target.account.id])).json[0]), [ann.account.id, ben.account.id]);
  // ann blocks me: the block ends my follow of her, so she no longer counts.
  await h.request('POST', `/api/v1/accounts/${me.account.id}/block`, { token: ann.token });
  t.strictSame(ids((await ask([target.account.id])).json[0]), [ben.account.id]);
  await h.request('POST', `/api/v1/accounts/${me.account.id}/block`, { token: target.token });
  t.strictSame((await ask([target.account.id])).json, [{ id: target.account.id, accounts: [] }], 'the target blocks me: nobody');
  await h.request('POST', `/api/v1/accounts/${me.account.id}/unblock`, { token: target.token });
});

t.test('scopes: read or read:follows; a user token', async (t) => {
  const follows = await h.user('fr', { scopes: ['read:follows'] });
  t.equal((await ask([target.account.id], follows.token)).statusCode, 200);
  const accounts = await h.user('ar', { scopes: ['read:accounts'] });
  const refused = await ask([target.account.id], accounts.token);
  t.same([refused.statusCode, refused.json], [403, { error: 'This action is outside the authorized scopes' }]);
  const anonymous = await h.request('GET', `/api/v1/accounts/familiar_followers?id[]=${target.account.id}`);
  t.same([anonymous.statusCode, anonymous.json], [401, { error: 'The access token is invalid' }]);
});
