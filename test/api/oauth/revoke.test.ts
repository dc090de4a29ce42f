// POST /oauth/revoke (RFC 7009; docs/behaviour.md, "OAuth") and how tokens are then presented and
// refused by the API: header or access_token parameter, scopes, revoked tokens.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { basic, PASSWORD, registerApp, tokenRequest } from '../../helpers/oauth.ts';

const REFUSED = { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' };
const INVALID = { error: 'The access token is invalid' };

t.test('revoking tokens', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h);
  const other = await registerApp(h, { client_name: 'Other' });
  const creds = { client_id: app.client_id, client_secret: app.client_secret };
  const userToken = async () => (await tokenRequest(h, { grant_type: 'password', username: 'alice', password: PASSWORD, scope: 'read write', ...creds })).json.access_token as string;
  const revoke = (payload: Record<string, unknown>, headers: Record<string, string> = {}) => h.request('POST', '/oauth/revoke', { payload, headers });

  t.test('its own token: 200 {}, then every endpoint answers 401', async (t) => {
    const token = await userToken();
    const posted = await h.request('POST', '/api/v1/statuses', { token, payload: { status: 'before revocation' } });
    t.equal(posted.statusCode, 200, 'the token works before');
    const res = await revoke({ token, ...creds });
    t.equal(res.statusCode, 200);
    t.same(res.json, {});
    for (const [method, url, payload] of [
      ['GET', '/api/v1/apps/verify_credentials', undefined],
      ['GET', '/api/v1/accounts/verify_credentials', undefined],
      ['POST', '/api/v1/statuses', { status: 'after revocation' }],
      ['GET', `/api/v1/statuses/${posted.json.id}`, undefined],
    ] as const) {
      const refused = await h.request(method, url, payload === undefined ? { token } : { token, payload });
      t.equal(refused.statusCode, 401, `${method} ${url}: 401`);
      t.same(refused.json, INVALID, `${method} ${url}: the spec's text`);
    }
    t.same((await revoke({ token, ...creds })).json, {}, 'revoking again is fine');
  });

  t.test('with HTTP Basic, and an app token', async (t) => {
    const appToken = (await tokenRequest(h, { grant_type: 'client_credentials', ...creds })).json.access_token as string;
    const res = await revoke({ token: appToken, token_type_hint: 'access_token' }, { authorization: basic(app.client_id, app.client_secret) });
    t.equal(res.statusCode, 200);
    t.equal((await h.request('GET', '/api/v1/apps/verify_credentials', { token: appToken })).statusCode, 401);
  });

  t.test('unknown or blank tokens: nothing to do, 200 {}', async (t) => {
    for (const payload of [{ token: 'no-such-token' }, { token: '' }, {}]) {
      const res = await revoke({ ...payload, ...creds });
      t.equal(res.statusCode, 200);
      t.same(res.json, {});
    }
  });

  t.test("another app's token, or no client authentication: 403", async (t) => {
    const token = await userToken();
    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      ["another app's token", { token, client_id: other.client_id, client_secret: other.client_secret }, {}],
      ['no client credentials', { token }, {}],
      ['a wrong secret', { token, client_id: app.client_id, client_secret: 'wrong' }, {}],
      ['a wrong Basic secret', { token }, { authorization: basic(app.client_id, 'wrong') }],
      ['no credentials, unknown token', { token: 'no-such-token' }, {}],
    ];
    for (const [label, payload, headers] of cases) {
      const res = await revoke(payload, headers);
      t.equal(res.statusCode, 403, `${label}: 403`);
      t.same(res.json, REFUSED, `${label}: the text`);
    }
    t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token })).statusCode, 200, 'the token still works');
  });
});

t.test('presenting tokens and their scopes', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const reader = await h.user('reader', { scopes: ['read'] });
  const writer = await h.user('writer', { scopes: ['write'] });
  const profile = await h.user('profiled', { scopes: ['profile'] });
  const accounts = await h.user('accounts', { scopes: ['read:accounts'] });

  const header = await h.request('GET', '/api/v1/accounts/verify_credentials', { headers: { authorization: `Bearer ${reader.token}` } });
  t.equal(header.statusCode, 200, 'Authorization: Bearer');
  const query = await h.request('GET', `/api/v1/accounts/verify_credentials?access_token=${reader.token}`);
  t.equal(query.statusCode, 200, 'the access_token query parameter');
  t.equal(query.json.username, 'reader');
  const lower = await h.request('GET', '/api/v1/accounts/verify_credentials', { headers: { authorization: `bearer ${reader.token}` } });
  t.equal(lower.statusCode, 200, 'the scheme is case-insensitive');

  const outside = { error: 'This action is outside the authorized scopes' };
  const publish = await h.request('POST', '/api/v1/statuses', { token: reader.token, payload: { status: 'hi' } });
  t.equal(publish.statusCode, 403, 'a read token cannot publish');
  t.same(publish.json, outside);
  const verify = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: writer.token });
  t.equal(verify.statusCode, 403, 'a write token cannot read the account');
  t.same(verify.json, outside);
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: profile.token })).statusCode, 200, 'profile is enough for verify_credentials');
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: accounts.token })).statusCode, 200, 'so is read:accounts');
  const none = await h.request('GET', '/api/v1/accounts/verify_credentials');
  t.equal(none.statusCode, 401);
  t.same(none.json, INVALID);
});
