// Grouped notifications (GET /api/v2/notifications and one group by key, Mastodon 4.3): the
// groups, with every account and status they refer to listed once beside them. With
// expand_accounts=partial_avatars only the newest sender of each group is a full account; the
// other senders come as partial accounts (what an avatar row needs).

import type { AppCore } from '../context.ts';
import type { Account, Id } from '../../domain/model.ts';
import type { NotificationGroup } from '../../domain/notifications/grouped.ts';
import type { AccountJson } from './account.ts';
import { presentAccounts, presentNotifications } from './load.ts';
import type { StatusJson } from './status.ts';
import type { ReportJson } from './report-entity.ts';

export interface NotificationGroupJson {
  group_key: string;
  notifications_count: number;
  type: string;
  most_recent_notification_id: string;
  page_min_id?: string;
  page_max_id?: string;
  latest_page_notification_at?: string;
  sample_account_ids: string[];
  status_id?: string;
  /** An 'admin.report' group's report (the Report entity). */
  report?: ReportJson;
}

export type PartialAccountJson = Pick<AccountJson, 'id' | 'acct' | 'locked' | 'bot' | 'url' | 'avatar' | 'avatar_static'>;

export interface GroupedNotificationsJson {
  accounts: AccountJson[];
  partial_accounts?: PartialAccountJson[];
  statuses: StatusJson[];
  notification_groups: NotificationGroupJson[];
}

function partial(a: AccountJson): PartialAccountJson {
  return { id: a.id, acct: a.acct, locked: a.locked, bot: a.bot, url: a.url, avatar: a.avatar, avatar_static: a.avatar_static };
}

/** Groups whose notification can no longer be shown (its status was deleted or left the
 * viewer's sight) are left out, as the v1 list leaves the notification out. */
export async function presentGroups(core: AppCore, viewer: Account, groups: readonly NotificationGroup[], partialAvatars = false): Promise<GroupedNotificationsJson> {
  const rendered = await presentNotifications(core, groups.map((g) => g.notification), viewer);
  const byId = new Map(rendered.map((n) => [n.id, n]));
  const shown = groups.filter((g) => byId.has(g.notification.id));
  const senderIds = [...new Set(shown.flatMap((g) => g.sampleAccountIds))];
  const accounts = new Map((await presentAccounts(core, senderIds)).map((a) => [a.id, a]));
  const statuses = new Map<string, StatusJson>();
  const full = new Map<Id, AccountJson>();
  const partials = new Map<Id, PartialAccountJson>();
  const notificationGroups = shown.map((g) => {
    const n = byId.get(g.notification.id);
    if (n?.status !== undefined) statuses.set(n.status.id, n.status);
    const samples = g.sampleAccountIds.filter((id) => accounts.has(id));
    samples.forEach((id, index) => {
      const account = accounts.get(id);
      if (account !== undefined && (!partialAvatars || index === 0)) full.set(id, account);
    });
    const json: NotificationGroupJson = {
      group_key: g.groupKey,
      notifications_count: g.count,
      type: g.notification.type,
      most_recent_notification_id: g.mostRecentId,
      ...(g.page === null ? {} : { page_min_id: g.page.minId, page_max_id: g.page.maxId, latest_page_notification_at: new Date(g.page.latestAt).toISOString() }),
      sample_account_ids: samples,
      ...(n?.status === undefined ? {} : { status_id: n.status.id }),
      ...(n?.report === undefined ? {} : { report: n.report }),
    };
    return json;
  });
  if (partialAvatars) {
    for (const id of senderIds) {
      const account = accounts.get(id);
      if (account !== undefined && !full.has(id)) partials.set(id, partial(account));
    }
  }
  return {
    accounts: [...full.values()],
    ...(partialAvatars ? { partial_accounts: [...partials.values()] } : {}),
    statuses: [...statuses.values()],
    notification_groups: notificationGroups,
  };
}
