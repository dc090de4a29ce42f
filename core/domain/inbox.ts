// Reading one's notifications (core/notifications.ts creates them): paged lists with Mastodon's
// type filters, single ones, dismissing, and the unread count against the notifications marker.

import type { Core } from './context.ts';
import { notFound } from './errors.ts';
import { isId } from './ids.ts';
import { NOTIFICATION_TYPES, type Account, type Notification, type NotificationType } from './model.ts';
import { fillPage, type Slice } from './paging.ts';
import type { NotificationFilter, Page } from './ports/storage.ts';
import { isSuspended } from './policy.ts';
import { filterVisible } from './viewer.ts';

export interface NotificationQuery {
  /** Only these types (unknown ones match nothing); absent or empty: every type. */
  types?: readonly string[] | undefined;
  excludeTypes?: readonly string[] | undefined;
  /** Only notifications caused by this account (filtered ones included, as in Mastodon). */
  accountId?: string | undefined;
  /** Also the notifications the policy filtered. */
  includeFiltered?: boolean | undefined;
  /** Only the notifications of this group. */
  groupKey?: string | undefined;
}

function known(types: readonly string[]): NotificationType[] {
  return NOTIFICATION_TYPES.filter((t) => types.includes(t));
}

/** The types a notification list shows, as Mastodon picks them: the requested types (or all)
 * minus the excluded ones. */
export function notificationFilter(query: NotificationQuery): NotificationFilter | null {
  const filter: NotificationFilter = {};
  if (query.types !== undefined && query.types.length > 0) filter.types = known(query.types);
  if (query.excludeTypes !== undefined && query.excludeTypes.length > 0) filter.excludeTypes = known(query.excludeTypes);
  if (query.accountId !== undefined) {
    if (!isId(query.accountId)) return null;
    filter.fromAccountId = query.accountId;
  } else if (query.includeFiltered !== true) filter.filtered = false;
  if (query.groupKey !== undefined) filter.groupKey = query.groupKey;
  return filter;
}

/** The notifications of `viewer` that may be shown to them: their account still exists and is not suspended, and
 * their status (if any) is one the viewer can see now, by the one visibility policy. A status
 * that was deleted, or that left the viewer's sight since (a mention edited away, a block, an
 * unfollow for followers-only posts), takes its notification out of every read. */
export async function shownNotifications(core: Core, viewer: Account, rows: readonly Notification[]): Promise<Notification[]> {
  if (rows.length === 0) return [];
  const statusIds = [...new Set(rows.flatMap((n) => (n.statusId === null ? [] : [n.statusId])))];
  const [accounts, statuses] = await Promise.all([
    core.storage.accounts.getMany([...new Set(rows.map((n) => n.fromAccountId))]),
    statusIds.length === 0 ? Promise.resolve([]) : core.storage.statuses.getMany(statusIds),
  ]);
  // A suspended sender's notifications are gone with it (and back when it is unsuspended).
  const accountIds = new Set(accounts.filter((a) => !isSuspended(a)).map((a) => a.id));
  const visible = new Set((await filterVisible(core, viewer, statuses)).map((s) => s.id));
  return rows.filter((n) => accountIds.has(n.fromAccountId) && (n.statusId === null || visible.has(n.statusId)));
}

/** Notifications that may be shown (shownNotifications), newest first. */
export async function listNotifications(core: Core, viewer: Account, query: NotificationQuery, page: Page): Promise<Slice<Notification>> {
  const filter = notificationFilter(query);
  if (filter === null) return { items: [], next: null, prev: null };
  const keep = (rows: Notification[]) => shownNotifications(core, viewer, rows);
  return fillPage(page, (n) => n.id, (p) => core.storage.notifications.list(viewer.id, filter, p), keep);
}

/** One of the viewer's notifications, to read: 404 when it is not theirs, or when it may not be
 * shown (shownNotifications). */
export async function findNotification(core: Core, viewer: Account, id: string): Promise<Notification> {
  const [notification] = await shownNotifications(core, viewer, [await ownNotification(core, viewer, id)]);
  if (notification === undefined) throw notFound();
  return notification;
}

/** One of the viewer's notifications, shown or not (dismissing one is always theirs to do). */
export async function ownNotification(core: Core, viewer: Account, id: string): Promise<Notification> {
  const notification = isId(id) ? await core.storage.notifications.get(viewer.id, id) : null;
  if (notification === null) throw notFound();
  return notification;
}

export async function dismissNotification(core: Core, viewer: Account, id: string): Promise<void> {
  if (!isId(id) || !(await core.storage.notifications.dismiss(viewer.id, id))) throw notFound();
}

export async function clearNotifications(core: Core, viewer: Account): Promise<void> {
  await core.storage.notifications.clear(viewer.id);
}

/** Notifications newer than the notifications marker, counted up to `limit`. Counted as the
 * list shows them (notifications of deleted statuses stay in the store but are not shown), so
 * the badge matches the list; the store's own count is the quick path when nothing is new. */
export async function unreadNotificationCount(core: Core, viewer: Account, limit: number): Promise<number> {
  const [marker] = await core.storage.markers.get(viewer.id, ['notifications']);
  const since = marker !== undefined && isId(marker.lastReadId) ? marker.lastReadId : undefined;
  if ((await core.storage.notifications.countSince(viewer.id, since ?? null, limit)) === 0) return 0;
  return (await listNotifications(core, viewer, {}, { sinceId: since, limit })).items.length;
}
