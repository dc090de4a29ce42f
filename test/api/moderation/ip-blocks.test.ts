// The admin IP blocks API as Mastodon 4.4 answers it, and what the blocks do: sign-up refused or
// held for approval, and no_access answered with Rack::Attack's 403 on every request.

import t from 'tap';
import { harness, type Harness } from '../../helpers/harness.ts';

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function setup() {
  const h = await harness();
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  return { h, ada, mia };
}

const signUp = async (h: Harness, ip: string, username: string) => {
  const app = await h.app(['read', 'write']);
  return h.request('POST', '/api/v1/accounts', { token: app.token, headers: from(ip), payload: { username, email: `${username}@example.com`, password: 'a good password', agreement: 'true' } });
};

t.test('ip_blocks: create, list, show, update, delete, with Mastodon\'s shapes and texts', async (t) => {
  const { h, ada, mia } = await setup();
  t.teardown(() => h.close());
  const create = (payload: Record<string, unknown>) => h.request('POST', '/api/v1/admin/ip_blocks', { token: ada.token, payload });
  const made = await create({ ip: '203.0.113.77/24', severity: 'sign_up_block', comment: 'spam wave', expires_in: 3600 });
  t.equal(made.statusCode, 200, made.body);
  t.strictSame(Object.keys(made.json), ['id', 'ip', 'severity', 'comment', 'created_at', 'expires_at']);
  t.match(made.json, { ip: '203.0.113.0/24', severity: 'sign_up_block', comment: 'spam wave' });
  t.equal(Date.parse(made.json.expires_at) - Date.parse(made.json.created_at), 3_600_000);
  const single = await create({ ip: '2001:DB8:0:0::1', severity: 'no_access' });
  t.strictSame([single.json.ip, single.json.comment, single.json.expires_at], ['2001:db8::1/128', '', null]);

  const refusals: [Record<string, unknown>, string][] = [
    [{ ip: '203.0.113.0/24', severity: 'no_access' }, 'Validation failed: Ip has already been taken'],
    [{ ip: '203.0.113.9/24', severity: 'no_access' }, 'Validation failed: Ip has already been taken'],
    [{ severity: 'no_access' }, "Validation failed: Ip can't be blank"],
    [{ ip: 'not an ip', severity: 'no_access' }, "Validation failed: Ip can't be blank"],
    [{ ip: '10.0.0.0/33', severity: 'no_access' }, "Validation failed: Ip can't be blank"],
    [{ ip: '10.0.0.0/8' }, "Validation failed: Severity can't be blank"],
    [{}, "Validation failed: Ip can't be blank, Severity can't be blank"],
    [{ ip: '10.0.0.0/8', severity: 'nuke' }, 'Validation failed: Severity is not included in the list'],
    [{ ip: '10.0.0.0/8', severity: 'no_access', comment: 'x'.repeat(5001) }, 'Validation failed: Comment is too long (maximum is 5000 characters)'],
  ];
  for (const [payload, error] of refusals) t.strictSame(await create(payload).then((r) => [r.statusCode, r.json]), [422, { error }], JSON.stringify(payload).slice(0, 60));

  const list = await h.request('GET', '/api/v1/admin/ip_blocks?limit=1', { token: ada.token });
  t.strictSame(list.json.map((b: { id: string }) => b.id), [single.json.id]);
  t.match(list.headers['link'], new RegExp(`max_id=${single.json.id}>; rel="next"`));
  t.strictSame((await h.request('GET', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token })).json, made.json);

  const updated = await h.request('PUT', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token, payload: { severity: 'sign_up_requires_approval', comment: 'calmer', expires_in: '' } });
  t.equal(updated.statusCode, 200, updated.body);
  t.strictSame(updated.json, { ...made.json, severity: 'sign_up_requires_approval', comment: 'calmer', expires_at: null });
  t.strictSame(
    await h.request('PUT', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token, payload: { ip: '2001:db8::1' } }).then((r) => [r.statusCode, r.json]),
    [422, { error: 'Validation failed: Ip has already been taken' }],
  );
  t.strictSame(
    await h.request('PUT', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token, payload: { severity: 'nuke' } }).then((r) => [r.statusCode, r.json]),
    [422, { error: 'Validation failed: Severity is not included in the list' }],
  );
  for (const [method, path] of [['GET', '/api/v1/admin/ip_blocks/999'], ['PUT', '/api/v1/admin/ip_blocks/999'], ['DELETE', '/api/v1/admin/ip_blocks/999'], ['GET', '/api/v1/admin/ip_blocks/x']] as const) {
    t.strictSame(await h.request(method, path, { token: ada.token }).then((r) => [r.statusCode, r.json]), [404, { error: 'Record not found' }], `${method} ${path}`);
  }
  for (const [method, path] of [['GET', '/api/v1/admin/ip_blocks'], ['POST', '/api/v1/admin/ip_blocks'], ['PUT', `/api/v1/admin/ip_blocks/${made.json.id}`], ['DELETE', `/api/v1/admin/ip_blocks/${made.json.id}`]] as const) {
    t.strictSame(await h.request(method, path, { token: mia.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method}: a moderator`);
  }
  const reader = await h.user('reader', { role: 'Admin', scopes: ['admin:read:ip_blocks'] });
  t.equal((await h.request('GET', '/api/v1/admin/ip_blocks', { token: reader.token })).statusCode, 200);
  t.strictSame(
    await h.request('DELETE', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: reader.token }).then((r) => [r.statusCode, r.json]),
    [403, { error: 'This action is outside the authorized scopes' }],
  );
  t.strictSame((await h.request('DELETE', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token })).json, {});
  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(log.map((a) => [a.action, a.targetType]), [['destroy', 'IpBlock'], ['update', 'IpBlock'], ['create', 'IpBlock'], ['create', 'IpBlock']], 'refused changes are not logged');
});

t.test('sign-up from a blocked range is refused, or held for approval', async (t) => {
  const { h, ada } = await setup();
  t.teardown(() => h.close());
  const block = (ip: string, severity: string, extra = {}) => h.request('POST', '/api/v1/admin/ip_blocks', { token: ada.token, payload: { ip, severity, ...extra } });
  await block('198.51.100.0/24', 'sign_up_block');
  await block('192.0.2.0/24', 'sign_up_requires_approval');
  await block('203.0.113.0/24', 'sign_up_block', { expires_in: 60 });

  t.strictSame(await signUp(h, '198.51.100.20', 'blocked').then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }]);
  t.equal(await h.core.storage.accounts.findByUsername('blocked', null), null, 'nobody made');
  const held = await signUp(h, '192.0.2.5', 'held');
  t.equal(held.statusCode, 200, held.body);
  const account = await h.core.storage.accounts.findByUsername('held', null);
  t.equal(account === null ? null : (await h.core.storage.accounts.getUser(account.id))?.approved, false, 'waits for approval');
  t.equal((await signUp(h, '203.0.113.1', 'early')).statusCode, 403, 'a live block');
  h.clock.advance(61_000);
  t.equal((await signUp(h, '203.0.113.2', 'late')).statusCode, 200, 'an expired block no longer applies');
  t.equal((await signUp(h, '127.0.0.1', 'local')).statusCode, 200);
});

t.test('no_access: every request from the range gets Rack::Attack\'s 403, loopback never', async (t) => {
  const { h, ada } = await setup();
  t.teardown(() => h.close());
  const made = await h.request('POST', '/api/v1/admin/ip_blocks', { token: ada.token, headers: from('192.0.2.1'), payload: { ip: '198.51.100.0/24', severity: 'no_access' } });
  t.equal(made.statusCode, 200);
  const refused = await h.request('GET', '/api/v1/instance', { headers: from('198.51.100.9') });
  t.strictSame([refused.statusCode, refused.body, refused.headers['content-type']], [403, 'Forbidden\n', 'text/plain; charset=utf-8']);
  t.equal((await h.request('GET', '/api/v1/nothing/here', { headers: from('198.51.100.9') })).statusCode, 403, 'any API path');
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('198.51.100.9'), token: ada.token })).statusCode, 403, 'whoever signs in');
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('192.0.2.1') })).statusCode, 200, 'another address');
  t.equal((await h.request('GET', '/api/v1/instance')).statusCode, 200, 'loopback');
  await h.request('DELETE', `/api/v1/admin/ip_blocks/${made.json.id}`, { token: ada.token });
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('198.51.100.9') })).statusCode, 200, 'lifted at once');
});
