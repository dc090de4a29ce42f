// Grouped notifications (GET /api/v2/notifications, Mastodon 4.3). Rookery does not group:
// each notification is its own group, keyed `ungrouped-<id>` as Mastodon keys notifications
// it does not group, which clients render like a group of one.

import type { AccountJson } from './account.ts';
import type { NotificationJson } from './load.ts';
import type { StatusJson } from './status.ts';

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
}

export interface GroupedNotificationsJson {
  accounts: AccountJson[];
  statuses: StatusJson[];
  notification_groups: NotificationGroupJson[];
}

/** `paginated`: the page fields that a listing carries and a single group does not. */
export function renderGroup(n: NotificationJson, paginated: boolean): NotificationGroupJson {
  const group: NotificationGroupJson = {
    group_key: n.group_key,
    notifications_count: 1,
    type: n.type,
    most_recent_notification_id: n.id,
    sample_account_ids: [n.account.id],
  };
  if (paginated) {
    group.page_min_id = n.id;
    group.page_max_id = n.id;
    group.latest_page_notification_at = n.created_at;
  }
  if (n.status !== undefined) group.status_id = n.status.id;
  return group;
}

/** The groups with the accounts and statuses they refer to, each listed once. */
export function renderGrouped(notifications: readonly NotificationJson[], paginated: boolean): GroupedNotificationsJson {
  const accounts = new Map<string, AccountJson>();
  const statuses = new Map<string, StatusJson>();
  for (const n of notifications) {
    accounts.set(n.account.id, n.account);
    if (n.status !== undefined) statuses.set(n.status.id, n.status);
  }
  return {
    accounts: [...accounts.values()],
    statuses: [...statuses.values()],
    notification_groups: notifications.map((n) => renderGroup(n, paginated)),
  };
}

/** The group key of a notification id, and back (null for keys Rookery never issues). */
export function groupKeyOf(notificationId: string): string {
  return `ungrouped-${notificationId}`;
}

export function notificationIdOf(groupKey: string): string | null {
  const match = /^ungrouped-(\d+)$/.exec(groupKey);
  return match?.[1] ?? null;
}
