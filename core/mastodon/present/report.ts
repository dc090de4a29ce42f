// Mastodon's Report entity (what the reporter gets back, and what an 'admin.report'
// notification carries) and the admin Report entity (what moderators read, with the admin Account entity for each
// account it names).

import type { AppCore } from '../context.ts';
import type { Account, Id, Report } from '../../domain/model.ts';
import { renderRules } from './instance.ts';
import { iso } from '../entities/time.ts';
import { presentAccounts, presentStatuses } from './load.ts';
import { renderRole, type AccountJson, type RoleJson } from './account.ts';
import type { StatusJson } from './status.ts';
import { base, renderReport, type ReportJson } from './report-entity.ts';

/** Reports as the Report entity; one whose target is gone is left out. */
export async function presentReports(core: AppCore, reports: readonly Report[]): Promise<ReportJson[]> {
  const targets = new Map((await presentAccounts(core, [...new Set(reports.map((r) => r.targetAccountId))])).map((a) => [a.id, a]));
  return reports.flatMap((report) => {
    const target = targets.get(report.targetAccountId);
    return target === undefined ? [] : [renderReport(report, target)];
  });
}

export interface AdminAccountJson {
  id: string;
  username: string;
  domain: string | null;
  created_at: string;
  email: string | null;
  ip: string | null;
  ips: never[];
  locale: string | null;
  invite_request: string | null;
  role: RoleJson | null;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  silenced: boolean;
  suspended: boolean;
  sensitized: boolean;
  account: AccountJson;
  created_by_application_id?: string;
}

/** The admin Account entity for each id (sign-in facts for local users); missing accounts left out. */
export async function presentAdminAccounts(core: AppCore, ids: readonly Id[]): Promise<Map<Id, AdminAccountJson>> {
  const wanted = [...new Set(ids)];
  const accounts = new Map((await core.storage.accounts.getMany(wanted)).map((a) => [a.id, a]));
  const rendered = new Map((await presentAccounts(core, wanted)).map((a) => [a.id, a]));
  const out = new Map<Id, AdminAccountJson>();
  const locals = wanted.filter((id) => accounts.get(id)?.domain === null);
  const users = new Map(await Promise.all(locals.map(async (id) => [id, await core.storage.accounts.getUser(id)] as const)));
  for (const id of wanted) {
    const account = accounts.get(id) as Account | undefined;
    const json = rendered.get(id);
    if (account === undefined || json === undefined) continue;
    const user = users.get(id) ?? null;
    const admin: AdminAccountJson = {
      id,
      username: account.username,
      domain: account.domain,
      created_at: iso(account.createdAt),
      email: user?.email ?? null,
      ip: null,
      ips: [],
      locale: user?.locale ?? null,
      invite_request: null,
      role: user === null ? null : renderRole(account.role),
      confirmed: user !== null && user.confirmedAt !== null,
      approved: user?.approved ?? false,
      disabled: user?.disabled ?? false,
      silenced: false,
      suspended: false,
      sensitized: false,
      account: json,
    };
    if (user?.createdByApplicationId) admin.created_by_application_id = user.createdByApplicationId;
    out.set(id, admin);
  }
  return out;
}

export interface AdminReportJson {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: string;
  comment: string;
  forwarded: boolean;
  created_at: string;
  updated_at: string;
  account: AdminAccountJson | null;
  target_account: AdminAccountJson | null;
  assigned_account: AdminAccountJson | null;
  action_taken_by_account: AdminAccountJson | null;
  statuses: StatusJson[];
  rules: { id: string; text: string; hint: string }[];
}

/** The admin Report entity, for a moderator (`viewer`): the statuses as that moderator may see them. */
export async function presentAdminReports(core: AppCore, reports: readonly Report[], viewer: Account): Promise<AdminReportJson[]> {
  const ids = reports.flatMap((r) => [r.accountId, r.targetAccountId, r.assignedAccountId, r.actionTakenByAccountId].filter((id): id is Id => id !== null));
  const accounts = await presentAdminAccounts(core, ids);
  const statusIds = [...new Set(reports.flatMap((r) => r.statusIds))];
  const statuses = new Map((await presentStatuses(core, await core.storage.statuses.getMany(statusIds), viewer)).map((s) => [s.id, s]));
  const rules = renderRules(core.config);
  const account = (id: Id | null) => (id === null ? null : (accounts.get(id) ?? null));
  return reports.map((report) => ({
    ...base(report),
    updated_at: iso(report.updatedAt),
    account: account(report.accountId),
    target_account: account(report.targetAccountId),
    assigned_account: account(report.assignedAccountId),
    action_taken_by_account: account(report.actionTakenByAccountId),
    statuses: report.statusIds.flatMap((id) => statuses.get(id) ?? []),
    rules: rules.filter((rule) => report.ruleIds?.includes(rule.id) ?? false),
  }));
}
