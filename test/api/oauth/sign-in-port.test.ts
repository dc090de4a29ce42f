// A host app's own sign-in behind /oauth/authorize (the signIn option), walked through the
// authorization code flow, next to the built-in sign-in pages it replaces.

import t from 'tap';
import type { SignInPort } from '../../../core/mastodon/oauth/sign-in-port.ts';
import { harness } from '../../helpers/harness.ts';
import { authorizationCode, authorizeQuery, Browser, CALLBACK, forms, registerApp, tokenRequest } from '../../helpers/oauth.ts';

/** The host's session: a cookie naming the signed-in account (a real app would sign it). */
const hostSignIn: SignInPort = {
  currentAccountId: async (request) => request.cookies['host_user'] ?? null,
  signInUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
};

function nextOf(location: string | undefined): string {
  if (location === undefined || !location.startsWith('/login?next=')) throw new Error(`not the host's sign-in: ${location}`);
  return new URL(location, 'https://host.example').searchParams.get('next') ?? '';
}

t.test("the built-in sign-in pages, when the host brings none", async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h);
  const browser = new Browser(h);
  const page = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  t.equal(forms(page.body)[0]?.action, '/auth/sign_in', "Rookery's own form");
  t.type(await authorizationCode(h, app, 'alice'), 'string', 'and the flow completes');
});

t.test("the host's sign-in: redirect there, come back, consent, code, token", async (t) => {
  const h = await harness({ signIn: hostSignIn });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const app = await registerApp(h);
  const browser = new Browser(h);
  const query = authorizeQuery(app, { scope: 'read write', state: 'xyz' });

  const away = await browser.get(`/oauth/authorize?${query}`);
  t.equal(away.statusCode, 302, 'not signed in to the host: off to its sign-in');
  t.equal(nextOf(away.location), `/oauth/authorize?${query}`, 'with the way back');
  t.equal(away.headers['cache-control'], 'no-store');
  t.same(away.setCookies, [], 'the redirect writes nothing: no session for a browser Rookery does not sign in');

  browser.cookies.set('host_user', alice.account.id);
  const consent = await browser.get(nextOf(away.location));
  t.equal(consent.statusCode, 200);
  t.match(consent.body, /Authorization required/);
  t.match(consent.body, /@alice@rookery\.test/, 'the account the host named');
  const forced = await browser.get(`/oauth/authorize?${authorizeQuery(app, { state: 'xyz', force_login: 'true' })}`);
  t.equal(nextOf(forced.location), `/oauth/authorize?${authorizeQuery(app, { state: 'xyz' })}`, 'force_login sends to the host again, and is not carried back');

  const approve = forms(consent.body)[0]!;
  const { authenticity_token: _token, ...withoutCsrf } = approve.fields;
  t.equal((await browser.post(approve.action, withoutCsrf)).statusCode, 403, 'the decision still needs the CSRF token');
  const approved = await browser.post(approve.action, approve.fields);
  t.equal(approved.statusCode, 302);
  const back = new URL(approved.location ?? '');
  t.equal(`${back.origin}${back.pathname}`, CALLBACK);
  t.equal(back.searchParams.get('state'), 'xyz');
  const token = await tokenRequest(h, { grant_type: 'authorization_code', code: back.searchParams.get('code'), client_id: app.client_id, client_secret: app.client_secret, redirect_uri: CALLBACK });
  t.equal(token.statusCode, 200);
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: token.json.access_token });
  t.equal(me.json.username, 'alice', 'the token is for the account the host signed in');

  browser.cookies.delete('host_user');
  const signedOut = await browser.post(approve.action, approve.fields);
  t.same([signedOut.statusCode, nextOf(signedOut.location)], [303, `/oauth/authorize?${query}`], 'a decision after the host signed out goes to its sign-in');
});

t.test("with the host's sign-in, /auth/sign_in is the host's, and unusable accounts are refused", async (t) => {
  const h = await harness({ signIn: hostSignIn });
  t.teardown(() => h.close());
  const bob = await h.user('bob');
  await h.core.storage.accounts.updateUser(bob.account.id, { disabled: true });
  const app = await registerApp(h);
  for (const method of ['GET', 'POST']) {
    const res = await h.server.inject({ method, url: '/auth/sign_in' });
    t.same([res.statusCode, JSON.parse(res.payload)], [404, { statusCode: 404, error: 'Not Found', message: 'Not Found' }], `${method} /auth/sign_in falls to the host (hapi's own 404 here)`);
  }
  for (const [label, id] of [['a disabled account', bob.account.id], ['an unknown account', '123456789']] as const) {
    const browser = new Browser(h);
    browser.cookies.set('host_user', id);
    const res = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
    t.equal(res.statusCode, 403, label);
    t.match(res.body, /This account cannot authorize applications\./);
  }
});
