// Staff roles as Mastodon 4.4 shows them: the CredentialAccount's `role` (Role entity, with the
// computed permission bits), and an account's `roles` (the highlighted role of a local user).

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { can, computedPermissions, roleOf } from '../../../core/domain/moderation/roles.ts';

t.test('the permission bits of each role', async (t) => {
  t.equal(computedPermissions(roleOf(null)), 65536, 'everyone: invite_users');
  t.equal(computedPermissions(roleOf('Moderator')), 1115420, 'Moderator: everyone plus its seven');
  t.equal(computedPermissions(roleOf('Admin')), 2097148, 'Admin: all but administrator and view_devops');
  t.equal(computedPermissions(roleOf('Owner')), 2097151, 'Owner: administrator grants all');
  t.strictSame([can(null, 'manage_reports'), can('Moderator', 'manage_reports'), can('Moderator', 'manage_roles'), can('Admin', 'manage_roles'), can('Owner', 'view_devops')], [false, true, false, true, true]);
  t.equal(roleOf('Root'), roleOf(null), 'an unknown name is nobody special');
});

t.test('verify_credentials states the role; accounts show highlighted ones', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const plain = await h.user('plain');
  const mod = await h.user('mia', { role: 'Moderator' });
  const owner = await h.user('boss', { role: 'Owner' });

  const mine = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: plain.token });
  t.equal(mine.statusCode, 200);
  t.strictSame(mine.json.role, { id: '-99', name: '', permissions: '65536', color: '', highlighted: false });
  t.strictSame(mine.json.roles, []);

  const moderator = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: mod.token });
  t.strictSame(moderator.json.role, { id: '1', name: 'Moderator', permissions: '1115420', color: '', highlighted: true });
  t.strictSame(moderator.json.roles, [{ id: '1', name: 'Moderator', color: '' }]);

  const boss = await h.request('GET', `/api/v1/accounts/${owner.account.id}`, { token: plain.token });
  t.equal(boss.statusCode, 200);
  t.strictSame(boss.json.roles, [{ id: '3', name: 'Owner', color: '' }]);
  t.notOk('role' in boss.json, 'only the CredentialAccount carries role');

  await h.core.storage.accounts.update(owner.account.id, { role: 'Admin' });
  const admin = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: owner.token });
  t.strictSame(admin.json.role, { id: '2', name: 'Admin', permissions: '2097148', color: '', highlighted: true });
  t.strictSame((await h.core.storage.accounts.listStaff()).map((a) => a.username).sort(), ['boss', 'mia']);
});

t.test('the admin scopes sit in the scope hierarchy', async (t) => {
  const { grants, isKnownScope } = await import('../../../core/mastodon/oauth/scopes.ts');
  t.ok(['admin:read', 'admin:write', 'admin:read:reports', 'admin:write:reports', 'admin:read:accounts', 'admin:write:accounts'].every(isKnownScope));
  t.strictSame(
    [grants('admin:read', 'admin:read:reports'), grants('admin:write', 'admin:write:accounts'), grants('read', 'admin:read:reports'), grants('admin:read:reports', 'admin:read'), grants('admin:read', 'admin:write:reports')],
    [true, true, false, false, false],
  );
});
