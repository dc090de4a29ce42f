// Reports (Mastodon 4.4's ReportService and Report model): a user tells the moderators about
// an account and some of its statuses; the moderators are notified ('admin.report') unless an
// earlier report about the same account is still open; moderators then assign, categorise,
// resolve and reopen it, each change recorded in the audit log with the change.

import type { Core } from '../context.ts';
import { forbidden, notFound, RookeryError } from '../errors.ts';
import { isId } from '../ids.ts';
import { REPORT_CATEGORIES, type Account, type AdminAction, type Id, type Report, type ReportCategory } from '../model.ts';
import { filterVisible } from '../viewer.ts';
import { can } from './roles.ts';

/** The longest comment a local report may carry (Mastodon's limit). */
export const COMMENT_LIMIT = 1000;
/** Bounds what one request may make us read: more than any report a person files by hand. */
export const STATUS_IDS_LIMIT = 100;

export interface ReportInput {
  accountId: string | undefined;
  statusIds: string[] | undefined;
  comment: string | undefined;
  category: string | undefined;
  ruleIds: string[] | undefined;
  forward: boolean | undefined;
}

const invalid = (message: string) => new RookeryError(422, `Validation failed: ${message}`);

function checkCategory(category: string): ReportCategory {
  if (!(REPORT_CATEGORIES as readonly string[]).includes(category)) throw invalid('Category is not included in the list');
  return category as ReportCategory;
}

/** Rule ids are the instance's rules ("1" …); a violation must name at least one of them. */
function checkRules(core: Core, ruleIds: readonly string[]): string[] {
  const known = new Set(core.config.rules.map((_, i) => String(i + 1)));
  const unique = [...new Set(ruleIds)];
  if (unique.length === 0 || unique.some((id) => !known.has(id))) throw invalid('Rule ids does not reference valid rules');
  return unique;
}

export async function createReport(core: Core, reporter: Account, input: ReportInput): Promise<Report> {
  const target = input.accountId !== undefined && isId(input.accountId) ? await core.storage.accounts.get(input.accountId) : null;
  if (target === null) throw notFound();
  const comment = input.comment ?? '';
  if ([...comment].length > COMMENT_LIMIT) throw invalid(`Comment is too long (maximum is ${COMMENT_LIMIT} characters)`);
  const wanted = [...new Set(input.statusIds ?? [])];
  if (wanted.length > STATUS_IDS_LIMIT) throw invalid(`Status ids is too long (maximum is ${STATUS_IDS_LIMIT} statuses)`);
  // Only statuses of the reported account that the reporter may see; any other id: 404, as
  // Mastodon's find does.
  if (wanted.some((id) => !isId(id))) throw notFound();
  const found = await filterVisible(core, reporter, (await core.storage.statuses.getMany(wanted)).filter((s) => s.accountId === target.id));
  if (found.length !== wanted.length) throw notFound();
  // Naming rules makes the report a violation, whatever category was sent.
  const ruleIds = input.ruleIds !== undefined && input.ruleIds.length > 0 ? checkRules(core, input.ruleIds) : null;
  const category = ruleIds !== null ? 'violation' : checkCategory(input.category === undefined || input.category === '' ? 'other' : input.category);
  if (category === 'violation' && ruleIds === null) throw invalid('Rule ids does not reference valid rules');
  const now = core.clock.now();
  const report: Report = {
    id: core.ids.next(),
    accountId: reporter.id,
    targetAccountId: target.id,
    statusIds: wanted,
    comment,
    category,
    ruleIds,
    // A copy goes to a remote account's server when asked (federation sends it).
    forwarded: input.forward === true && target.domain !== null,
    assignedAccountId: null,
    actionTakenAt: null,
    actionTakenByAccountId: null,
    createdAt: now,
    updatedAt: now,
  };
  await core.storage.reports.create(report, (created) => core.record({ type: 'report.created', report: created }));
  return report;
}

// ---- what moderators do ---------------------------------------------------------------------

/** The caller, when it may handle reports; Mastodon's 403 otherwise (no user, no permission). */
export function moderator(caller: Account | null): Account {
  if (caller === null || !can(caller.role, 'manage_reports')) throw forbidden();
  return caller;
}

export interface ReportChange {
  category?: string;
  ruleIds?: string[];
}

async function change(core: Core, by: Account, reportId: string, action: string, patch: Parameters<Core['storage']['reports']['update']>[1]): Promise<Report> {
  const now = core.clock.now();
  const entry: AdminAction = { id: core.ids.next(), accountId: by.id, action, targetType: 'Report', targetId: reportId, createdAt: now };
  const updated = isId(reportId) ? await core.storage.reports.update(reportId, { ...patch, updatedAt: now }, entry) : null;
  if (updated === null) throw notFound();
  return updated;
}

export async function getReport(core: Core, reportId: string): Promise<Report> {
  const report = isId(reportId) ? await core.storage.reports.get(reportId) : null;
  if (report === null) throw notFound();
  return report;
}

/** PUT: category and rule ids, under the model's rules (rules only on a violation). */
export async function updateReport(core: Core, by: Account, reportId: string, input: ReportChange): Promise<Report> {
  const current = await getReport(core, reportId);
  const category = input.category === undefined ? current.category : checkCategory(input.category);
  let ruleIds = input.ruleIds === undefined ? current.ruleIds : input.ruleIds.length === 0 ? null : input.ruleIds;
  if (category !== 'violation') {
    if (input.ruleIds !== undefined && input.ruleIds.length > 0) throw invalid('Rule ids must be blank');
    ruleIds = null;
  } else {
    ruleIds = checkRules(core, ruleIds ?? []);
  }
  return change(core, by, reportId, 'update', { category, ruleIds });
}

export const assignToSelf = (core: Core, by: Account, reportId: string) => change(core, by, reportId, 'assigned_to_self', { assignedAccountId: by.id });
export const unassign = (core: Core, by: Account, reportId: string) => change(core, by, reportId, 'unassigned', { assignedAccountId: null });
export const resolve = (core: Core, by: Account, reportId: string) =>
  change(core, by, reportId, 'resolve', { actionTakenAt: core.clock.now(), actionTakenByAccountId: by.id });
export const reopen = (core: Core, by: Account, reportId: string) => change(core, by, reportId, 'reopen', { actionTakenAt: null, actionTakenByAccountId: null });

// ---- reports from other servers ---------------------------------------------------------------

/** The longest comment kept from another server's Flag (Mastodon bounds only local ones; ours
 * bounds every input). */
export const REMOTE_COMMENT_LIMIT = 5_000;

export interface RemoteReportInput {
  /** The remote account that sent the Flag (often its server's instance actor). */
  reporterId: Id;
  /** The local account reported. */
  targetAccountId: Id;
  /** Local statuses named by the Flag; those not written by the target are left out. */
  statusIds: readonly Id[];
  comment: string;
}

/** A Flag received from another server becomes a report here, as Mastodon's
 * ActivityPub::Activity::Flag does: about a local, live account, with the named statuses of
 * that account, category "other", never forwarded; the moderators are told as for any report.
 * null when the reporter is not a remote account or the target is not a live local one. */
export async function receiveRemoteReport(core: Core, input: RemoteReportInput): Promise<Report | null> {
  const [reporter, target] = await Promise.all([core.storage.accounts.get(input.reporterId), core.storage.accounts.get(input.targetAccountId)]);
  if (reporter === null || reporter.domain === null || target === null || target.domain !== null || target.deletedAt !== null) return null;
  const wanted = [...new Set(input.statusIds)].filter(isId).slice(0, STATUS_IDS_LIMIT);
  const statuses = (await core.storage.statuses.getMany(wanted)).filter((status) => status.accountId === target.id && status.local);
  const now = core.clock.now();
  const report: Report = {
    id: core.ids.next(),
    accountId: reporter.id,
    targetAccountId: target.id,
    statusIds: wanted.filter((id) => statuses.some((status) => status.id === id)),
    comment: [...input.comment].slice(0, REMOTE_COMMENT_LIMIT).join(''),
    category: 'other',
    ruleIds: null,
    forwarded: false,
    assignedAccountId: null,
    actionTakenAt: null,
    actionTakenByAccountId: null,
    createdAt: now,
    updatedAt: now,
  };
  await core.storage.reports.create(report, (created) => core.record({ type: 'report.created', report: created }));
  return report;
}
