// The admin domain allows API as Mastodon 4.4 answers it (manage_federation). Allow-list
// federation itself is not implemented: the list is kept and shown only.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';

const ADMIN_SCOPES = ['read', 'admin:read', 'admin:write'];

t.test('domain_allows: create (an existing one answered as it is), list, show, delete, audit log', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  const create = (domain?: string) => h.request('POST', '/api/v1/admin/domain_allows', { token: ada.token, payload: domain === undefined ? {} : { domain } });
  const made = await create('Friends.Example');
  t.equal(made.statusCode, 200, made.body);
  t.strictSame(Object.keys(made.json), ['id', 'domain', 'created_at']);
  t.equal(made.json.domain, 'friends.example');
  t.strictSame((await create('friends.example')).json, made.json, 'the one there is');
  t.strictSame(await create().then((r) => [r.statusCode, r.json]), [422, { error: "Validation failed: Domain can't be blank" }]);
  t.strictSame(await create('no way').then((r) => [r.statusCode, r.json]), [422, { error: 'Validation failed: Domain is invalid' }]);
  const other = (await create('pals.example')).json;

  const list = await h.request('GET', '/api/v1/admin/domain_allows', { token: ada.token });
  t.strictSame(list.json, [other, made.json]);
  t.strictSame((await h.request('GET', `/api/v1/admin/domain_allows/${made.json.id}`, { token: ada.token })).json, made.json);
  t.strictSame(await h.request('GET', '/api/v1/admin/domain_allows/12345', { token: ada.token }).then((r) => [r.statusCode, r.json]), [404, { error: 'Record not found' }]);
  for (const [method, path] of [['GET', '/api/v1/admin/domain_allows'], ['POST', '/api/v1/admin/domain_allows'], ['GET', `/api/v1/admin/domain_allows/${made.json.id}`], ['DELETE', `/api/v1/admin/domain_allows/${made.json.id}`]] as const) {
    t.strictSame(await h.request(method, path, { token: mia.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method} ${path}: a moderator lacks manage_federation`);
  }
  const blocksOnly = await h.user('blocks', { role: 'Admin', scopes: ['admin:read:email_domain_blocks'] });
  t.strictSame(
    await h.request('GET', '/api/v1/admin/domain_allows', { token: blocksOnly.token }).then((r) => [r.statusCode, r.json]),
    [403, { error: 'This action is outside the authorized scopes' }],
  );
  t.strictSame((await h.request('DELETE', `/api/v1/admin/domain_allows/${made.json.id}`, { token: ada.token })).json, {});
  t.strictSame(await h.request('DELETE', `/api/v1/admin/domain_allows/${made.json.id}`, { token: ada.token }).then((r) => r.statusCode), 404);
  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(log.map((a) => [a.action, a.targetType]), [['destroy', 'DomainAllow'], ['create', 'DomainAllow'], ['create', 'DomainAllow']], 'the repeat recorded nothing');
});
