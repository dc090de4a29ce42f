// The browser side of the authorization code flow over HTTP: every error path of
// GET /oauth/authorize, sign-in with its CSRF and session rules, the consent page, approve,
// deny and the out-of-band code page (docs/behaviour.md, "OAuth").

import t, { type Test } from 'tap';
import { harness, type Harness } from '../../helpers/harness.ts';
import { authorizeQuery, Browser, CALLBACK, forms, OOB, PASSWORD, pkce, registerApp, type RegisteredApp } from '../../helpers/oauth.ts';

const INVALID_CLIENT = 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.';
const INVALID_REDIRECT = 'The redirect uri included is not valid.';

function redirectParams(location: string | undefined, base = CALLBACK): Record<string, string> {
  if (location === undefined || !location.startsWith(`${base}?`)) throw new Error(`not a redirect to ${base}: ${location}`);
  return Object.fromEntries(new URL(location).searchParams);
}

async function setup(t: Test, config = {}): Promise<{ h: Harness; app: RegisteredApp }> {
  const h = await harness({ config });
  t.teardown(() => h.close());
  await h.user('alice');
  await h.user('bob');
  return { h, app: await registerApp(h) };
}

t.test('errors shown on our own page: unknown client, bad redirect URI', async (t) => {
  const { h, app } = await setup(t);
  const browser = new Browser(h);
  const cases: [string, string, string][] = [
    ['unknown client_id', authorizeQuery({ ...app, client_id: 'nope' }), INVALID_CLIENT],
    ['missing client_id', authorizeQuery(app, { client_id: undefined }), 'Missing required parameter: client_id.'],
    ['another redirect URI', authorizeQuery(app, { redirect_uri: 'https://evil.example/callback' }), INVALID_REDIRECT],
    ['a trailing slash more', authorizeQuery(app, { redirect_uri: `${CALLBACK}/` }), INVALID_REDIRECT],
    ['different case', authorizeQuery(app, { redirect_uri: CALLBACK.toUpperCase() }), INVALID_REDIRECT],
    ['an added query', authorizeQuery(app, { redirect_uri: `${CALLBACK}?x=1` }), INVALID_REDIRECT],
    ['even with a bad response_type', authorizeQuery(app, { redirect_uri: 'https://evil.example/', response_type: 'token' }), INVALID_REDIRECT],
  ];
  for (const [label, query, description] of cases) {
    const res = await browser.get(`/oauth/authorize?${query}`);
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.equal(res.location, undefined, `${label}: no redirect`);
    t.match(String(res.headers['content-type']), /^text\/html/, `${label}: a page`);
    t.ok(res.body.includes(description.replace(/'/g, '&#39;')), `${label}: says why`);
  }

  const two = await registerApp(h, { redirect_uris: [CALLBACK, 'myapp://cb'] });
  const ambiguous = await browser.get(`/oauth/authorize?${authorizeQuery(two, { redirect_uri: undefined })}`);
  t.equal(ambiguous.statusCode, 400, 'no redirect_uri and several registered: which one?');
  const single = await browser.get(`/oauth/authorize?${authorizeQuery(app, { redirect_uri: undefined })}`);
  t.equal(single.statusCode, 200, 'no redirect_uri and one registered: that one');
  t.equal(forms(single.body)[0]?.fields['client_id'], app.client_id);
});

t.test('errors sent back to the redirect URI, with state', async (t) => {
  const { h, app } = await setup(t);
  const browser = new Browser(h);
  const challenge = pkce().challenge;
  const cases: [string, Record<string, string | undefined>, string, string][] = [
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type', 'The authorization server does not support this response type.'],
    ['no response_type', { response_type: undefined }, 'unsupported_response_type', 'The authorization server does not support this response type.'],
    ['unknown scope', { scope: 'read bogus' }, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.'],
    ['scope not registered', { scope: 'read admin:read' }, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.'],
    ['child of a registered scope (literal rule)', { scope: 'read:statuses' }, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.'],
    ['plain PKCE', { code_challenge: challenge, code_challenge_method: 'plain' }, 'invalid_request', 'The code_challenge_method must be S256.'],
    ['unknown PKCE method', { code_challenge: challenge, code_challenge_method: 'S512' }, 'invalid_request', 'The code_challenge_method must be S256.'],
    ['challenge without a method', { code_challenge: challenge }, 'invalid_request', 'The code_challenge_method must be S256.'],
    ['method without a challenge', { code_challenge_method: 'S256' }, 'invalid_request', 'Code challenge is required.'],
    ['another response mode', { response_mode: 'fragment' }, 'unsupported_response_mode', 'The authorization server does not support this response mode.'],
  ];
  for (const [label, extra, error, description] of cases) {
    const res = await browser.get(`/oauth/authorize?${authorizeQuery(app, { state: 'st 8/=&?', ...extra })}`);
    t.equal(res.statusCode, 302, `${label}: 302`);
    t.same(redirectParams(res.location), { error, error_description: description, state: 'st 8/=&?' }, `${label}: error, description, state`);
  }
  const stateless = await browser.get(`/oauth/authorize?${authorizeQuery(app, { response_type: 'token' })}`);
  t.notOk('state' in redirectParams(stateless.location), 'no state sent, none returned');

  const withQuery = await registerApp(h, { redirect_uris: 'https://app.example/cb?tenant=7' });
  const kept = await browser.get(`/oauth/authorize?${authorizeQuery(withQuery, { scope: 'bogus', state: 's' })}`);
  t.equal(
    kept.location,
    'https://app.example/cb?tenant=7&error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.&state=s',
    'the registered query is kept',
  );

  const oob = await registerApp(h, { redirect_uris: OOB });
  const page = await browser.get(`/oauth/authorize?${authorizeQuery(oob, { scope: 'bogus' })}`);
  t.equal(page.statusCode, 400, 'out-of-band: the error is shown, not redirected');
  t.equal(page.location, undefined);
  t.ok(page.body.includes('invalid_scope') && page.body.includes('The requested scope is invalid, unknown, or malformed.'));
});

t.test('the sign-in page and its session cookie', async (t) => {
  const { h, app } = await setup(t);
  const browser = new Browser(h);
  const res = await browser.get(`/oauth/authorize?${authorizeQuery(app, { scope: 'read write', state: 'abc', force_login: 'false' })}`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'private, no-store');
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.match(res.body, /<html lang="en">/);
  t.match(res.body, /<title>Sign in - Rookery<\/title>/);
  t.match(res.body, /<main>/);
  t.match(res.body, /<label for="user_email">E-mail address or username<\/label>\s*<input id="user_email" name="user\[email\]"/);
  t.match(res.body, /<label for="user_password">Password<\/label>\s*<input id="user_password" name="user\[password\]" type="password"/);
  t.match(res.body, /<button type="submit">Log in<\/button>/);
  t.notMatch(res.body, /<script/i, 'no JavaScript needed');
  const form = forms(res.body)[0];
  t.equal(form?.action, '/auth/sign_in');
  t.match(form?.fields, { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read write', state: 'abc', authenticity_token: String });
  t.notOk(form && 'force_login' in form.fields, 'force_login is not carried');
  // Nobody is signed in: no session is stored, and the form's CSRF token is a signed
  // double-submit token over a nonce in a cookie of its own (hardening issue).
  t.equal(res.setCookies.length, 1);
  t.match(res.setCookies[0], /^_rookery_csrf=[\w-]{22,}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
  t.equal(await h.core.storage.oauth.pruneSessions(Number.MAX_SAFE_INTEGER), 0, 'no session row was written');

  const again = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  t.equal(again.setCookies.length, 0, 'the nonce is kept');
  t.match(forms(again.body)[0]?.fields['authenticity_token'], /^\d+\.[\w-]{43}$/, 'a token for the same nonce');
  const signInPage = await browser.get('/auth/sign_in');
  t.same([signInPage.statusCode, signInPage.setCookies], [200, []], 'the sign-in page alone writes nothing either');
  t.equal(await h.core.storage.oauth.pruneSessions(Number.MAX_SAFE_INTEGER), 0);

  const plain = await harness({ config: { baseUrl: 'http://localhost:3000' } });
  t.teardown(() => plain.close());
  const plainApp = await registerApp(plain);
  const insecure = await new Browser(plain).get(`/oauth/authorize?${authorizeQuery(plainApp)}`);
  t.notMatch(insecure.setCookies[0], /Secure/, 'no Secure flag when served over http');
});

t.test('signing in', async (t) => {
  const { h, app } = await setup(t);
  const query = authorizeQuery(app, { state: 'xyz', force_login: 'true' });

  t.test('a post without the CSRF token is refused and does nothing', async (t) => {
    const browser = new Browser(h);
    const page = await browser.get(`/oauth/authorize?${query}`);
    const fields = forms(page.body)[0]!.fields;
    const cookie = browser.cookieHeader;
    for (const [label, token] of [['missing', undefined], ['wrong', 'x'.repeat(43)], ['blank', '']] as const) {
      const { authenticity_token: _, ...rest } = fields;
      const form = token === undefined ? rest : { ...rest, authenticity_token: token };
      const res = await browser.post('/auth/sign_in', { ...form, username: 'alice', password: PASSWORD });
      t.equal(res.statusCode, 403, `${label} token: 403`);
      t.match(res.body, /Request refused/);
      t.equal(res.setCookies.length, 0, `${label} token: no new session`);
      t.equal(res.location, undefined);
    }
    const stranger = new Browser(h);
    const res = await stranger.post('/auth/sign_in', { ...fields, username: 'alice', password: PASSWORD });
    t.equal(res.statusCode, 403, "a valid token without its session's cookie: 403");
    t.equal(browser.cookieHeader, cookie);
  });

  t.test('wrong credentials show the form again', async (t) => {
    const browser = new Browser(h);
    const fields = forms((await browser.get(`/oauth/authorize?${query}`)).body)[0]!.fields;
    for (const [label, username, password] of [
      ['wrong password', 'alice', 'wrong password!'],
      ['unknown user', 'nobody', PASSWORD],
      ['unknown e-mail', 'nobody@example.com', PASSWORD],
      ['blank password', 'alice', ''],
    ]) {
      const res = await browser.post('/auth/sign_in', { ...fields, username: username!, password: password! });
      t.equal(res.statusCode, 401, `${label}: 401`);
      t.match(res.body, /<p class="error" role="alert">Invalid email or password.<\/p>/, `${label}: the message`);
      t.equal(res.setCookies.length, 0);
      t.match(forms(res.body)[0]?.fields, { client_id: app.client_id, state: 'xyz' }, `${label}: the parameters are kept`);
    }
    const carol = await h.user('carol');
    await h.core.storage.accounts.updateUser(carol.account.id, { disabled: true });
    const disabled = await browser.post('/auth/sign_in', { ...fields, username: 'carol', password: PASSWORD });
    t.equal(disabled.statusCode, 401, 'a disabled user cannot sign in');
    t.match(disabled.body, /Your login is currently disabled./);
    t.equal(disabled.setCookies.length, 0);
  });

  t.test('success rotates the session and returns to the authorize page', async (t) => {
    for (const login of ['alice', 'alice@example.com', 'ALICE@EXAMPLE.COM', '@alice', 'alice@rookery.test']) {
      const browser = new Browser(h);
      const page = await browser.get(`/oauth/authorize?${query}`);
      const before = browser.cookies.get('_rookery_session')!;
      const res = await browser.post('/auth/sign_in', { ...forms(page.body)[0]!.fields, username: login, password: PASSWORD });
      t.equal(res.statusCode, 303, `${login}: 303`);
      const back = new URL(res.location!, 'https://rookery.test');
      t.equal(back.pathname, '/oauth/authorize');
      t.same(Object.fromEntries(back.searchParams), { response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, state: 'xyz' }, 'same parameters, minus force_login');
      const after = browser.cookies.get('_rookery_session')!;
      t.not(after, before, `${login}: a new session id`);
      t.match(res.setCookies[0], /HttpOnly; SameSite=Lax; Secure$/);
      const fixed = new Browser(h);
      fixed.cookies.set('_rookery_session', before);
      const stale = await fixed.get(res.location!);
      t.match(stale.body, /<title>Sign in/, 'the pre-sign-in id signs nobody in');
      const consent = await browser.get(res.location!);
      t.match(consent.body, /<title>Authorization required/, `${login}: now the consent page`);
    }
  });
});

t.test("GET /auth/sign_in, and Mastodon's field names", async (t) => {
  const { h, app } = await setup(t);
  const browser = new Browser(h);
  const page = await browser.get(`/auth/sign_in?${authorizeQuery(app, { state: 's' })}`);
  t.equal(page.statusCode, 200);
  t.match(page.body, /continue to <strong>Test app<\/strong>/);
  const { authenticity_token, ...carried } = forms(page.body)[0]!.fields;
  t.match(carried, { client_id: app.client_id, state: 's' });
  const res = await browser.post('/auth/sign_in', { authenticity_token: authenticity_token!, ...carried, 'user[email]': 'alice@example.com', 'user[password]': PASSWORD });
  t.equal(res.statusCode, 303, 'user[email] and user[password] work too');

  const bare = new Browser(h);
  const form = await bare.get('/auth/sign_in');
  t.equal(form.statusCode, 200, 'without an authorization request');
  const done = await bare.post('/auth/sign_in', { ...forms(form.body)[0]!.fields, username: 'bob', password: PASSWORD });
  t.equal(done.statusCode, 200);
  t.match(done.body, /You are signed in/);
  t.equal(done.setCookies.length, 1);
});

t.test('the consent page', async (t) => {
  const { h } = await setup(t);
  const app = await registerApp(h, { client_name: '<script>alert("x")</script>', website: 'https://app.example/?a=1&b="2"', scopes: 'read write:statuses push' });
  const browser = new Browser(h);
  const res = await browser.consent(authorizeQuery(app, { scope: 'read write:statuses', state: '"><img src=x>' }), 'alice');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'private, no-store');
  t.notMatch(res.body, /<script/i, 'the app name cannot inject markup');
  t.ok(res.body.includes('<strong>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</strong> would like permission'), 'the name, escaped');
  t.ok(res.body.includes('href="https://app.example/?a=1&amp;b=&quot;2&quot;"'), 'the website, escaped');
  t.notOk(res.body.includes('"><img'), 'the state, escaped');
  t.match(res.body, /@alice@rookery\.test/, 'who is signed in');
  t.match(res.body, /<li><code>read<\/code>: read all your account&#39;s data<\/li>/);
  t.match(res.body, /<li><code>write:statuses<\/code>: publish posts<\/li>/);
  t.notMatch(res.body, /<code>push<\/code>/, 'only the requested scopes');
  t.match(res.body, /<button type="submit">Authorize<\/button>/);
  t.match(res.body, /<button type="submit" class="secondary">Deny<\/button>/);
  const [approve, deny] = forms(res.body);
  t.equal(approve?.action, '/oauth/authorize');
  t.equal(deny?.fields['_method'], 'delete');
  t.match(approve?.fields, { authenticity_token: String, client_id: app.client_id, scope: 'read write:statuses', state: '"><img src=x>' });

  const repeat = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  t.match(repeat.body, /<title>Authorization required/, 'asked again every time: nothing is approved silently');

  const forced = await browser.get(`/oauth/authorize?${authorizeQuery(app, { force_login: 'true' })}`);
  t.match(forced.body, /<title>Sign in/, 'force_login asks for the password even when signed in');
  const asBob = await browser.post('/auth/sign_in', { ...forms(forced.body)[0]!.fields, username: 'bob', password: PASSWORD });
  const bobConsent = await browser.get(asBob.location!);
  t.match(bobConsent.body, /@bob@rookery\.test/, 'and lets another person sign in');
});

t.test('approve, deny and the out-of-band code', async (t) => {
  const { h, app } = await setup(t);

  t.test('approve sends the code and the state back', async (t) => {
    const browser = new Browser(h);
    const consent = await browser.consent(authorizeQuery(app, { state: 'a b&c=d/é' }), 'alice');
    const res = await browser.decide(consent.body, 'approve');
    t.equal(res.statusCode, 302);
    const params = redirectParams(res.location);
    t.match(params.code, /^[\w-]{43}$/);
    t.equal(params.state, 'a b&c=d/é', 'state unchanged');
    t.same(Object.keys(params), ['code', 'state']);

    const noState = await browser.decide((await browser.consent(authorizeQuery(app), 'alice')).body, 'approve');
    t.same(Object.keys(redirectParams(noState.location)), ['code'], 'no state: none sent');

    const tenant = await registerApp(h, { redirect_uris: 'https://app.example/cb?tenant=7' });
    const kept = await browser.decide((await browser.consent(authorizeQuery(tenant, { state: 's' }), 'alice')).body, 'approve');
    t.match(kept.location, /^https:\/\/app\.example\/cb\?tenant=7&code=[\w-]{43}&state=s$/, 'the registered query is kept');

    const custom = await registerApp(h, { redirect_uris: 'com.example.app:/oauth' });
    const native = await browser.decide((await browser.consent(authorizeQuery(custom), 'alice')).body, 'approve');
    t.match(native.location, /^com\.example\.app:\/oauth\?code=[\w-]{43}$/, 'a custom scheme');
  });

  t.test('a decision without the CSRF token does nothing', async (t) => {
    const browser = new Browser(h);
    const consent = await browser.consent(authorizeQuery(app), 'alice');
    const { authenticity_token: _, ...fields } = forms(consent.body)[0]!.fields;
    const res = await browser.post('/oauth/authorize', fields);
    t.equal(res.statusCode, 403);
    t.equal(res.location, undefined, 'no code');
    const other = new Browser(h);
    const stolen = await other.post('/oauth/authorize', forms(consent.body)[0]!.fields);
    t.equal(stolen.statusCode, 403, 'the form of another session: refused');
  });

  t.test('deny', async (t) => {
    const browser = new Browser(h);
    const consent = await browser.consent(authorizeQuery(app, { state: 'keep me' }), 'alice');
    const res = await browser.decide(consent.body, 'deny');
    t.equal(res.statusCode, 302);
    t.same(redirectParams(res.location), { error: 'access_denied', error_description: 'The resource owner or authorization server denied the request.', state: 'keep me' });
    const fields = forms(consent.body)[0]!.fields;
    const viaDelete = await browser.send('DELETE', '/oauth/authorize', fields);
    t.equal(redirectParams(viaDelete.location).error, 'access_denied', 'DELETE denies too');
  });

  t.test('out of band: the code on a page', async (t) => {
    const oob = await registerApp(h, { redirect_uris: OOB });
    const browser = new Browser(h);
    const consent = await browser.consent(authorizeQuery(oob), 'alice');
    t.match(consent.body, /you will be shown a code/);
    const res = await browser.decide(consent.body, 'approve');
    t.equal(res.statusCode, 302);
    const target = new URL(res.location!, 'https://rookery.test');
    t.equal(target.pathname, '/oauth/authorize/native');
    const code = target.searchParams.get('code')!;
    t.match(code, /^[\w-]{43}$/);
    const shown = await browser.get(res.location!);
    t.equal(shown.statusCode, 200);
    t.equal(shown.headers['cache-control'], 'private, no-store');
    t.equal(shown.headers['referrer-policy'], 'no-referrer');
    t.ok(shown.body.includes(`<code id="authorization-code" class="code" aria-describedby="code-help">${code}</code>`), 'the code, ready to copy');

    const denied = await browser.decide((await browser.consent(authorizeQuery(oob), 'alice')).body, 'deny');
    t.equal(denied.statusCode, 400, 'out-of-band deny: a page');
    t.equal(denied.location, undefined);
    t.match(denied.body, /access_denied/);

    const junk = await browser.get('/oauth/authorize/native?code=%3Cb%3Ehello%3C%2Fb%3E');
    t.equal(junk.statusCode, 400, 'only code-shaped values are shown');
    t.notMatch(junk.body, /hello/);
  });

  t.test('an expired session signs out', async (t) => {
    const browser = new Browser(h);
    await browser.consent(authorizeQuery(app), 'alice');
    h.clock.advance(h.core.config.limits.webSessionSeconds * 1000 + 1);
    const res = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
    t.match(res.body, /<title>Sign in/);
    h.clock.advance(-(h.core.config.limits.webSessionSeconds * 1000 + 1));
  });
});
