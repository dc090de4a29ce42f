// The admin e-mail blocks API (email_domain_blocks, canonical_email_blocks) as Mastodon 4.4
// answers it, the audit log it writes, and sign-up refusing blocked addresses.

import t from 'tap';
import { createHash } from 'node:crypto';
import { harness, type Harness } from '../../helpers/harness.ts';

const ADMIN_SCOPES = ['read', 'admin:read', 'admin:write'];

async function setup() {
  const h = await harness();
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  const plain = await h.user('plain', { scopes: ADMIN_SCOPES });
  return { h, ada, mia, plain };
}

const signUp = async (h: Harness, email: string, username = 'newbie') => {
  const app = await h.app(['read', 'write']);
  return h.request('POST', '/api/v1/accounts', { token: app.token, payload: { username, email, password: 'a good password', agreement: 'true' } });
};

const hex = (s: string) => createHash('sha256').update(s).digest('hex');

t.test('email_domain_blocks: create, list with Link paging, show, delete, audit log', async (t) => {
  const { h, ada } = await setup();
  t.teardown(() => h.close());
  const create = (domain: unknown) => h.request('POST', '/api/v1/admin/email_domain_blocks', { token: ada.token, payload: { domain } });
  const first = await create('Spam.Example.');
  t.equal(first.statusCode, 200, first.body);
  t.equal(first.json.domain, 'spam.example', 'normalised');
  t.match(first.json.id, /^\d+$/);
  t.match(first.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal(first.json.history.length, 7);
  t.strictSame(Object.keys(first.json.history[0]), ['day', 'accounts', 'uses']);
  t.strictSame(Object.keys(first.json), ['id', 'domain', 'created_at', 'history']);

  const refusals: [unknown, number, string][] = [
    ['spam.example', 422, 'Validation failed: Domain has already been taken'],
    ['SPAM.example', 422, 'Validation failed: Domain has already been taken'],
    ['', 422, "Validation failed: Domain can't be blank"],
    [undefined, 422, "Validation failed: Domain can't be blank"],
    ['not a domain', 422, 'Validation failed: Domain is invalid'],
    ['a/b', 422, 'Validation failed: Domain is invalid'],
  ];
  for (const [domain, status, error] of refusals) t.strictSame(await create(domain).then((r) => [r.statusCode, r.json]), [status, { error }], String(domain));

  const second = (await create('junk.example')).json;
  const third = (await create('more.example')).json;
  const all = await h.request('GET', '/api/v1/admin/email_domain_blocks', { token: ada.token });
  t.strictSame(all.json.map((b: { domain: string }) => b.domain), ['more.example', 'junk.example', 'spam.example'], 'newest first');
  const paged = await h.request('GET', '/api/v1/admin/email_domain_blocks?limit=2', { token: ada.token });
  t.strictSame(paged.json.map((b: { id: string }) => b.id), [third.id, second.id]);
  t.match(paged.headers['link'], new RegExp(`max_id=${second.id}>; rel="next"`));
  t.match(paged.headers['link'], new RegExp(`min_id=${third.id}>; rel="prev"`));

  const shown = await h.request('GET', `/api/v1/admin/email_domain_blocks/${first.json.id}`, { token: ada.token });
  t.strictSame([shown.statusCode, shown.json.domain], [200, 'spam.example']);
  for (const path of ['/api/v1/admin/email_domain_blocks/999999', '/api/v1/admin/email_domain_blocks/x']) {
    t.strictSame(await h.request('GET', path, { token: ada.token }).then((r) => [r.statusCode, r.json]), [404, { error: 'Record not found' }]);
    t.strictSame(await h.request('DELETE', path, { token: ada.token }).then((r) => [r.statusCode, r.json]), [404, { error: 'Record not found' }]);
  }
  const gone = await h.request('DELETE', `/api/v1/admin/email_domain_blocks/${second.id}`, { token: ada.token });
  t.strictSame([gone.statusCode, gone.json], [200, {}]);
  t.equal((await h.request('GET', `/api/v1/admin/email_domain_blocks/${second.id}`, { token: ada.token })).statusCode, 404);

  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(
    log.map((a) => [a.action, a.targetType, a.targetId, a.accountId]),
    [['destroy', 'EmailDomainBlock', second.id, ada.account.id], ['create', 'EmailDomainBlock', third.id, ada.account.id], ['create', 'EmailDomainBlock', second.id, ada.account.id], ['create', 'EmailDomainBlock', first.json.id, ada.account.id]],
  );
});

t.test('the e-mail block APIs: manage_blocks and the admin scopes', async (t) => {
  const { h, ada, mia, plain } = await setup();
  t.teardown(() => h.close());
  const block = (await h.request('POST', '/api/v1/admin/canonical_email_blocks', { token: ada.token, payload: { email: 'x@y.example' } })).json;
  const forbidden = [403, { error: 'This action is not allowed' }];
  const calls = [
    ['GET', '/api/v1/admin/email_domain_blocks'],
    ['POST', '/api/v1/admin/email_domain_blocks'],
    ['GET', '/api/v1/admin/email_domain_blocks/1'],
    ['DELETE', '/api/v1/admin/email_domain_blocks/1'],
    ['GET', '/api/v1/admin/canonical_email_blocks'],
    ['POST', '/api/v1/admin/canonical_email_blocks'],
    ['POST', '/api/v1/admin/canonical_email_blocks/test'],
    ['GET', `/api/v1/admin/canonical_email_blocks/${block.id}`],
    ['DELETE', `/api/v1/admin/canonical_email_blocks/${block.id}`],
  ] as const;
  for (const [method, path] of calls) {
    for (const [who, token] of [['moderator', mia.token], ['no role', plain.token], ['no token', undefined]] as const) {
      const res = await h.request(method, path, token === undefined ? {} : { token });
      t.strictSame([res.statusCode, res.json], forbidden, `${method} ${path}: ${who}`);
    }
  }
  const reader = await h.user('reader', { role: 'Admin', scopes: ['admin:read:email_domain_blocks', 'admin:read:canonical_email_blocks'] });
  t.equal((await h.request('GET', '/api/v1/admin/email_domain_blocks', { token: reader.token })).statusCode, 200);
  t.equal((await h.request('POST', '/api/v1/admin/canonical_email_blocks/test', { token: reader.token, payload: { email: 'x@y.example' } })).statusCode, 200);
  const outside = [403, { error: 'This action is outside the authorized scopes' }];
  t.strictSame(await h.request('POST', '/api/v1/admin/email_domain_blocks', { token: reader.token, payload: { domain: 'a.example' } }).then((r) => [r.statusCode, r.json]), outside);
  t.strictSame(await h.request('DELETE', `/api/v1/admin/canonical_email_blocks/${block.id}`, { token: reader.token }).then((r) => [r.statusCode, r.json]), outside);
  const user = await h.user('user', { role: 'Admin', scopes: ['read', 'write'] });
  t.strictSame(await h.request('GET', '/api/v1/admin/email_domain_blocks', { token: user.token }).then((r) => [r.statusCode, r.json]), outside);
});

t.test('canonical_email_blocks: Mastodon\'s canonical form and hash; test; create by hash', async (t) => {
  const { h, ada } = await setup();
  t.teardown(() => h.close());
  const create = (payload: Record<string, unknown>) => h.request('POST', '/api/v1/admin/canonical_email_blocks', { token: ada.token, payload });
  const made = await create({ email: 'Some.One+spam@Mail.Example' });
  t.equal(made.statusCode, 200, made.body);
  t.strictSame(made.json, { id: made.json.id, canonical_email_hash: hex('someone@mail.example') });
  const byHash = await create({ canonical_email_hash: hex('other@mail.example') });
  t.strictSame(byHash.json, { id: byHash.json.id, canonical_email_hash: hex('other@mail.example') });

  for (const [payload, error] of [
    [{ email: 'someone@mail.example' }, 'Validation failed: Canonical email hash has already been taken'],
    [{ canonical_email_hash: hex('other@mail.example') }, 'Validation failed: Canonical email hash has already been taken'],
    [{}, "Validation failed: Canonical email hash can't be blank"],
    [{ canonical_email_hash: 'f'.repeat(256) }, 'Validation failed: Canonical email hash is too long (maximum is 255 characters)'],
  ] as const) {
    t.strictSame(await create(payload).then((r) => [r.statusCode, r.json]), [422, { error }], JSON.stringify(payload).slice(0, 60));
  }

  const test = (email?: string) => h.request('POST', '/api/v1/admin/canonical_email_blocks/test', { token: ada.token, payload: email === undefined ? {} : { email } });
  t.strictSame((await test('s.o.m.e.o.n.e+x@MAIL.example')).json, [made.json]);
  t.strictSame((await test('nobody@mail.example')).json, []);
  t.strictSame(await test().then((r) => [r.statusCode, r.json]), [400, { error: 'param is missing or the value is empty or invalid: email' }]);

  const list = await h.request('GET', '/api/v1/admin/canonical_email_blocks', { token: ada.token });
  t.strictSame(list.json, [byHash.json, made.json]);
  t.strictSame((await h.request('GET', `/api/v1/admin/canonical_email_blocks/${made.json.id}`, { token: ada.token })).json, made.json);
  t.strictSame((await h.request('DELETE', `/api/v1/admin/canonical_email_blocks/${made.json.id}`, { token: ada.token })).json, {});
  t.strictSame((await test('someone@mail.example')).json, []);
  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(log.map((a) => [a.action, a.targetType]), [['destroy', 'CanonicalEmailBlock'], ['create', 'CanonicalEmailBlock'], ['create', 'CanonicalEmailBlock']]);
});

t.test('sign-up refuses a blocked domain (and its subdomains) and a canonically blocked address', async (t) => {
  const { h, ada } = await setup();
  t.teardown(() => h.close());
  await h.request('POST', '/api/v1/admin/email_domain_blocks', { token: ada.token, payload: { domain: 'spam.example' } });
  await h.request('POST', '/api/v1/admin/canonical_email_blocks', { token: ada.token, payload: { email: 'banned@mail.example' } });
  const blocked = {
    error: 'Validation failed: Email uses a disallowed e-mail provider',
    details: { email: [{ error: 'ERR_BLOCKED', description: 'uses a disallowed e-mail provider' }] },
  };
  for (const email of ['a@spam.example', 'a@SPAM.example', 'a@mx.spam.example']) {
    const res = await signUp(h, email);
    t.strictSame([res.statusCode, res.json], [422, blocked], email);
  }
  const taken = { error: 'Validation failed: Email is already taken', details: { email: [{ error: 'ERR_TAKEN', description: 'is already taken' }] } };
  for (const email of ['banned@mail.example', 'Ban.ned+again@mail.example']) {
    const res = await signUp(h, email);
    t.strictSame([res.statusCode, res.json], [422, taken], email);
  }
  t.equal((await signUp(h, 'a@notspam.example')).statusCode, 200, 'a domain that only ends the same way is not blocked');
  t.equal((await signUp(h, 'banned@other.example', 'other')).statusCode, 200, 'the same local part elsewhere is fine');
});
