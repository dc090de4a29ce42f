// Which notifications group together, as Mastodon 4.3 groups them: favourites and boosts of one
// status, and follows, that arrive within a span of hours share a key; every other notification
// is a group of its own ("ungrouped-<id>"). A group starts at the hour its first notification
// arrived and takes later ones until MAX_SPAN_HOURS after that hour; once nothing joined it for
// that long, the next one starts a new group.

import type { Core } from '../context.ts';
import type { Id, Millis, Notification, NotificationType } from '../model.ts';

export const GROUPABLE_TYPES: readonly NotificationType[] = ['favourite', 'reblog', 'follow'];
const MAX_SPAN_HOURS = 12;
const HOUR = 3_600_000;

/** The key a listing shows for a notification: its group's, unless its type is not one of the
 * `groupedTypes` asked for (then it is a group of its own). */
export function effectiveGroupKey(n: Notification, groupedTypes: readonly NotificationType[] = GROUPABLE_TYPES): string {
  return n.groupKey !== null && groupedTypes.includes(n.type) ? n.groupKey : ungroupedKey(n.id);
}

export const ungroupedKey = (id: Id): string => `ungrouped-${id}`;

/** The notification id behind an "ungrouped-<id>" key, or null for another key. */
export function ungroupedId(groupKey: string): Id | null {
  return /^ungrouped-(\d{1,19})$/.exec(groupKey)?.[1] ?? null;
}

function prefixOf(type: NotificationType, statusId: Id | null): string | null {
  if (type === 'follow') return 'follow';
  if ((type === 'favourite' || type === 'reblog') && statusId !== null) return `${type}-${statusId}`;
  return null;
}

/** The group key of a new notification (null for a type that is never grouped). */
export async function groupKeyFor(core: Core, recipientId: Id, type: NotificationType, statusId: Id | null, at: Millis): Promise<string | null> {
  const prefix = prefixOf(type, statusId);
  if (prefix === null) return null;
  let hour = Math.floor(at / HOUR);
  const previous = await core.storage.notifications.latestGrouped(recipientId, type, statusId);
  const previousHour = previous?.groupKey?.startsWith(`${prefix}-`) ? Number(previous.groupKey.slice(prefix.length + 1)) : NaN;
  // The group of the previous notification is still open: it arrived less than the span ago,
  // and the new one is within the span of the group's first hour.
  if (previous !== null && Number.isSafeInteger(previousHour) && at - previous.createdAt < MAX_SPAN_HOURS * HOUR && hour < previousHour + MAX_SPAN_HOURS) {
    hour = previousHour;
  }
  return `${prefix}-${hour}`;
}
