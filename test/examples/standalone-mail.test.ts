// The standalone instance's mail, configured by Mastodon's SMTP_* variables: the confirmation
// mail of a sign-up reaches a real SMTP server, and its link confirms the account over HTTP; a
// password reset runs from the form to the mail to the new password.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { forms } from '../helpers/oauth.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { linkIn, startSmtp } from '../helpers/smtp.ts';
import { startInstance, stopInstance } from '../helpers/standalone.ts';

t.test('SMTP_SERVER: the confirmation mail is sent over SMTP and its link confirms the account', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-mail-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const [port, streamingPort] = [await freePort(), await freePort()];
  const instance = await startInstance(
    childEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      STREAMING_PORT: String(streamingPort),
      BIND: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REQUIRE_EMAIL_CONFIRMATION: 'true',
      SMTP_SERVER: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_ENABLE_STARTTLS: 'never',
      SMTP_FROM_ADDRESS: 'Rookery <rookery@example.test>',
    }),
  );
  t.teardown(() => stopInstance(instance));
  const base = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: Record<string, string>, token?: string) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, string> };
  };
  const app = await post('/api/v1/apps', { client_name: 'test', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
  const appToken = await post('/oauth/token', { grant_type: 'client_credentials', client_id: app.json['client_id']!, client_secret: app.json['client_secret']!, scope: 'read write' });
  const signUp = await post('/api/v1/accounts', { username: 'newbie', email: 'newbie@example.com', password: 'a good password', agreement: 'true' }, appToken.json['access_token']);
  t.equal(signUp.status, 200);
  const token = signUp.json['access_token']!;

  const mail = await smtp.mail(0);
  t.same(mail.to, ['newbie@example.com']);
  t.match(mail.raw, /^From: Rookery <rookery@example\.test>/m);
  const link = linkIn(mail);
  const me = () => fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
  t.equal((await me()).status, 403);
  const confirmed = await fetch(`${base}${link.pathname}${link.search}`);
  t.equal(confirmed.status, 200);
  t.equal((await me()).status, 200);

  // A password reset, by a browser over HTTP: the form, the mail, its link, the new password.
  let cookie = '';
  const browse = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method: form === undefined ? 'GET' : 'POST',
      headers: { ...(cookie === '' ? {} : { cookie }), ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      body: form === undefined ? null : new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
    if (set.length > 0) cookie = set.join('; ');
    return { status: res.status, body: await res.text() };
  };
  const ask = forms((await browse('/auth/password/new')).body)[0]!;
  const asked = await browse(ask.action, { ...ask.fields, 'user[email]': 'newbie@example.com' });
  t.equal(asked.status, 200);
  const reset = linkIn(await smtp.mail(1));
  t.equal(reset.pathname, '/auth/password/edit');
  const edit = forms((await browse(`${reset.pathname}${reset.search}`)).body)[0]!;
  const changed = await browse(edit.action, { ...edit.fields, 'user[password]': 'another good one', 'user[password_confirmation]': 'another good one' });
  t.equal(changed.status, 200);
  t.match(changed.body, 'Your password has been changed successfully.');
  t.equal((await me()).status, 401, 'the token of the sign-up is revoked');
  const grant = await post('/oauth/token', { grant_type: 'password', client_id: app.json['client_id']!, client_secret: app.json['client_secret']!, username: 'newbie@example.com', password: 'another good one', scope: 'read' });
  t.equal(grant.status, 200, 'the new password signs in');
  t.equal(await stopInstance(instance), 0, 'stops cleanly, its SMTP connections closed');
});

t.test('without SMTP_SERVER the instance says once, at start, that mail is logged', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-mail-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const [port, streamingPort] = [await freePort(), await freePort()];
  const instance = await startInstance(childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(streamingPort), BIND: '127.0.0.1', LOG_LEVEL: 'warn' }));
  t.teardown(() => stopInstance(instance));
  t.match(await instance.until('SMTP_SERVER'), 'SMTP_SERVER is not set: mail is logged (links redacted), not sent');
});
