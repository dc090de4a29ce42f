// The front page and the web sign-up (plugins/front) over HTTP: what the page says, the form's
// CSRF and same-origin checks, escaping, the API's own validations and texts, and the
// registration settings (closed, approval, e-mail confirmation) applied to web sign-ups.

import t from 'tap';
import type { MailMessage } from '../../core/domain/ports/mailer.ts';
import { frontPlugin } from '../../plugins/front/index.ts';
import { harness, windowedHarness, type Harness } from '../helpers/harness.ts';
import { Browser as SigningInBrowser, forms, PASSWORD } from '../helpers/oauth.ts';

const RULES = ['Be kind', 'No <b>spam</b> & no ads'];

interface Browser {
  cookie: string;
  /** The token of the form the browser shows now. */
  csrf: string;
}

/** GET the sign-up form as a browser would: its session cookie and CSRF token. */
async function openForm(h: Harness): Promise<Browser> {
  const res = await h.request('GET', '/auth/sign_up');
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  const setCookie = ([] as string[]).concat((res.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = (setCookie[0] ?? '').split(';')[0] ?? '';
  const csrf = TOKEN_FIELD.exec(res.body)?.[1] ?? '';
  return { cookie, csrf };
}

const TOKEN_FIELD = /name="authenticity_token" value="([^"]+)"/;

/** Posts the form as the browser holds it; a form that comes back (a 422) carries a new token,
 * which the browser then holds, as a person correcting the form would send it. */
async function submit(h: Harness, browser: Browser, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams({ authenticity_token: browser.csrf, ...fields }).toString();
  const res = await h.request('POST', '/auth/sign_up', {
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie, ...headers },
  });
  const next = TOKEN_FIELD.exec(res.body)?.[1];
  if (next !== undefined) browser.csrf = next;
  return res;
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
  t.match(browser.csrf, /^\d+\.[\w-]{22}\.[\w-]{43}$/, 'a single-use token: when it was made, a random serial, a signature');
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
  // A form serves one sign-up: the next one is made from a form shown again.
  t.equal((await submit(h, await openForm(h), { ...GOOD, username: 'second', email: 'second@example.com' }, { origin: 'null' })).statusCode, 200, 'so is the null origin our no-referrer pages make');
  const app = await h.app(['read']);
  const lookup = await h.request('GET', '/api/v1/accounts/lookup?acct=sneaky', { token: app.token });
  t.equal(lookup.statusCode, 404, 'no refused post created anything');
});

async function exists(h: Harness, username: string): Promise<boolean> {
  const app = await h.app(['read']);
  return (await h.request('GET', `/api/v1/accounts/lookup?acct=${username}`, { token: app.token })).statusCode === 200;
}

const person = (name: string) => ({ ...GOOD, username: name, email: `${name}@example.com` });

t.test('a form serves one sign-up: sent again, or twice at once, it creates nothing more', async (t) => {
  const h = await harness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  const form = await openForm(h);
  t.equal((await submit(h, { ...form }, person('first'))).statusCode, 200);
  const again = await submit(h, { ...form }, person('replayed'));
  t.equal(again.statusCode, 403, 'the same token a second time');
  t.match(again.body, '<p role="alert">This form was already sent once, so nothing more was done.</p>');
  t.match(again.body, '<a href="/auth/sign_up">Open the sign-up form again</a>');
  t.notOk(await exists(h, 'replayed'), 'nothing was created');

  const raced = await openForm(h);
  const both = await Promise.all([submit(h, { ...raced }, person('racer_a')), submit(h, { ...raced }, person('racer_b'))]);
  t.same(both.map((res) => res.statusCode).sort(), [200, 403], 'one form sent twice at once: one sign-up');
  t.equal(Number(await exists(h, 'racer_a')) + Number(await exists(h, 'racer_b')), 1, 'one account');

  const corrected = await openForm(h);
  const spent = corrected.csrf;
  t.equal((await submit(h, corrected, { ...person('third'), password_confirmation: 'not the same' })).statusCode, 422);
  t.not(corrected.csrf, spent, 'the form comes back with a fresh token');
  t.equal((await submit(h, { ...corrected, csrf: spent }, person('third'))).statusCode, 403, 'the one the refused attempt used is spent');
  t.equal((await submit(h, corrected, person('third'))).statusCode, 200, 'the fresh one works');

  const shown = await h.request('GET', '/auth/sign_up', { headers: { cookie: form.cookie } });
  t.not(TOKEN_FIELD.exec(shown.body)?.[1], TOKEN_FIELD.exec((await h.request('GET', '/auth/sign_up', { headers: { cookie: form.cookie } })).body)?.[1], 'every form shown has a token of its own');
});

t.test("a signed-in browser's form: single-use too, bound to its session", async (t) => {
  const h = await harness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  await h.user('carol');
  const browser = new SigningInBrowser(h);
  const signIn = forms((await browser.get('/auth/sign_in')).body).find((f) => f.action === '/auth/sign_in');
  if (signIn === undefined) throw new Error('no sign-in form');
  t.equal((await browser.post('/auth/sign_in', { ...signIn.fields, 'user[email]': 'carol@example.com', 'user[password]': PASSWORD })).statusCode, 200);
  const page = await browser.get('/auth/sign_up');
  const csrf = TOKEN_FIELD.exec(page.body)?.[1] ?? '';
  const signedIn: Browser = { cookie: browser.cookieHeader, csrf };
  t.equal((await submit(h, { ...signedIn }, person('from_session'))).statusCode, 200);
  t.equal((await submit(h, { ...signedIn }, person('from_session_again'))).statusCode, 403, 'spent');
  t.equal((await submit(h, { cookie: '', csrf }, person('elsewhere'))).statusCode, 403, 'without the session it was made for: refused');
});

t.test('web and API sign-ups share one budget per address: the form answers 429 with its page and Retry-After', async (t) => {
  const h = await windowedHarness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  const { token } = await h.app(['read', 'write']);
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const viaApi = (ip: string, name: string) =>
    h.request('POST', '/api/v1/accounts', { token, headers: from(ip), payload: { ...person(name), agreement: true } });
  const viaForm = async (ip: string, name: string) => submit(h, await openForm(h), person(name), from(ip));
  const statuses = [
    (await viaApi('203.0.113.9', 'api_1')).statusCode,
    (await viaForm('203.0.113.9', 'web_1')).statusCode,
    (await viaApi('203.0.113.9', 'api_2')).statusCode,
    (await viaForm('203.0.113.9', 'web_2')).statusCode,
    (await viaForm('203.0.113.9', 'web_3')).statusCode,
  ];
  t.same(statuses, [200, 200, 200, 200, 200], 'five sign-ups from one address, both ways');
  const form = await openForm(h);
  const over = await submit(h, { ...form }, person('web_4'), from('203.0.113.9'));
  t.equal(over.statusCode, 429, 'the sixth, by the form');
  t.match(over.headers['content-type'], /^text\/html/);
  const windowEnd = (Math.floor(h.clock.now() / 1_800_000) + 1) * 1_800_000;
  t.equal(over.headers['retry-after'], String(Math.ceil((windowEnd - h.clock.now()) / 1000)), 'Retry-After: the seconds until the window ends');
  t.match(over.body, '<h1>Too many sign-ups</h1>');
  t.match(over.body, '<p role="alert">Too many sign-ups have come from your network lately, so this one was not made. Try again in 30 minutes.</p>');
  t.notOk(await exists(h, 'web_4'));
  const api = await viaApi('203.0.113.9', 'api_3');
  t.same([api.statusCode, api.json], [429, { error: 'Too many requests' }], 'and by the API');
  t.equal((await viaForm('198.51.100.3', 'elsewhere')).statusCode, 200, 'another address has its own budget');
  const sameEmail = [];
  for (let i = 0; i < 5; i++) sameEmail.push((await submit(h, await openForm(h), { ...person(`shared_${i}`), email: 'Shared@Example.com' }, from(`198.51.100.${20 + i}`))).statusCode);
  const apiSameEmail = await h.request('POST', '/api/v1/accounts', { token, headers: from('198.51.100.30'), payload: { ...person('shared_5'), email: 'shared@example.com', agreement: true } });
  t.same([...sameEmail.slice(1), apiSameEmail.statusCode], [422, 422, 422, 422, 429], 'per e-mail address too: the form\'s attempts count for the API (the address is taken after the first)');
  h.clock.advance(windowEnd - h.clock.now());
  t.equal((await submit(h, { ...form }, person('web_4'), from('203.0.113.9'))).statusCode, 200, 'the refused form may be sent again once the window ends');
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

t.test('e-mail confirmation: the account is unconfirmed until the link mailed to it is opened', async (t) => {
  const mails: MailMessage[] = [];
  const mailer = { send: async (message: MailMessage) => void mails.push(message) };
  const h = await harness({ plugins: [frontPlugin()], config: { registrations: { confirmationRequired: true } }, mailer });
  t.teardown(() => h.close());
  const browser = await openForm(h);
  const done = await submit(h, browser, GOOD);
  t.equal(done.statusCode, 200);
  t.match(done.body, 'We sent a link to your e-mail address: open it to confirm the address');
  await h.rookery.drain();
  t.same(mails.map((m) => m.to), ['newbie@example.com'], 'the confirmation mail, through the embedder\'s mailer');
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
