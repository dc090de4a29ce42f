// Telling the staff: about a new report ('admin.report'), as Mastodon does, every local account
// whose role may manage reports, unless an earlier report about the same account is still open
// (they were told then); about a new local account ('admin.sign_up'), everyone who may manage
// users, at sign-up, so that an account waiting for approval reaches those who approve it.

import type { Core } from '../context.ts';
import type { Account, Id, Report } from '../model.ts';
import { can } from '../moderation/roles.ts';
import { notify } from './notify.ts';

/** Tells every moderator who may handle reports, once for an account with open reports. */
export async function notifyStaff(core: Core, eventId: Id, report: Report): Promise<void> {
  const open = await core.storage.reports.list({ resolved: false, targetAccountId: report.targetAccountId }, { limit: 2 });
  if (open.some((r) => r.id !== report.id)) return;
  const staff = (await core.storage.accounts.listStaff()).filter((account) => can(account.role, 'manage_reports'));
  for (const moderator of staff) {
    await notify(core, eventId, { recipientId: moderator.id, type: 'admin.report', fromAccountId: report.accountId, status: null, reportId: report.id });
  }
}


/** Tells everyone who may manage users that `account` signed up. */
export async function notifyStaffOfSignUp(core: Core, eventId: Id, account: Account): Promise<void> {
  if (account.domain !== null) return;
  const staff = (await core.storage.accounts.listStaff()).filter((member) => can(member.role, 'manage_users'));
  for (const member of staff) await notify(core, eventId, { recipientId: member.id, type: 'admin.sign_up', fromAccountId: account.id, status: null });
}
