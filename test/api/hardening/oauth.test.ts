// OAuth leftovers of the hardening issue: a replayed authorization code revokes what it
// issued (RFC 6749 §4.1.2), live streams included; pages read before signing in store no
// session; expired sessions are pruned by a periodic job; the sign-in form's CSRF check holds
// without a stored row.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { authorizationCode, authorizeQuery, Browser, CALLBACK, forms, registerApp, tokenRequest } from '../../helpers/oauth.ts';
import { openSse } from '../../helpers/sse.ts';

const DAY = 24 * 3600_000;

t.test('a replayed authorization code: refused, and the token issued from it revoked, its streams closed', async (t) => {
  const h = await harness({ listen: true });
  t.teardown(() => h.close());
  await h.user('alice');
  const app = await registerApp(h);
  const code = await authorizationCode(h, app, 'alice@example.com');
  const exchange = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: app.client_id, client_secret: app.client_secret };
  const issued = await tokenRequest(h, exchange);
  t.equal(issued.statusCode, 200);
  const token = issued.json.access_token as string;
  const other = await tokenRequest(h, { ...exchange, code: await authorizationCode(h, app, 'alice@example.com') });
  t.equal(other.statusCode, 200, 'a token from another code');
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token })).statusCode, 200);
  const stream = await openSse(`${h.core.config.baseUrl}/api/v1/streaming/user?access_token=${token}`);
  t.equal(stream.status, 200);

  const replay = await tokenRequest(h, exchange);
  t.same([replay.statusCode, replay.json.error], [400, 'invalid_grant'], 'the replay is refused');
  await stream.ended;
  t.pass('the stream opened with the token was ended');
  const after = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.same([after.statusCode, after.json], [401, { error: 'The access token is invalid' }], 'the token issued from the code is revoked');
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: other.json.access_token })).statusCode, 200, 'a token of another code is not');
  const unknown = await tokenRequest(h, { ...exchange, code: 'never-issued-code-xxxxxxxxxxxxxxxxxxxx' });
  t.same([unknown.statusCode, unknown.json.error], [400, 'invalid_grant'], 'an unknown code is just refused');
});

t.test('no session row for pages read before signing in; one per sign-in; expired ones pruned', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('bob');
  const app = await registerApp(h);
  const sessions = () => h.core.storage.oauth.pruneSessions(Number.MAX_SAFE_INTEGER);
  // pruneSessions at the end of time counts (and removes) every row: checked on a copy of the
  // flow, so the flow below starts from nothing.
  for (let i = 0; i < 50; i++) {
    await h.request('GET', `/oauth/authorize?${authorizeQuery(app)}`);
    await h.request('GET', '/auth/sign_in');
  }
  t.equal(await sessions(), 0, '100 anonymous page views wrote no session');

  const browser = new Browser(h);
  const page = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  const form = forms(page.body).find((f) => f.action === '/auth/sign_in');
  if (form === undefined) throw new Error('no sign-in form');
  const signedIn = await browser.post('/auth/sign_in', { ...form.fields, 'user[email]': 'bob@example.com', 'user[password]': 'correct horse battery' });
  t.equal(signedIn.statusCode, 303, 'signed in with the double-submit token');
  t.match(signedIn.setCookies.join('\n'), /_rookery_session=/, 'and given a session');
  const consent = await browser.get(String(signedIn.location));
  t.match(consent.body, /Authorization required/, 'the session works');

  const job = h.core.hooks.jobs.find((j) => j.name === 'oauth.prune-sessions');
  if (job === undefined) throw new Error('no oauth.prune-sessions job');
  t.equal(job.intervalMs, 3600_000, 'hourly, wherever jobs run');
  await job.run();
  t.match((await browser.get(`/oauth/authorize?${authorizeQuery(app)}`)).body, /Authorization required/, 'a live session is kept');
  h.clock.advance(15 * DAY);
  await job.run();
  t.equal(await sessions(), 0, 'the expired session was deleted by the job');
  t.match((await browser.get(`/oauth/authorize?${authorizeQuery(app)}`)).body, /Sign in/, 'and its browser signs in again');
});

t.test('the sign-in form without a session: a token made for this browser, recently, or nothing', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  await h.user('carol');
  const app = await registerApp(h);
  const victim = new Browser(h);
  const attacker = new Browser(h);
  const victimForm = forms((await victim.get(`/oauth/authorize?${authorizeQuery(app)}`)).body)[0]!;
  const attackerForm = forms((await attacker.get(`/oauth/authorize?${authorizeQuery(app)}`)).body)[0]!;
  const login = { 'user[email]': 'carol@example.com', 'user[password]': 'correct horse battery' };
  const cases: [string, Browser, Record<string, string>][] = [
    ["another browser's token", victim, { ...victimForm.fields, authenticity_token: attackerForm.fields['authenticity_token'] ?? '' }],
    ['a token with its signature altered', victim, { ...victimForm.fields, authenticity_token: `${victimForm.fields['authenticity_token']?.slice(0, -2)}AA` }],
    ['a token without its nonce cookie', new Browser(h), victimForm.fields],
  ];
  for (const [label, browser, fields] of cases) {
    const res = await browser.post('/auth/sign_in', { ...fields, ...login });
    t.equal(res.statusCode, 403, label);
    t.notMatch(res.setCookies.join('\n'), /_rookery_session=/, `${label}: no session`);
  }
  h.clock.advance(2 * DAY);
  const stale = await victim.post('/auth/sign_in', { ...victimForm.fields, ...login });
  t.equal(stale.statusCode, 403, 'a form older than a day');
  const fresh = forms((await victim.get(`/oauth/authorize?${authorizeQuery(app)}`)).body)[0]!;
  t.equal((await victim.post('/auth/sign_in', { ...fresh.fields, ...login })).statusCode, 303, 'a fresh one works');
});
