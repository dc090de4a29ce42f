// What moderators do to accounts (Mastodon 4.4's admin accounts API, Admin::AccountAction and
// the account and user policies): approve or reject a pending sign-up, enable a disabled user,
// act on an account (none, sensitive, disable, silence, suspend: with a report, the open reports
// about it are resolved) and undo it. Each change is recorded in the audit log; what the states
// mean to everyone else is policy.ts's (isSuspended, isSilenced, isSensitized, maySignIn).

import type { Core } from '../context.ts';
import { forbidden, notFound, RookeryError } from '../errors.ts';
import { isId } from '../ids.ts';
import type { Account, AdminTargetType, User } from '../model.ts';
import { isSensitized, isSilenced, isSuspended } from '../policy.ts';
import type { DomainEvent } from '../events/events.ts';
import { moderationWarningMail } from '../mail/messages.ts';
import { queueMail } from '../mail/queue.ts';
import { getReport, resolve } from './reports.ts';
import { can, roleOf } from './roles.ts';
import { adminAction } from './server-blocks.ts';

export const ACCOUNT_ACTION_TYPES = ['none', 'disable', 'sensitive', 'silence', 'suspend'] as const;
export type AccountActionType = (typeof ACCOUNT_ACTION_TYPES)[number];

/** The most open reports one action resolves (more than anyone files about one account). */
const REPORTS_RESOLVED_LIMIT = 200;

/** The caller, when its role may manage users (what Mastodon asks to list or show accounts); 403
 * otherwise. The actions below look the account up first (404), then ask this (403), as
 * Mastodon's controllers do. */
export function userManager(caller: Account | null): Account {
  if (caller === null || !can(caller.role, 'manage_users')) throw forbidden();
  return caller;
}

export async function findAccountForAdmin(core: Core, id: string): Promise<Account> {
  const account = isId(id) ? await core.storage.accounts.get(id) : null;
  if (account === null) throw notFound();
  return account;
}

/** Mastodon's role.overrides?: a remote account has no role; a local one is overridden by a
 * role placed above its own (everyone's is the lowest). */
function overrides(by: Account, target: Account): boolean {
  return target.domain !== null || roleOf(by.role).position > roleOf(target.role).position;
}

/** A local account's user (approve, reject, enable and disable need one); 403 otherwise. */
async function localUser(core: Core, account: Account): Promise<User> {
  const user = account.domain === null ? await core.storage.accounts.getUser(account.id) : null;
  if (user === null) throw forbidden();
  return user;
}

async function record(core: Core, by: Account, action: string, targetType: AdminTargetType, targetId: string): Promise<void> {
  await core.storage.serverBlocks.record(adminAction(core, by, action, targetType, targetId));
}

type ModerationPatch = Partial<Pick<Account, 'suspendedAt' | 'silencedAt' | 'sensitizedAt'>>;

/** Changes an account's moderation state; 'account.updated' goes with it (renderings and the
 * actor other servers hold are refreshed), and `more` events besides. */
async function moderate(core: Core, account: Account, patch: ModerationPatch, more: DomainEvent[] = []): Promise<Account> {
  const updated = await core.storage.accounts.update(account.id, patch, {
    outbox: (changed) => (changed === null ? [] : [...core.record({ type: 'account.updated', account: changed }), ...more.flatMap((event) => core.record(event))]),
  });
  if (updated === null) throw notFound();
  return updated;
}

export async function approveAccount(core: Core, caller: Account | null, id: string): Promise<Account> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  const user = await localUser(core, account);
  if (user.approved) throw forbidden();
  await core.storage.accounts.updateUser(account.id, { approved: true });
  await record(core, by, 'approve', 'User', account.id);
  return account;
}

/** Deletes the pending sign-up (its account and user). */
export async function rejectAccount(core: Core, caller: Account | null, id: string): Promise<void> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  const user = await localUser(core, account);
  if (user.approved || !(await core.storage.accounts.removeUnapproved(account.id))) throw forbidden();
  await record(core, by, 'reject', 'User', account.id);
}

export async function enableAccount(core: Core, caller: Account | null, id: string): Promise<Account> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  const user = await localUser(core, account);
  if (user.disabled) {
    await core.storage.accounts.updateUser(account.id, { disabled: false });
    await record(core, by, 'enable', 'User', account.id);
  }
  return account;
}

export async function unsilenceAccount(core: Core, caller: Account | null, id: string): Promise<Account> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  if (!isSilenced(account)) return account;
  const updated = await moderate(core, account, { silencedAt: null });
  await record(core, by, 'unsilence', 'Account', account.id);
  return updated;
}

export async function unsensitiveAccount(core: Core, caller: Account | null, id: string): Promise<Account> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  if (!isSensitized(account)) return account;
  const updated = await moderate(core, account, { sensitizedAt: null });
  await record(core, by, 'unsensitive', 'Account', account.id);
  return updated;
}

/** Only a suspended account can be unsuspended (Mastodon's policy: 403 otherwise). */
export async function unsuspendAccount(core: Core, caller: Account | null, id: string): Promise<Account> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  if (!isSuspended(account)) throw forbidden();
  const updated = await moderate(core, account, { suspendedAt: null });
  await record(core, by, 'unsuspend', 'Account', account.id);
  return updated;
}

export interface AccountActionInput {
  type: string | undefined;
  reportId: string | undefined;
  warningPresetId: string | undefined;
  text: string | undefined;
  /** Mail the user a warning (local accounts; default true). */
  sendEmailNotification: boolean | undefined;
}

/** The longest warning text taken (bounds what one request stores and mails). */
export const WARNING_TEXT_LIMIT = 5000;

function checkType(type: string | undefined): AccountActionType {
  if (type === undefined || type === '') throw new RookeryError(422, "Validation failed: Type can't be blank, Type is not included in the list");
  if (!(ACCOUNT_ACTION_TYPES as readonly string[]).includes(type)) throw new RookeryError(422, 'Validation failed: Type is not included in the list');
  return type as AccountActionType;
}

/** POST /api/v1/admin/accounts/:id/action: acts on the account, then resolves the report given
 * (type none) or every open report about the account (any other type). */
export async function takeAccountAction(core: Core, caller: Account | null, id: string, input: AccountActionInput): Promise<void> {
  const account = await findAccountForAdmin(core, id);
  const by = userManager(caller);
  const type = checkType(input.type);
  const report = input.reportId === undefined || input.reportId === '' ? null : await getReport(core, input.reportId);
  // No warning presets exist here: naming one names a record that is not found.
  if (input.warningPresetId !== undefined && input.warningPresetId !== '') throw notFound();
  const text = input.text ?? '';
  if ([...text].length > WARNING_TEXT_LIMIT) throw new RookeryError(422, `Validation failed: Text is too long (maximum is ${WARNING_TEXT_LIMIT} characters)`);
  const moderatesUsers = can(by.role, 'manage_users', 'manage_reports') && overrides(by, account);
  const now = core.clock.now();
  switch (type) {
    case 'none':
      if (text !== '') await record(core, by, 'warn', 'Account', account.id);
      break;
    case 'disable': {
      if (!can(by.role, 'manage_users') || !overrides(by, account)) throw forbidden();
      const user = await localUser(core, account);
      await record(core, by, 'disable', 'User', account.id);
      if (!user.disabled) {
        await core.storage.accounts.updateUser(account.id, { disabled: true }, () => core.record({ type: 'account.disabled', accountId: account.id }));
      }
      break;
    }
    case 'sensitive':
      if (!moderatesUsers) throw forbidden();
      await record(core, by, 'sensitive', 'Account', account.id);
      if (!isSensitized(account)) await moderate(core, account, { sensitizedAt: now });
      break;
    case 'silence':
      if (!moderatesUsers) throw forbidden();
      await record(core, by, 'silence', 'Account', account.id);
      if (!isSilenced(account)) await moderate(core, account, { silencedAt: now });
      break;
    case 'suspend':
      if (!moderatesUsers) throw forbidden();
      await record(core, by, 'suspend', 'Account', account.id);
      // Its live streams end now (the fan-out kills the account's connections).
      if (!isSuspended(account)) await moderate(core, account, { suspendedAt: now }, [{ type: 'account.disabled', accountId: account.id }]);
      break;
  }
  await resolveReports(core, by, account, type, report?.id ?? null);
  if (input.sendEmailNotification !== false && account.domain === null) {
    const user = await core.storage.accounts.getUser(account.id);
    if (user !== null) await queueMail(core, moderationWarningMail(core, user, account.username, type, text));
  }
}

async function resolveReports(core: Core, by: Account, account: Account, type: AccountActionType, reportId: string | null): Promise<void> {
  let ids: string[];
  if (type === 'none') {
    ids = reportId === null ? [] : [reportId];
  } else {
    const open = await core.storage.reports.list({ resolved: false, targetAccountId: account.id }, { limit: REPORTS_RESOLVED_LIMIT });
    ids = open.map((r) => r.id);
  }
  for (const id of ids) await resolve(core, by, id);
}
