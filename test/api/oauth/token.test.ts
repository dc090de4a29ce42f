// POST /oauth/token over HTTP: every grant, PKCE, client authentication and every error with
// its exact status and text (RFC 6749 §5.2 with Mastodon's descriptions; docs/behaviour.md, "OAuth").

import t from 'tap';
import { harness, type Harness } from '../../helpers/harness.ts';
import { authorizationCode, basic, CALLBACK, OOB, PASSWORD, pkce, registerApp, tokenRequest, type RegisteredApp } from '../../helpers/oauth.ts';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
};
const INVALID_SCOPE = { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' };
const UNSUPPORTED = { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' };
const missing = (name: string) => ({ error: 'invalid_request', error_description: `Missing required parameter: ${name}.` });

const creds = (app: RegisteredApp) => ({ client_id: app.client_id, client_secret: app.client_secret });

async function whoAmI(h: Harness, token: string): Promise<string> {
  const res = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  return res.statusCode === 200 ? res.json.username : `${res.statusCode} ${res.json?.error}`;
}

t.test('authorization_code', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h);
  const other = await registerApp(h, { client_name: 'Other' });

  t.test('with PKCE: the token carries the code scopes', async (t) => {
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(h, app, 'alice', { scope: 'read write', code_challenge: challenge, code_challenge_method: 'S256' });
    const before = Math.floor(Date.now() / 1000);
    const res = await tokenRequest(h, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier, scope: 'read' }, { authorization: basic(app.client_id, app.client_secret) });
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
    t.match(res.json, { access_token: /^[\w-]{43}$/, token_type: 'Bearer', scope: 'read write' }, 'the code scopes; a scope parameter is ignored');
    t.ok(res.json.created_at >= before && res.json.created_at <= before + 5, 'created_at in epoch seconds');
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers['pragma'], 'no-cache');
    t.equal(await whoAmI(h, res.json.access_token), 'alice');
  });

  t.test('without PKCE, client credentials in the body, form encoded', async (t) => {
    const code = await authorizationCode(h, app, 'alice');
    const res = await h.request('POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...creds(app) }).toString(),
    });
    t.equal(res.statusCode, 200);
    t.equal(res.json.scope, 'read', 'scope defaults to read');
  });

  t.test('out of band', async (t) => {
    const oob = await registerApp(h, { redirect_uris: OOB });
    const code = await authorizationCode(h, oob, 'alice');
    const res = await tokenRequest(h, { grant_type: 'authorization_code', code, redirect_uri: OOB, ...creds(oob) });
    t.equal(res.statusCode, 200);
  });

  t.test('PKCE failures', async (t) => {
    const { verifier, challenge } = pkce();
    const pkceCode = () => authorizationCode(h, app, 'alice', { code_challenge: challenge, code_challenge_method: 'S256' });
    const exchange = (code: string, extra: Record<string, string> = {}) => tokenRequest(h, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...creds(app), ...extra });

    const wrong = await pkceCode();
    const res = await exchange(wrong, { code_verifier: pkce().verifier });
    t.equal(res.statusCode, 400, 'wrong verifier');
    t.same(res.json, INVALID_GRANT);
    t.equal(res.headers['cache-control'], 'no-store', 'errors are not cached either');
    t.same((await exchange(wrong, { code_verifier: verifier })).json, INVALID_GRANT, 'the failed attempt used the code up');

    const noVerifier = await exchange(await pkceCode());
    t.equal(noVerifier.statusCode, 400, 'missing verifier');
    t.same(noVerifier.json, missing('code_verifier'));

    const plainCode = await authorizationCode(h, app, 'alice');
    t.same((await exchange(plainCode, { code_verifier: verifier })).json, INVALID_GRANT, 'a verifier for a code issued without a challenge');

    const challengeAsVerifier = await exchange(await pkceCode(), { code_verifier: challenge });
    t.same(challengeAsVerifier.json, INVALID_GRANT, 'the challenge itself is no verifier (plain is not accepted)');
  });

  t.test('code failures', async (t) => {
    const exchange = (extra: Record<string, unknown>, client = app) => tokenRequest(h, { grant_type: 'authorization_code', redirect_uri: CALLBACK, ...creds(client), ...extra });

    const code = await authorizationCode(h, app, 'alice');
    t.equal((await exchange({ code })).statusCode, 200);
    const reused = await exchange({ code });
    t.equal(reused.statusCode, 400, 'reused');
    t.same(reused.json, INVALID_GRANT);

    const late = await authorizationCode(h, app, 'alice');
    const inTime = await authorizationCode(h, app, 'alice');
    h.clock.advance(599_000);
    t.equal((await exchange({ code: inTime })).statusCode, 200, 'still valid after 9 min 59 s');
    h.clock.advance(1_000);
    const expired = await exchange({ code: late });
    t.equal(expired.statusCode, 400, 'expired after 10 minutes');
    t.same(expired.json, INVALID_GRANT);
    h.clock.advance(-600_000);

    const stolen = await authorizationCode(h, app, 'alice');
    t.same((await exchange({ code: stolen }, other)).json, INVALID_GRANT, "another client's code");
    t.same((await exchange({ code: stolen })).json, INVALID_GRANT, 'and it is gone for its own client too');

    const mismatch = await authorizationCode(h, app, 'alice');
    t.same((await exchange({ code: mismatch, redirect_uri: 'https://app.example/other' })).json, INVALID_GRANT, 'another redirect_uri');

    t.same((await exchange({ code: 'x'.repeat(43) })).json, INVALID_GRANT, 'unknown code');
    const noCode = await exchange({});
    t.equal(noCode.statusCode, 400);
    t.same(noCode.json, missing('code'));
    const noRedirect = await tokenRequest(h, { grant_type: 'authorization_code', code: await authorizationCode(h, app, 'alice'), ...creds(app) });
    t.same(noRedirect.json, missing('redirect_uri'));
  });

  t.test('a disabled user gets no token from a code', async (t) => {
    const carol = await h.user('carol');
    const code = await authorizationCode(h, app, 'carol');
    await h.core.storage.accounts.updateUser(carol.account.id, { disabled: true });
    t.same((await tokenRequest(h, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...creds(app) })).json, INVALID_GRANT);
  });
});

t.test('password grant (kept: docs/behaviour.md, "Where the founding spec wins")', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h, { scopes: 'read write follow' });
  const grant = (extra: Record<string, unknown>) => tokenRequest(h, { grant_type: 'password', ...creds(app), ...extra });

  const byEmail = await grant({ username: 'alice@example.com', password: PASSWORD });
  t.equal(byEmail.statusCode, 200, 'username = e-mail address');
  t.equal(byEmail.json.scope, 'read', 'scope defaults to read');
  t.equal(await whoAmI(h, byEmail.json.access_token), 'alice');

  const byName = await grant({ username: 'alice', password: PASSWORD, scope: 'read write' });
  t.equal(byName.statusCode, 200, 'username = username');
  t.equal(byName.json.scope, 'read write');

  for (const [label, extra] of [
    ['wrong password', { username: 'alice', password: 'nope nope nope' }],
    ['unknown user', { username: 'zed', password: PASSWORD }],
    ['no credentials', {}],
  ] as const) {
    const res = await grant(extra);
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.same(res.json, INVALID_GRANT, `${label}: invalid_grant`);
  }
  t.same((await grant({ username: 'alice', password: PASSWORD, scope: 'read admin:read' })).json, INVALID_SCOPE, 'scope not registered');
  t.same((await grant({ username: 'alice', password: PASSWORD, scope: 'read:statuses' })).json, INVALID_SCOPE, 'the subset rule is literal');
  const bad = await tokenRequest(h, { grant_type: 'password', client_id: app.client_id, client_secret: 'wrong', username: 'alice', password: PASSWORD });
  t.equal(bad.statusCode, 401, 'the client is checked first');
  t.same(bad.json, INVALID_CLIENT);
});

t.test('client_credentials and the literal subset rule', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const readOnly = await registerApp(h, { scopes: 'read' });
  const both = await registerApp(h, { scopes: 'read write' });
  const writeOnly = await registerApp(h, { scopes: 'write' });
  const grant = (app: RegisteredApp, extra: Record<string, unknown> = {}) => tokenRequest(h, { grant_type: 'client_credentials', ...creds(app), ...extra });

  const res = await grant(readOnly);
  t.equal(res.statusCode, 200);
  t.equal(res.json.scope, 'read', 'default read');
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal((await h.request('GET', '/api/v1/apps/verify_credentials', { token: res.json.access_token })).statusCode, 200);
  const asUser = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: res.json.access_token });
  t.equal(asUser.statusCode, 422, 'an app token acts for nobody');
  t.same(asUser.json, { error: 'This method requires an authenticated user' });

  t.equal((await grant(both, { scope: 'read write' })).json.scope, 'read write');
  t.equal((await grant(both, { scope: 'write' })).json.scope, 'write');
  for (const [label, app, scope] of [
    ["app registered 'read' asking read:statuses", readOnly, 'read:statuses'],
    ["app registered 'read' asking write", readOnly, 'write'],
    ['unknown scope', both, 'read nonsense'],
    ["app registered 'write', default read", writeOnly, undefined],
  ] as const) {
    const refused = await grant(app, scope === undefined ? {} : { scope });
    t.equal(refused.statusCode, 400, `${label}: 400`);
    t.same(refused.json, INVALID_SCOPE, `${label}: invalid_scope`);
  }
});

t.test('client authentication', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const app = await registerApp(h);
  const other = await registerApp(h);
  const cc = { grant_type: 'client_credentials' };

  t.equal((await tokenRequest(h, cc, { authorization: basic(app.client_id, app.client_secret) })).statusCode, 200, 'HTTP Basic');
  t.equal((await tokenRequest(h, { ...cc, ...creds(app) })).statusCode, 200, 'in the body');
  const percent = (s: string) => `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}`;
  const encoded = `Basic ${Buffer.from(`${percent(app.client_id)}:${percent(app.client_secret)}`).toString('base64')}`;
  t.equal((await tokenRequest(h, cc, { authorization: encoded })).statusCode, 200, 'Basic values are form-url-decoded (RFC 6749 §2.3.1)');
  t.equal((await tokenRequest(h, { ...cc, client_id: app.client_id, client_secret: 'wrong' }, { authorization: basic(app.client_id, app.client_secret) })).statusCode, 200, 'Basic wins over the body');

  const failures: [string, Record<string, unknown>, Record<string, string>][] = [
    ['wrong secret in Basic', cc, { authorization: basic(app.client_id, 'wrong') }],
    ['wrong secret in the body', { ...cc, client_id: app.client_id, client_secret: 'wrong' }, {}],
    ["another app's secret", { ...cc, client_id: app.client_id, client_secret: other.client_secret }, {}],
    ['unknown client', { ...cc, client_id: 'nobody', client_secret: app.client_secret }, {}],
    ['no secret', { ...cc, client_id: app.client_id }, {}],
    ['no credentials at all', cc, {}],
    ['malformed Basic', { ...cc, ...creds(app) }, { authorization: 'Basic %%%' }],
    ['Basic without a colon', cc, { authorization: `Basic ${Buffer.from(app.client_id).toString('base64')}` }],
  ];
  for (const [label, payload, headers] of failures) {
    const res = await tokenRequest(h, payload, headers);
    t.equal(res.statusCode, 401, `${label}: 401`);
    t.same(res.json, INVALID_CLIENT, `${label}: invalid_client`);
  }
  const res = await tokenRequest(h, cc);
  t.match(res.headers['www-authenticate'], /^Bearer realm="Rookery", error="invalid_client"/, 'a challenge that pops up no browser dialog');
});

t.test('grant_type', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const app = await registerApp(h);
  const none = await tokenRequest(h, creds(app));
  t.equal(none.statusCode, 400);
  t.same(none.json, missing('grant_type'));
  for (const type of ['implicit', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']) {
    const res = await tokenRequest(h, { grant_type: type, refresh_token: 'x', ...creds(app) });
    t.equal(res.statusCode, 400, `${type}: 400`);
    t.same(res.json, UNSUPPORTED, `${type}: unsupported (refresh tokens are off by default)`);
  }
  const json = await h.request('POST', '/oauth/token', {
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ grant_type: 'client_credentials', ...creds(app) }),
  });
  t.equal(json.statusCode, 200, 'a JSON body');
});

t.test('refresh tokens, when configured', async (t) => {
  const h = await harness({ config: { refreshTokens: true } });
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h);
  const other = await registerApp(h);
  const first = await tokenRequest(h, { grant_type: 'authorization_code', code: await authorizationCode(h, app, 'alice', { scope: 'read write' }), redirect_uri: CALLBACK, ...creds(app) });
  t.equal(first.statusCode, 200);
  t.match(first.json.refresh_token, /^[\w-]{43}$/, 'issued with user tokens');
  t.notOk('refresh_token' in (await tokenRequest(h, { grant_type: 'client_credentials', ...creds(app) })).json, 'never with app tokens');

  const refresh = (refreshToken: string, extra: Record<string, unknown> = {}, client = app) => tokenRequest(h, { grant_type: 'refresh_token', refresh_token: refreshToken, ...creds(client), ...extra });
  t.same((await refresh(first.json.refresh_token, {}, other)).json, INVALID_GRANT, "another client's refresh token (and it is used up)");

  const second = await tokenRequest(h, { grant_type: 'password', username: 'alice', password: PASSWORD, scope: 'read write', ...creds(app) });
  t.same((await refresh(second.json.refresh_token, { scope: 'follow' })).json, INVALID_SCOPE, 'a refresh may only narrow the scopes');
  const third = await tokenRequest(h, { grant_type: 'password', username: 'alice', password: PASSWORD, scope: 'read write', ...creds(app) });
  const renewed = await refresh(third.json.refresh_token, { scope: 'read' });
  t.equal(renewed.statusCode, 200);
  t.equal(renewed.json.scope, 'read');
  t.not(renewed.json.refresh_token, third.json.refresh_token, 'rotated');
  t.equal(await whoAmI(h, renewed.json.access_token), 'alice');
  t.equal(await whoAmI(h, third.json.access_token), '401 The access token is invalid', 'the old access token ends');
  t.same((await refresh(third.json.refresh_token)).json, INVALID_GRANT, 'the old refresh token ends');
  t.same((await refresh('')).json, missing('refresh_token'));

  const revoked = await h.request('POST', '/oauth/revoke', { payload: { token: renewed.json.refresh_token, ...creds(app) } });
  t.same(revoked.json, {});
  t.equal(await whoAmI(h, renewed.json.access_token), '401 The access token is invalid', 'revoking the refresh token ends its access token');

  const metadata = await h.request('GET', '/.well-known/oauth-authorization-server');
  t.ok(metadata.json.grant_types_supported.includes('refresh_token'));
});
