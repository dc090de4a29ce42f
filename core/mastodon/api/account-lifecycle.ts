// An account's lifecycle through the API: an admin deleting an account (Mastodon 4.4's
// DELETE /api/v1/admin/accounts/:id: the admin Account entity as it was, the data removed in
// the background). Like the other admin endpoints it takes an optional token
// (authorize_if_got_token!): without a user whose role may delete user data it answers 403.

import type { AppCore } from '../context.ts';
import { accountAnAdminMayDelete, deleteAccount } from '../../domain/accounts/delete.ts';
import { notFound } from '../../domain/errors.ts';
import { presentAdminAccounts } from '../present/report.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

export function accountLifecycleEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'DELETE',
      path: '/api/v1/admin/accounts/:id',
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:accounts'],
      handle: async (request) => {
        const { admin, account } = await accountAnAdminMayDelete(core, request.caller.account, request.params['id'] ?? '');
        // Rendered before it goes, as Mastodon renders it before its deletion worker runs.
        const rendered = (await presentAdminAccounts(core, [account.id])).get(account.id);
        if (rendered === undefined) throw notFound();
        await deleteAccount(core, account, { kind: 'admin', admin });
        return json(rendered);
      },
    },
  ];
}
