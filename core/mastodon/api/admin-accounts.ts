// The moderators' accounts API (Mastodon 4.4's /api/v1/admin/accounts and /api/v2/admin/accounts):
// list with filters, show, approve, reject, enable, action, unsilence, unsuspend, unsensitive.
// Like the reports API these take an optional token (authorize_if_got_token!): without a user
// whose role may manage users they answer 403 "This action is not allowed". DELETE is not here.

import type { AppCore } from '../context.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import type { Account } from '../../domain/model.ts';
import {
  approveAccount,
  enableAccount,
  findAccountForAdmin,
  rejectAccount,
  takeAccountAction,
  unsensitiveAccount,
  unsilenceAccount,
  unsuspendAccount,
  userManager,
} from '../../domain/moderation/account-actions.ts';
import { can, ROLE_NAMES, roleOf } from '../../domain/moderation/roles.ts';
import { bool, page, present, str, strArray, type Params } from '../../domain/params.ts';
import type { AdminAccountFilter } from '../../domain/ports/storage.ts';
import { presentAdminAccounts } from '../present/report.ts';
import { pagedJson } from './paging.ts';
import { paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const ADMIN_READ = ['admin:read', 'admin:read:accounts'];
const ADMIN_WRITE = ['admin:write', 'admin:write:accounts'];
const LIMIT = 100;
/** Longest text criterion taken (longer than any username, name or address). */
const TEXT_LIMIT = 320;

const idOf = (request: ApiRequest): string => request.params['id'] ?? '';

/** The staff: roles that may manage reports (Mastodon's UserRole.that_can(:manage_reports)). */
const STAFF_ROLES = ROLE_NAMES.filter((name) => can(name, 'manage_reports'));

/** A text criterion, trimmed; undefined when absent or blank (Mastodon skips blank values). */
function text(params: Params, name: string): string | undefined {
  const value = str(params, name)?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > TEXT_LIMIT) throw badRequest(`${name} is too long`);
  return value;
}

/** The criteria both versions share; null when one of them can match no account here. */
function sharedCriteria(params: Params, filter: AdminAccountFilter): AdminAccountFilter | null {
  const domain = text(params, 'by_domain');
  const username = text(params, 'username');
  const displayName = text(params, 'display_name');
  const email = text(params, 'email');
  if (domain !== undefined) filter.domain = domain;
  if (username !== undefined) filter.usernamePrefix = username;
  if (displayName !== undefined) filter.displayNameContains = displayName;
  if (email !== undefined) filter.emailPrefix = email;
  // No sign-in addresses are recorded here, so no account matches an IP.
  if (text(params, 'ip') !== undefined) return null;
  return filter;
}

/** v1: local and active unless told otherwise; flags (any non-empty value, "false" too, as in
 * Mastodon) pick the rest. */
function v1Filter(params: Params): AdminAccountFilter | null {
  const filter: AdminAccountFilter = { origin: present(params, 'remote') ? 'remote' : 'local', status: 'active' };
  for (const status of ['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'] as const) {
    if (present(params, status)) filter.status = status;
  }
  if (present(params, 'staff')) filter.roles = STAFF_ROLES;
  return sharedCriteria(params, filter);
}

const ORIGINS = ['local', 'remote'] as const;
const STATUSES = ['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'] as const;

/** v2: origin, status, permissions, role_ids, invited_by and the shared ones; an unknown
 * origin or status is Mastodon's 400. */
function v2Filter(params: Params): AdminAccountFilter | null {
  const filter: AdminAccountFilter = {};
  const origin = text(params, 'origin');
  if (origin !== undefined) {
    if (!(ORIGINS as readonly string[]).includes(origin)) throw badRequest(`Unknown origin: ${origin}`);
    filter.origin = origin as (typeof ORIGINS)[number];
  }
  const status = text(params, 'status');
  if (status !== undefined) {
    if (!(STATUSES as readonly string[]).includes(status)) throw badRequest(`Unknown status: ${status}`);
    filter.status = status as (typeof STATUSES)[number];
  }
  const roleIds = (strArray(params, 'role_ids') ?? []).filter((id) => id.trim() !== '').slice(0, 100);
  if (roleIds.length > 0) {
    filter.roles = ROLE_NAMES.filter((name) => roleIds.includes(roleOf(name).id));
  }
  if (str(params, 'permissions') === 'staff') filter.roles = STAFF_ROLES;
  // Invites are not kept here: nobody was invited by anyone.
  if (text(params, 'invited_by') !== undefined) return null;
  return sharedCriteria(params, filter);
}

export function adminAccountEndpoints(core: AppCore): Endpoint[] {
  const one = async (account: Account) => {
    const rendered = (await presentAdminAccounts(core, [account.id])).get(account.id);
    if (rendered === undefined) throw notFound();
    return json(rendered);
  };
  const list = (path: string, filterOf: (params: Params) => AdminAccountFilter | null): Endpoint => ({
    method: 'GET',
    path,
    auth: 'optional',
    scopes: ADMIN_READ,
    handle: async (request) => {
      userManager(request.caller.account);
      const params = request.query;
      const filter = filterOf(params);
      const wanted = page(params, LIMIT, LIMIT * 2);
      const accounts = filter === null ? [] : await core.storage.accounts.listForAdmin(filter, wanted);
      const rendered = await presentAdminAccounts(core, accounts.map((a) => a.id));
      const next = accounts.length > 0 && accounts.length === wanted.limit ? (accounts.at(-1)?.id ?? null) : null;
      const prev = accounts[0]?.id ?? null;
      return pagedJson(core, request, accounts.flatMap((a) => rendered.get(a.id) ?? []), { next, prev });
    },
  });
  const action = (name: string, run: (core: AppCore, caller: Account | null, id: string) => Promise<Account>): Endpoint => ({
    method: 'POST',
    path: `/api/v1/admin/accounts/:id/${name}`,
    auth: 'optional',
    scopes: ADMIN_WRITE,
    handle: async (request) => one(await run(core, request.caller.account, idOf(request))),
  });
  return [
    list('/api/v1/admin/accounts', v1Filter),
    list('/api/v2/admin/accounts', v2Filter),
    {
      method: 'GET',
      path: '/api/v1/admin/accounts/:id',
      auth: 'optional',
      scopes: ADMIN_READ,
      handle: async (request) => {
        const account = await findAccountForAdmin(core, idOf(request));
        userManager(request.caller.account);
        return one(account);
      },
    },
    action('approve', approveAccount),
    {
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/reject',
      auth: 'optional',
      scopes: ADMIN_WRITE,
      handle: async (request) => {
        await rejectAccount(core, request.caller.account, idOf(request));
        return json({});
      },
    },
    action('enable', enableAccount),
    action('unsilence', unsilenceAccount),
    action('unsuspend', unsuspendAccount),
    action('unsensitive', unsensitiveAccount),
    {
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/action',
      auth: 'optional',
      scopes: ADMIN_WRITE,
      handle: async (request) => {
        const params = paramsOf(request);
        await takeAccountAction(core, request.caller.account, idOf(request), {
          type: str(params, 'type'),
          reportId: str(params, 'report_id'),
          warningPresetId: str(params, 'warning_preset_id'),
          text: str(params, 'text'),
          sendEmailNotification: bool(params, 'send_email_notification'),
        });
        return json({});
      },
    },
  ];
}
