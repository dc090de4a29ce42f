// The front page and the web sign-up (plugins/front) over HTTP: what the page says, the form's
// CSRF and same-origin checks, escaping, the API's own validations and texts, and the
// registration settings (closed, approval, e-mail confirmation) applied to web sign-ups.

import t from 'tap';
import { frontPlugin } from '../../plugins/front/index.ts';
import { harness, type Harness } from '../helpers/harness.ts';

const RULES = ['Be kind', 'No <b>spam</b> & no ads'];

interface Browser {
  cookie: string;
  csrf: string;
}

/** GET the sign-up form as a browser would: its session cookie and CSRF token. */
async function openForm(h: Harness): Promise<Browser> {
  const res = await h.request('GET', '/auth/sign_up');
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  const setCookie = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = (setCookie[0] ?? '').split(';')[0] ?? '';
  const csrf = /name="authenticity_token" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { cookie, csrf };
}

function submit(h: Harness, browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams({ authenticity_token: browser.csrf, ...fields }).toString();
  return h.request('POST', '/auth/sign_up', {
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie, ...headers },
  });
}

const GOOD = { username: 'newbie', email: 'newbie@example.com', password: 'long enough', password_confirmation: 'long enough', agreement: '1' };

async function tokenOf(h: Harness, username: string, password: string): Promise<string> {
  const app = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'cli', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' } });
  const token = await h.request('POST', '/oauth/token', {
    payload: { grant_type: 'password', username, password, client_id: app.json.client_id, client_secret: app.json.client_secret, scope: 'read' },
  });
  if (token.statusCode !== 200) throw new Error(token.body);
  return token.json.access_token;
}

t.test('the front page: what this server is, its rules, contact, sign-in and sign-up links', async (t) => {
  const h = await harness({ plugins: [frontPlugin()], config: { title: 'Rook & Co', description: 'A <small> place', contactEmail: 'staff@rookery.test', rules: RULES } });
  t.teardown(() => h.close());
  const res = await h.request('GET', '/');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/html/);
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.match(res.headers['content-security-policy'], /default-src 'none'/, 'no script can run');
  t.notMatch(res.body, /<script/i);
  t.match(res.body, '<html lang="en">');
  t.match(res.body, '<title>Rook &amp; Co</title>');
  t.match(res.body, '<h1>Rook &amp; Co</h1>');
  t.match(res.body, '<p>A &lt;small&gt; place</p>', 'the description, escaped');
  t.match(res.body, 'enter <strong>rookery.test</strong>');
  t.match(res.body, '<ol id="rules">\n<li>Be kind</li>\n<li>No &lt;b&gt;spam&lt;/b&gt; &amp; no ads</li>\n</ol>', 'the rules, in order, escaped');
  t.match(res.body, '<a href="mailto:staff@rookery.test">staff@rookery.test</a>');
  t.match(res.body, '<a href="/auth/sign_in">Sign in</a>');
  t.match(res.body, '<a href="/auth/sign_up">Create an account</a>');
  t.equal(res.headers['access-control-allow-origin'], undefined, 'not a cross-origin resource');

  const v2 = await h.request('GET', '/api/v2/instance');
  t.strictSame(v2.json.rules, [{ id: '1', text: 'Be kind', hint: '' }, { id: '2', text: 'No <b>spam</b> & no ads', hint: '' }], 'the same rules in the API');
  t.strictSame((await h.request('GET', '/api/v1/instance/rules')).json, v2.json.rules);
  t.strictSame((await h.request('GET', '/api/v1/instance')).json.rules, v2.json.rules);
});

t.test('web sign-up: the account is created as the API creates it, and can sign in', async (t) => {
  const h = await harness({ plugins: [frontPlugin()], config: { rules: RULES } });
  t.teardown(() => h.close());
  const browser = await openForm(h);
  t.match(browser.cookie, /^_rookery_csrf=/, 'a nonce cookie and no session: showing the form stores nothing');
  t.match(browser.csrf, /^\d+\.[\w-]{20,}$/, 'a signed double-submit token');
  const again = await h.request('GET', '/auth/sign_up', { headers: { cookie: browser.cookie } });
  t.equal(again.headers['set-cookie'], undefined, 'the nonce the browser holds is kept');
  const form = again.body;
  for (const label of ['Username', 'E-mail address', 'Password', 'Confirm password', 'I agree to the rules']) t.match(form, `${label}</label>`);
  t.match(form, '<li>Be kind</li>');
  t.notMatch(form, 'name="reason"', 'no reason asked without approval mode');

  const done = await submit(h, browser, GOOD);
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Welcome, <strong>@newbie@rookery.test</strong>. Your account is ready: sign in');
  t.equal(done.headers['set-cookie'], undefined, 'not signed in by signing up');
  const token = await tokenOf(h, 'newbie@example.com', 'long enough');
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(me.statusCode, 200);
  t.equal(me.json.username, 'newbie');
});

t.test('the API validations and texts, all at once, with what was typed kept and escaped', async (t) => {
  const h = await harness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  await h.user('taken');
  const browser = await openForm(h);
  const bad = await submit(h, browser, { username: 'taken', email: 'not an <email>', password: 'short', password_confirmation: 'short' });
  t.equal(bad.statusCode, 422);
  t.match(bad.body, '<p class="error" role="alert">Validation failed: Username is already taken, Email is invalid, Password is too short (minimum is 8 characters), Agreement must be accepted</p>', 'the API text as the summary');
  t.match(bad.body, '<p class="error" id="signup_username_error">Username is already taken</p>');
  t.match(bad.body, '<p class="error" id="signup_email_error">E-mail address is invalid</p>');
  t.match(bad.body, '<p class="error" id="signup_password_error">Password is too short (minimum is 8 characters)</p>');
  t.match(bad.body, '<p class="error" id="signup_agreement_error">Agreement must be accepted</p>');
  t.match(bad.body, 'aria-describedby="signup_email_error" aria-invalid="true"', 'each error is tied to its field');
  t.match(bad.body, 'value="not an &lt;email&gt;"', 'what was typed comes back, escaped');
  t.notMatch(bad.body, 'value="short"', 'a password never comes back');

  const api = await h.app(['write']);
  const viaApi = await h.request('POST', '/api/v1/accounts', { token: api.token, payload: { username: 'taken', email: 'not an <email>', password: 'short' } });
  t.equal(viaApi.statusCode, 422);
  t.equal(viaApi.json.error, 'Validation failed: Username is already taken, Email is invalid, Password is too short (minimum is 8 characters), Agreement must be accepted', 'the API says the same');

  const mismatch = await submit(h, browser, { ...GOOD, password_confirmation: 'something else' });
  t.equal(mismatch.statusCode, 422);
  t.match(mismatch.body, "<p class=\"error\" id=\"signup_password_confirmation_error\">Password confirmation doesn&#39;t match Password</p>");
  const script = await submit(h, browser, { ...GOOD, username: '<script>alert(1)</script>' });
  t.equal(script.statusCode, 422);
  t.notMatch(script.body, '<script>');
  t.match(script.body, 'value="&lt;script&gt;alert(1)&lt;/script&gt;"');
  t.match(script.body, 'Username must contain only letters, numbers and underscores');
});

t.test('CSRF and same origin: a post without the session token, or from elsewhere, does nothing', async (t) => {
  const h = await harness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  const browser = await openForm(h);
  const attempts: [string, Browser, Record<string, string>][] = [
    ['no token', { cookie: browser.cookie, csrf: '' }, {}],
    ['a wrong token', { cookie: browser.cookie, csrf: 'x'.repeat(43) }, {}],
    ['no session', { cookie: '', csrf: browser.csrf }, {}],
    ['another origin', browser, { origin: 'https://evil.example' }],
    ['another site, says the browser', browser, { 'sec-fetch-site': 'cross-site', origin: 'null' }],
  ];
  for (const [label, who, headers] of attempts) {
    const res = await submit(h, who, { ...GOOD, username: 'sneaky' }, headers);
    t.equal(res.statusCode, 403, `${label}: 403`);
    t.match(res.body, 'nothing was done', label);
  }
  t.equal((await submit(h, browser, GOOD, { origin: 'https://rookery.test', 'sec-fetch-site': 'same-origin' })).statusCode, 200, 'our own origin is fine');
  t.equal((await submit(h, browser, { ...GOOD, username: 'second', email: 'second@example.com' }, { origin: 'null' })).statusCode, 200, 'so is the null origin our no-referrer pages make');
  const app = await h.app(['read']);
  const lookup = await h.request('GET', '/api/v1/accounts/lookup?acct=sneaky', { token: app.token });
  t.equal(lookup.statusCode, 404, 'no refused post created anything');
});

t.test('closed registrations: no sign-up link, the form and its post are refused', async (t) => {
  const h = await harness({ plugins: [frontPlugin()], config: { registrations: { open: false } } });
  t.teardown(() => h.close());
  const front = await h.request('GET', '/');
  t.match(front.body, 'Sign-ups are closed on this server.');
  t.notMatch(front.body, '/auth/sign_up');
  const form = await h.request('GET', '/auth/sign_up');
  t.equal(form.statusCode, 403);
  t.match(form.body, '<h1>Sign-ups are closed</h1>');
  const post = await h.request('POST', '/auth/sign_up', { payload: new URLSearchParams(GOOD).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(post.statusCode, 403);
});

t.test('approval mode: a reason is asked for, and the account waits for approval', async (t) => {
  const h = await harness({ plugins: [frontPlugin()], config: { registrations: { approvalRequired: true } } });
  t.teardown(() => h.close());
  t.match((await h.request('GET', '/')).body, 'New accounts wait for approval by the staff of this server.');
  const browser = await openForm(h);
  const blank = await submit(h, browser, GOOD);
  t.equal(blank.statusCode, 422);
  t.match(blank.body, "<p class=\"error\" id=\"signup_reason_error\">Reason can&#39;t be blank</p>");
  const done = await submit(h, browser, { ...GOOD, reason: 'I like birds' });
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Your sign-up is waiting for approval');
  const token = await tokenOf(h, 'newbie', 'long enough');
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(me.statusCode, 403);
  t.strictSame(me.json, { error: 'Your login is currently pending approval' });
});

t.test('e-mail confirmation: the account is unconfirmed until the staff confirm it', async (t) => {
  const h = await harness({ plugins: [frontPlugin()], config: { registrations: { confirmationRequired: true } } });
  t.teardown(() => h.close());
  const browser = await openForm(h);
  const done = await submit(h, browser, GOOD);
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Your e-mail address has to be confirmed');
  const token = await tokenOf(h, 'newbie', 'long enough');
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(me.statusCode, 403);
  t.strictSame(me.json, { error: 'Your login is missing a confirmed e-mail address' });
});

t.test('without the plugin / is not Rookery\'s', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  t.equal((await h.request('GET', '/')).statusCode, 404, "hapi's own 404: the host app's path");
  t.equal((await h.request('GET', '/auth/sign_up')).statusCode, 404);
});
