// Mastodon 4.4's admin domain blocks API over the federation plugin's one store of blocks: what
// the operator's CLI blocks shows here; a suspension made here stops federation as the CLI's
// does; shapes, texts, permission (manage_federation) and the audit log.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { blockId } from '../../../plugins/federation/admin-domain-blocks.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import { harness } from '../../helpers/harness.ts';

const KEYS = ['id', 'domain', 'created_at', 'severity', 'reject_media', 'reject_reports', 'private_comment', 'public_comment', 'obfuscate'];

t.test('domain_blocks: one store with the CLI, Mastodon\'s shapes and texts, the audit log', async (t) => {
  const h = await harness({ plugins: [federationPlugin()] });
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ['read', 'admin:read', 'admin:write'] });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ['read', 'admin:read', 'admin:write'] });
  const blocks = h.core.storage.extend(federationStorage);
  const cli = await blocks.block('cli.example', { reason: 'by hand', now: Date.parse('2026-01-01T00:00:00.000Z') });

  const listed = await h.request('GET', '/api/v1/admin/domain_blocks', { token: ada.token });
  t.equal(listed.statusCode, 200, listed.body);
  t.strictSame(listed.json, [
    { id: blockId(cli), domain: 'cli.example', created_at: '2026-01-01T00:00:00.000Z', severity: 'suspend', reject_media: false, reject_reports: false, private_comment: 'by hand', public_comment: null, obfuscate: false },
  ], "the CLI's block, a suspension");

  const create = (payload: Record<string, unknown>) => h.request('POST', '/api/v1/admin/domain_blocks', { token: ada.token, payload });
  const silenced = await create({ domain: 'Loud.Example', reject_media: true, public_comment: 'noisy', private_comment: 'staff only' });
  t.equal(silenced.statusCode, 200, silenced.body);
  t.strictSame(Object.keys(silenced.json), KEYS);
  t.match(silenced.json, { domain: 'loud.example', severity: 'silence', reject_media: true, reject_reports: false, private_comment: 'staff only', public_comment: 'noisy', obfuscate: false });
  t.equal(await blocks.isBlocked('loud.example'), false, 'silence does not stop federation');
  h.clock.advance(1000); // ids follow creation times
  const suspended = await create({ domain: 'bad.example', severity: 'suspend', obfuscate: 'true' });
  t.match(suspended.json, { domain: 'bad.example', severity: 'suspend', obfuscate: true, private_comment: null });
  t.equal(await blocks.isBlocked('www.bad.example'), true, 'a suspension stops federation, as the CLI does');
  t.strictSame((await blocks.listBlocks()).map((b) => b.domain), ['bad.example', 'cli.example', 'loud.example'], 'the CLI lists them');

  const refusals: [Record<string, unknown>, string][] = [
    [{}, "Validation failed: Domain can't be blank"],
    [{ domain: 'not a domain' }, 'Validation failed: Domain is invalid'],
    [{ domain: 'ok.example', severity: 'nuke' }, 'Validation failed: Severity is not included in the list'],
    [{ domain: 'ok.example', public_comment: 'x'.repeat(1001) }, 'Validation failed: Public comment is too long (maximum is 1000 characters)'],
  ];
  for (const [payload, error] of refusals) t.strictSame(await create(payload).then((r) => [r.statusCode, r.json]), [422, { error }], JSON.stringify(payload).slice(0, 50));
  const covered = await create({ domain: 'sub.cli.example' });
  t.strictSame([covered.statusCode, covered.json], [422, { error: 'You have already imposed stricter limits on cli.example.', existing_domain_block: listed.json[0] }]);

  const page = await h.request('GET', '/api/v1/admin/domain_blocks?limit=2', { token: ada.token });
  t.strictSame(page.json.map((b: { domain: string }) => b.domain), ['bad.example', 'loud.example'], 'newest first');
  t.match(page.headers['link'], new RegExp(`max_id=${silenced.json.id}>; rel="next"`));
  const rest = await h.request('GET', `/api/v1/admin/domain_blocks?limit=2&max_id=${silenced.json.id}`, { token: ada.token });
  t.strictSame(rest.json.map((b: { domain: string }) => b.domain), ['cli.example']);
  const above = await h.request('GET', `/api/v1/admin/domain_blocks?limit=1&min_id=${blockId(cli)}`, { token: ada.token });
  t.strictSame(above.json.map((b: { domain: string }) => b.domain), ['loud.example'], 'min_id: the page right above');

  t.strictSame((await h.request('GET', `/api/v1/admin/domain_blocks/${silenced.json.id}`, { token: ada.token })).json, silenced.json);
  const raised = await h.request('PUT', `/api/v1/admin/domain_blocks/${silenced.json.id}`, { token: ada.token, payload: { severity: 'suspend', private_comment: '' } });
  t.strictSame(raised.json, { ...silenced.json, severity: 'suspend', private_comment: null }, 'same id, the rest kept');
  t.equal(await blocks.isBlocked('loud.example'), true);
  t.strictSame(
    await h.request('PUT', `/api/v1/admin/domain_blocks/${silenced.json.id}`, { token: ada.token, payload: { severity: 'nuke' } }).then((r) => [r.statusCode, r.json]),
    [422, { error: 'Validation failed: Severity is not included in the list' }],
  );
  for (const [method, path] of [['GET', '/api/v1/admin/domain_blocks/123'], ['PUT', '/api/v1/admin/domain_blocks/123'], ['DELETE', '/api/v1/admin/domain_blocks/x']] as const) {
    t.strictSame(await h.request(method, path, { token: ada.token }).then((r) => [r.statusCode, r.json]), [404, { error: 'Record not found' }], `${method} ${path}`);
  }
  for (const [method, path] of [['GET', '/api/v1/admin/domain_blocks'], ['POST', '/api/v1/admin/domain_blocks'], ['PUT', `/api/v1/admin/domain_blocks/${blockId(cli)}`], ['DELETE', `/api/v1/admin/domain_blocks/${blockId(cli)}`]] as const) {
    t.strictSame(await h.request(method, path, { token: mia.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method}: a moderator`);
    t.strictSame(await h.request(method, path).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method}: no token`);
  }
  const reader = await h.user('reader', { role: 'Admin', scopes: ['admin:read:domain_blocks'] });
  t.equal((await h.request('GET', '/api/v1/admin/domain_blocks', { token: reader.token })).statusCode, 200);
  t.strictSame(
    await h.request('DELETE', `/api/v1/admin/domain_blocks/${blockId(cli)}`, { token: reader.token }).then((r) => [r.statusCode, r.json]),
    [403, { error: 'This action is outside the authorized scopes' }],
  );

  t.strictSame((await h.request('DELETE', `/api/v1/admin/domain_blocks/${blockId(cli)}`, { token: ada.token })).json, {});
  t.equal(await blocks.isBlocked('cli.example'), false, 'lifted for federation too');
  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(
    log.map((a) => [a.action, a.targetType, a.targetId]),
    [['destroy', 'DomainBlock', blockId(cli)], ['update', 'DomainBlock', silenced.json.id], ['create', 'DomainBlock', suspended.json.id], ['create', 'DomainBlock', silenced.json.id]],
  );
});
