import t from 'tap';
import { smtpMailer } from '../../adapters/smtp/index.ts';
import { MAIL_ATTEMPTS, redactSecrets } from '../../core/domain/mail/queue.ts';
import { harness, type Harness } from '../helpers/harness.ts';
import { registerApp, tokenRequest } from '../helpers/oauth.ts';
import { freeSmtpPort, linkIn, startSmtp } from '../helpers/smtp.ts';

const CONFIRMING = { registrations: { confirmationRequired: true } };
const NEWBIE = { username: 'newbie', email: 'newbie@example.com', password: 'a good password', agreement: 'true' };

async function signUp(h: Harness): Promise<{ token: string; appToken: string }> {
  const app = await registerApp(h, { scopes: 'read write' });
  const res = await tokenRequest(h, { grant_type: 'client_credentials', scope: 'read write', client_id: app.client_id, client_secret: app.client_secret });
  const created = await h.request('POST', '/api/v1/accounts', { token: res.json.access_token, payload: NEWBIE });
  if (created.statusCode !== 200) throw new Error(created.body);
  return { token: created.json.access_token, appToken: res.json.access_token };
}

t.test('the confirmation mail arrives over SMTP and its link confirms the address once', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'Rookery <notifications@example.test>', starttls: 'never' });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer, listen: true });
  t.teardown(() => h.close());
  const { token } = await signUp(h);
  t.equal(smtp.received.length, 1, 'one mail, sent by the queue job the sign-up recorded');
  const [mail] = smtp.received;
  if (mail === undefined) throw new Error('no mail');
  t.same(mail.to, ['newbie@example.com']);
  t.match(mail.raw, /^From: Rookery <notifications@example\.test>/m);
  const link = linkIn(mail);
  t.equal(link.pathname, '/auth/confirmation');

  const before = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(before.statusCode, 403);
  const opened = await fetch(link);
  t.equal(opened.status, 200);
  t.match(await opened.text(), 'Your email address has been successfully confirmed.');
  const after = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(after.statusCode, 200, 'the account can act');

  const again = await fetch(link);
  t.equal(again.status, 422, 'the link serves once');
  t.match(await again.text(), 'Confirmation token is invalid');
  const forged = await fetch(`${link.origin}/auth/confirmation?confirmation_token=${encodeURIComponent(link.searchParams.get('confirmation_token')!.replace(/.$/, 'A'))}`);
  t.equal(forged.status, 422);
});

t.test('a confirmation link expires after a week', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'n@example.test', starttls: 'never' });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer });
  t.teardown(() => h.close());
  await signUp(h);
  const link = linkIn(smtp.received[0]!);
  h.clock.advance(7 * 86_400_000 + 1000);
  const res = await h.request('GET', `${link.pathname}${link.search}`);
  t.equal(res.statusCode, 422);
});

t.test('POST /api/v1/emails/confirmations mails the link again, while it is awaited, for the app the user signed up with', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'n@example.test', starttls: 'never' });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer });
  t.teardown(() => h.close());
  const { token } = await signUp(h);

  const resent = await h.request('POST', '/api/v1/emails/confirmations', { token });
  t.equal(resent.statusCode, 200);
  t.same(resent.json, {});
  t.equal(smtp.received.length, 2);
  t.equal((await h.request('GET', '/api/v1/emails/check_confirmation', { token })).json, false);

  const anonymous = await h.request('GET', '/api/v1/emails/check_confirmation');
  t.same([anonymous.statusCode, anonymous.json], [401, { error: 'This method requires an authenticated user' }]);
  const other = await h.user('other');
  const notOwner = await h.request('POST', '/api/v1/emails/confirmations', { token: other.token });
  t.equal(notOwner.statusCode, 403);
  t.same(notOwner.json, { error: 'This method is only available to the application the user originally signed-up with' });

  const link = linkIn(smtp.received[1]!);
  t.equal((await h.request('GET', `${link.pathname}${link.search}`)).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/emails/check_confirmation', { token })).json, true);
  const confirmed = await h.request('POST', '/api/v1/emails/confirmations', { token });
  t.equal(confirmed.statusCode, 403);
  t.same(confirmed.json, { error: 'This method is only available while the e-mail is awaiting confirmation' });
  t.equal(smtp.received.length, 2);
});

t.test('a mail waits in the queue while the SMTP server is down, and arrives once it is up', async (t) => {
  const port = await freeSmtpPort();
  const mailer = smtpMailer({ host: '127.0.0.1', port, from: 'n@example.test', starttls: 'never', timeoutMs: 5000 });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer });
  t.teardown(() => h.close());
  await signUp(h);
  t.equal(await h.core.queue.size(), 1, 'the refused mail is queued for a retry');
  t.same(await h.core.queue.deadLetters(10), []);

  const smtp = await startSmtp(port);
  t.teardown(() => smtp.close());
  h.clock.advance(1000);
  await h.rookery.drain();
  t.equal(smtp.received.length, 1, 'the retry delivered it');
  t.equal(await h.core.queue.size(), 0);
});

t.test('a mail that never goes goes to the dead letters after the last attempt', async (t) => {
  const port = await freeSmtpPort();
  const mailer = smtpMailer({ host: '127.0.0.1', port, from: 'n@example.test', starttls: 'never', timeoutMs: 5000 });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer });
  t.teardown(() => h.close());
  await signUp(h);
  for (let attempt = 1; attempt < MAIL_ATTEMPTS; attempt++) {
    h.clock.advance(3_600_000);
    await h.rookery.drain();
  }
  t.equal(await h.core.queue.size(), 0);
  const dead = await h.core.queue.deadLetters(10);
  t.equal(dead.length, 1);
  t.equal(dead[0]?.name, 'mail');
});

t.test('without a mailer, mail is logged with its links\' secrets redacted', async (t) => {
  const logged: object[] = [];
  const logger = { debug() {}, info: (o: object) => void logged.push(o), warn() {}, error() {} };
  const h = await harness({ config: CONFIRMING, logger });
  t.teardown(() => h.close());
  await signUp(h);
  const entry = logged.find((o) => 'mail' in o) as { mail: { to: string; text: string } } | undefined;
  t.equal(entry?.mail.to, 'newbie@example.com');
  t.match(entry?.mail.text, 'confirmation_token=[redacted]');
  t.notMatch(entry?.mail.text, /confirmation_token=[0-9]/);
  t.equal(redactSecrets('x?reset_password_token=abc&y=1'), 'x?reset_password_token=[redacted]&y=1');
});

t.test('POST /api/v1/emails/confirmations with `email` changes the unconfirmed address and mails the link there', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'n@example.test', starttls: 'never' });
  t.teardown(() => mailer.close());
  const h = await harness({ config: CONFIRMING, mailer });
  t.teardown(() => h.close());
  const { token } = await signUp(h);
  await h.user('taken');
  const takenEmail = (await h.core.storage.accounts.getUser((await h.core.storage.accounts.findByUsername('taken', null))!.id))!.email;

  const invalid = await h.request('POST', '/api/v1/emails/confirmations', { token, payload: { email: 'not an address' } });
  t.equal(invalid.statusCode, 422);
  t.same(invalid.json, { error: 'Validation failed: Email is invalid', details: { email: [{ error: 'ERR_INVALID', description: 'is invalid' }] } });
  const taken = await h.request('POST', '/api/v1/emails/confirmations', { token, payload: { email: takenEmail.toUpperCase() } });
  t.equal(taken.statusCode, 422);
  t.equal(taken.json.error, 'Validation failed: Email is already taken');
  t.equal(smtp.received.length, 1, 'refused changes send nothing');

  const changed = await h.request('POST', '/api/v1/emails/confirmations', { token, payload: { email: 'fresh@example.com' } });
  t.equal(changed.statusCode, 200);
  t.equal(smtp.received.length, 2);
  t.same(smtp.received[1]?.to, ['fresh@example.com']);
  const old = linkIn(smtp.received[0]!);
  t.equal((await h.request('GET', `${old.pathname}${old.search}`)).statusCode, 422, 'the link sent to the old address no longer works');
  const fresh = linkIn(smtp.received[1]!);
  t.equal((await h.request('GET', `${fresh.pathname}${fresh.search}`)).statusCode, 200);
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.equal(me.statusCode, 200);
  t.equal((await h.core.storage.accounts.findUserByEmail('fresh@example.com'))?.accountId, me.json.id, 'the account has its new address');
});
