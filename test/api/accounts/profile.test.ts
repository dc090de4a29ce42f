// GET /api/v1/accounts/:id, /lookup and the batch read.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { remoteAccount } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const alice = await h.user('alice', { displayName: 'Alice' });
const pending = await h.user('pending', { confirmed: false });
const far = await remoteAccount(h, 'faraway');

t.test('an account by id, anonymously and with a token', async (t) => {
  const anonymous = await h.request('GET', `/api/v1/accounts/${alice.account.id}`);
  t.equal(anonymous.statusCode, 200);
  t.equal(anonymous.json.id, alice.account.id);
  t.equal(anonymous.json.username, 'alice');
  t.equal(anonymous.json.acct, 'alice');
  t.equal(anonymous.json.display_name, 'Alice');
  t.equal(anonymous.json.url, 'https://rookery.test/@alice');
  t.equal(anonymous.json.avatar, 'https://rookery.test/avatars/original/missing.png');
  const signedIn = await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: alice.token });
  t.same(signedIn.json, anonymous.json);
});

t.test('unknown, malformed and unconfirmed accounts are 404 Record not found', async (t) => {
  for (const id of ['999999999', 'abc', '0', pending.account.id]) {
    const res = await h.request('GET', `/api/v1/accounts/${id}`);
    t.equal(res.statusCode, 404, id);
    t.same(res.json, { error: 'Record not found' }, id);
  }
});

t.test('a token without the scope is 403', async (t) => {
  const writer = await h.user('writer', { scopes: ['write'] });
  const res = await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: writer.token });
  t.equal(res.statusCode, 403);
  t.same(res.json, { error: 'This action is outside the authorized scopes' });
});

t.test('lookup by acct', async (t) => {
  for (const acct of ['alice', '@alice', 'ALICE', 'alice@rookery.test', '@alice@rookery.test']) {
    const res = await h.request('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
    t.equal(res.statusCode, 200, acct);
    t.equal(res.json.id, alice.account.id, acct);
  }
  const remote = await h.request('GET', '/api/v1/accounts/lookup?acct=faraway@far.example');
  t.equal(remote.statusCode, 200);
  t.equal(remote.json.id, far.id);
  t.equal(remote.json.acct, 'faraway@far.example');
  for (const acct of ['alice@elsewhere.example', 'nobody', 'faraway', '', 'pending']) {
    const res = await h.request('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
    t.equal(res.statusCode, 404, `"${acct}"`);
    t.same(res.json, { error: 'Record not found' });
  }
  const missing = await h.request('GET', '/api/v1/accounts/lookup');
  t.equal(missing.statusCode, 404);
});

t.test('several accounts at once, unknown ones skipped', async (t) => {
  const res = await h.request('GET', `/api/v1/accounts?id[]=${alice.account.id}&id[]=123&id[]=${far.id}`);
  t.equal(res.statusCode, 200);
  t.same(res.json.map((a: { id: string }) => a.id).sort(), [alice.account.id, far.id].sort());
  const many = Array.from({ length: 41 }, (_, i) => `id[]=${i + 1}`).join('&');
  t.equal((await h.request('GET', `/api/v1/accounts?${many}`)).statusCode, 422);
});

t.test('featured tags of an account: none, and 404 for an unknown account', async (t) => {
  const res = await h.request('GET', `/api/v1/accounts/${alice.account.id}/featured_tags`);
  t.equal(res.statusCode, 200);
  t.same(res.json, []);
  t.equal((await h.request('GET', '/api/v1/accounts/42/featured_tags')).statusCode, 404);
});

t.test('identity proofs (gone from Mastodon): always [], 404 for an unknown account', async (t) => {
  const res = await h.request('GET', `/api/v1/accounts/${alice.account.id}/identity_proofs`);
  t.same([res.statusCode, res.json], [200, []]);
  const unknown = await h.request('GET', '/api/v1/accounts/42/identity_proofs');
  t.same([unknown.statusCode, unknown.json], [404, { error: 'Record not found' }]);
});
