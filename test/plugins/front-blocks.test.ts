// The web sign-up form (plugins/front) under the admins' blocks: an e-mail domain block comes back
// on the form as the API's validation error; an IP sign-up block shows the closed page; an IP
// held for approval makes an account that waits.

import t from 'tap';
import { frontPlugin } from '../../plugins/front/index.ts';
import { harness, type Harness } from '../helpers/harness.ts';

const TOKEN_FIELD = /name="authenticity_token" value="([^"]+)"/;

async function submit(h: Harness, fields: Record<string, string>, ip: string) {
  const form = await h.request('GET', '/auth/sign_up', { headers: { 'x-forwarded-for': ip } });
  const setCookie = ([] as string[]).concat((form.headers['set-cookie'] as string[] | string | undefined) ?? []);
  const cookie = (setCookie[0] ?? '').split(';')[0] ?? '';
  const body = new URLSearchParams({ authenticity_token: TOKEN_FIELD.exec(form.body)?.[1] ?? '', ...fields }).toString();
  return h.request('POST', '/auth/sign_up', { payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'x-forwarded-for': ip } });
}

const fields = (username: string, email: string) => ({ username, email, password: 'long enough', password_confirmation: 'long enough', agreement: '1' });

t.test('the web sign-up honours e-mail and IP blocks', async (t) => {
  const h = await harness({ plugins: [frontPlugin()] });
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ['admin:read', 'admin:write'] });
  const admin = (path: string, payload: Record<string, unknown>) => h.request('POST', `/api/v1/admin/${path}`, { token: ada.token, payload });
  t.equal((await admin('email_domain_blocks', { domain: 'spam.example' })).statusCode, 200);
  t.equal((await admin('ip_blocks', { ip: '198.51.100.0/24', severity: 'sign_up_block' })).statusCode, 200);
  t.equal((await admin('ip_blocks', { ip: '192.0.2.0/24', severity: 'sign_up_requires_approval' })).statusCode, 200);

  const blockedEmail = await submit(h, fields('spammer', 'x@mail.spam.example'), '203.0.113.1');
  t.equal(blockedEmail.statusCode, 422);
  t.match(blockedEmail.body, 'uses a disallowed e-mail provider');

  const blockedIp = await submit(h, fields('walled', 'walled@example.com'), '198.51.100.7');
  t.equal(blockedIp.statusCode, 403);
  t.match(blockedIp.body, '<h1>Sign-ups are closed</h1>');
  t.equal(await h.core.storage.accounts.findByUsername('walled', null), null);

  const held = await submit(h, fields('held', 'held@example.com'), '192.0.2.9');
  t.equal(held.statusCode, 200, held.body.slice(0, 200));
  const account = await h.core.storage.accounts.findByUsername('held', null);
  t.equal(account === null ? null : (await h.core.storage.accounts.getUser(account.id))?.approved, false, 'waits for approval');
});
