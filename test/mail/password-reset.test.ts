import t, { type Test } from 'tap';
import { smtpMailer } from '../../adapters/smtp/index.ts';
import { harness, windowedHarness, type Harness } from '../helpers/harness.ts';
import { Browser, forms, PASSWORD } from '../helpers/oauth.ts';
import { linkIn, startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const SENT = "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes. Please check your spam folder if you didn&#39;t receive this email.";

async function setUp(t: Test): Promise<{ h: Harness; smtp: TestSmtp }> {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'n@example.test', starttls: 'never' });
  t.teardown(() => mailer.close());
  const h = await harness({ mailer });
  t.teardown(() => h.close());
  return { h, smtp };
}

/** Asks for a reset mail from the sign-in page's link, as a browser would. */
async function askForReset(browser: Browser, email: string) {
  const signIn = await browser.get('/auth/sign_in');
  t.match(signIn.body, '<a href="/auth/password/new">Forgot your password?</a>');
  const page = await browser.get('/auth/password/new');
  const form = forms(page.body).find((f) => f.action === '/auth/password');
  if (form === undefined) throw new Error('no form');
  const res = await browser.post(form.action, { ...form.fields, 'user[email]': email });
  await browser.h.rookery.drain();
  return res;
}

t.test('a password reset: the mail, its link, the new password; every session and token of the account ends', async (t) => {
  const { h, smtp } = await setUp(t);
  const alice = await h.user('alice');
  const signedIn = new Browser(h);
  const signInForm = forms((await signedIn.get('/auth/sign_in')).body)[0]!;
  t.equal((await signedIn.post('/auth/sign_in', { ...signInForm.fields, 'user[email]': 'alice', 'user[password]': PASSWORD })).statusCode, 200);

  const browser = new Browser(h);
  const unknown = await askForReset(browser, 'nobody@example.com');
  t.equal(unknown.statusCode, 200);
  t.match(unknown.body, SENT);
  t.equal(smtp.received.length, 0, 'no account has that address: no mail, the same answer');
  const asked = await askForReset(browser, 'ALICE@example.com');
  t.equal(asked.statusCode, 200);
  t.match(asked.body, SENT);
  t.equal(smtp.received.length, 1);
  t.same(smtp.received[0]?.to, ['alice@example.com']);
  const link = linkIn(smtp.received[0]!);
  t.equal(link.pathname, '/auth/password/edit');

  const edit = await browser.get(`${link.pathname}${link.search}`);
  t.equal(edit.statusCode, 200);
  const form = forms(edit.body)[0]!;
  t.equal(form.fields['_method'], 'put');
  const short = await browser.post(form.action, { ...form.fields, 'user[password]': 'short', 'user[password_confirmation]': 'short' });
  t.equal(short.statusCode, 422);
  t.match(short.body, 'Password is too short (minimum is 8 characters)');
  const long = 'x'.repeat(73);
  t.match((await browser.post(form.action, { ...form.fields, 'user[password]': long, 'user[password_confirmation]': long })).body, 'Password is too long (maximum is 72 characters)');
  const mismatch = await browser.post(form.action, { ...form.fields, 'user[password]': 'a new password', 'user[password_confirmation]': 'another one' });
  t.equal(mismatch.statusCode, 422);
  t.match(mismatch.body, 'Password confirmation doesn&#39;t match Password');

  const done = await browser.post(form.action, { ...form.fields, 'user[password]': 'a new password', 'user[password_confirmation]': 'a new password' });
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Your password has been changed successfully.');

  const api = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token });
  t.equal(api.statusCode, 401, 'the access tokens are revoked');
  t.equal(await h.core.storage.oauth.pruneSessions(Number.MAX_SAFE_INTEGER), 0, 'the browser sessions are gone');

  const again = await browser.post(form.action, { ...form.fields, 'user[password]': 'a third password', 'user[password_confirmation]': 'a third password' });
  t.equal(again.statusCode, 422, 'the link serves once');
  t.match(again.body, 'Reset password token is invalid');
  t.equal((await browser.get(`${link.pathname}${link.search}`)).statusCode, 422);

  const fresh = new Browser(h);
  const freshForm = forms((await fresh.get('/auth/sign_in')).body)[0]!;
  t.equal((await fresh.post('/auth/sign_in', { ...freshForm.fields, 'user[email]': 'alice', 'user[password]': PASSWORD })).statusCode, 401, 'the old password no longer works');
  t.equal((await fresh.post('/auth/sign_in', { ...freshForm.fields, 'user[email]': 'alice', 'user[password]': 'a new password' })).statusCode, 200, 'the new one does');
});

t.test('a reset link expires after an hour', async (t) => {
  const { h, smtp } = await setUp(t);
  await h.user('alice');
  const browser = new Browser(h);
  await askForReset(browser, 'alice@example.com');
  const link = linkIn(smtp.received[0]!);
  h.clock.advance(3_600_000 + 1000);
  const res = await browser.get(`${link.pathname}${link.search}`);
  t.equal(res.statusCode, 422);
  t.match(res.body, 'Reset password token is invalid');
});

t.test('the reset forms refuse a post without their CSRF token, and a forged token', async (t) => {
  const { h, smtp } = await setUp(t);
  await h.user('alice');
  const browser = new Browser(h);
  const refused = await browser.post('/auth/password', { 'user[email]': 'alice@example.com' });
  t.equal(refused.statusCode, 403);
  t.equal(smtp.received.length, 0);
  await askForReset(browser, 'alice@example.com');
  const link = linkIn(smtp.received[0]!);
  const token = link.searchParams.get('reset_password_token')!;
  const forged = await browser.get(`/auth/password/edit?reset_password_token=${encodeURIComponent(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))}`);
  t.equal(forged.statusCode, 422);
  const markup = await browser.get('/auth/password/edit?reset_password_token=%22%3E%3Cscript%3E');
  t.equal(markup.statusCode, 422);
  t.notMatch(markup.body, '<script>');
});

t.test('a disabled account gets no reset mail', async (t) => {
  const { h, smtp } = await setUp(t);
  const alice = await h.user('alice');
  await h.core.storage.accounts.updateUser(alice.account.id, { disabled: true });
  const res = await askForReset(new Browser(h), 'alice@example.com');
  t.match(res.body, SENT);
  t.equal(smtp.received.length, 0);
});

t.test('reset mails are limited like sign-ins: 25 posts per 5 minutes per address, 5 mails per 30 minutes per e-mail address', async (t) => {
  const mails: string[] = [];
  const h = await windowedHarness({ mailer: { send: async (m) => void mails.push(m.to) } });
  t.teardown(() => h.close());
  await h.user('alice');
  const browser = new Browser(h);
  const form = forms((await browser.get('/auth/password/new')).body).find((f) => f.action === '/auth/password')!;
  const ask = async (ip: string, email: string) => {
    const res = await h.server.inject({
      method: 'POST',
      url: '/auth/password',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookieHeader, 'x-forwarded-for': ip },
      payload: new URLSearchParams({ ...form.fields, 'user[email]': email }).toString(),
    });
    return res.statusCode;
  };
  const perEmail: number[] = [];
  for (let i = 0; i < 6; i++) perEmail.push(await ask(`198.51.100.${10 + i}`, i % 2 === 0 ? 'alice@example.com' : 'ALICE@example.com'));
  t.same(perEmail, [200, 200, 200, 200, 200, 429], 'the sixth for one address, from six clients');
  await h.rookery.drain();
  t.equal(mails.length, 5);
  const perClient: number[] = [];
  for (let i = 0; i < 26; i++) perClient.push(await ask('203.0.113.80', `someone${i}@example.com`));
  t.same(perClient.slice(24), [200, 429], 'the 26th post from one client');
});

t.test('one link posted twice at once changes the password once', async (t) => {
  const { h, smtp } = await setUp(t);
  await h.user('alice');
  const browser = new Browser(h);
  await askForReset(browser, 'alice@example.com');
  const link = linkIn(smtp.received[0]!);
  const form = forms((await browser.get(`${link.pathname}${link.search}`)).body)[0]!;
  const results = await Promise.all(['first password', 'second password'].map((p) => browser.post(form.action, { ...form.fields, 'user[password]': p, 'user[password_confirmation]': p })));
  t.same(results.map((r) => r.statusCode).sort(), [200, 422]);
});
