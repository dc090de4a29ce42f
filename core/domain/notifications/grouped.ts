// Reading notifications in groups (GET /api/v2/notifications, Mastodon 4.3): a page holds up to
// `limit` groups, each shown by its newest notification in the page's range (its oldest when
// paging up with min_id), then summarized over the whole group up to the page's newest
// notification: how many, the newest senders, the newest notification and its time.

import type { Core } from '../context.ts';
import { compareIds } from '../ids.ts';
import { listNotifications, type NotificationQuery } from '../inbox.ts';
import { NOTIFICATION_TYPES, type Account, type Id, type Millis, type Notification, type NotificationType } from '../model.ts';
import type { Page } from '../ports/storage.ts';
import { GROUPABLE_TYPES, effectiveGroupKey } from './grouping.ts';

/** Senders shown per group, as Mastodon's SAMPLE_ACCOUNTS_SIZE. */
export const SAMPLE_ACCOUNTS = 8;
/** Notifications read for one page at most: past that, a page of few groups is answered short
 * (the next page goes on from its last group). */
const MAX_SCANNED = 2000;
const BATCH = 200;
const LARGEST_ID = '9223372036854775807';

export interface GroupedQuery extends NotificationQuery {
  /** The types that group (the others are groups of their own); absent: all that can. */
  groupedTypes?: readonly string[] | undefined;
}

export interface NotificationGroup {
  groupKey: string;
  /** The notification that stands for the group in the page (its type and status are the group's). */
  notification: Notification;
  count: number;
  sampleAccountIds: Id[];
  mostRecentId: Id;
  /** In a listing: the group's notifications within the page's range. */
  page: { minId: Id; maxId: Id; latestAt: Millis } | null;
}

export interface GroupPage {
  groups: NotificationGroup[];
  next: Id | null;
  prev: Id | null;
}

export function groupedTypesOf(query: GroupedQuery): NotificationType[] {
  const asked = query.groupedTypes;
  if (asked === undefined || asked.length === 0) return [...GROUPABLE_TYPES];
  return NOTIFICATION_TYPES.filter((t) => asked.includes(t) && GROUPABLE_TYPES.includes(t));
}

/** The page's notifications, one per group: newest first, or (with minId) the groups right
 * above minId, oldest first as read. */
async function representatives(core: Core, viewer: Account, query: GroupedQuery, page: Page, grouped: readonly NotificationType[]): Promise<Notification[]> {
  const upward = page.minId !== undefined;
  const seen = new Set<string>();
  const picked: Notification[] = [];
  let cursor: Page = { ...page, limit: BATCH };
  for (let scanned = 0; scanned < MAX_SCANNED && picked.length < page.limit; ) {
    const slice = await listNotifications(core, viewer, query, cursor);
    const rows = upward ? [...slice.items].reverse() : slice.items;
    for (const n of rows) {
      const key = effectiveGroupKey(n, grouped);
      if (seen.has(key)) continue;
      seen.add(key);
      picked.push(n);
      if (picked.length >= page.limit) break;
    }
    scanned += BATCH;
    const edge = upward ? slice.prev : slice.next;
    if (edge === null || (upward ? slice.items.length < BATCH : slice.next === null)) break;
    cursor = upward ? { ...cursor, minId: edge } : { ...cursor, maxId: edge };
  }
  return upward ? picked.reverse() : picked;
}

export async function listNotificationGroups(core: Core, viewer: Account, query: GroupedQuery, page: Page): Promise<GroupPage> {
  if (page.limit <= 0) return { groups: [], next: null, prev: null };
  const grouped = groupedTypesOf(query);
  const reps = await representatives(core, viewer, query, page, grouped);
  const first = reps[0];
  const last = reps[reps.length - 1];
  if (first === undefined || last === undefined) return { groups: [], next: null, prev: null };
  // The range the page covers, as Mastodon sets it: the last page reaches down to since_id (or
  // the start), a short page read upward reaches up to max_id.
  let range: { from: Id | null; upTo: Id } = { from: last.id, upTo: first.id };
  if (reps.length < page.limit) {
    if (page.minId !== undefined) range = { from: last.id, upTo: page.maxId === undefined ? LARGEST_ID : predecessor(page.maxId) };
    else range = { from: page.sinceId === undefined ? '1' : successor(page.sinceId), upTo: first.id };
  }
  const groups = await summarize(core, viewer, reps, grouped, range);
  return { groups, next: last.id, prev: first.id };
}

/** One group, by its key, outside any page. */
export async function summarizeOne(core: Core, viewer: Account, representative: Notification): Promise<NotificationGroup> {
  const [group] = await summarize(core, viewer, [representative], GROUPABLE_TYPES, null);
  if (group === undefined) throw new Error('a group without its notification');
  return group;
}

async function summarize(
  core: Core,
  viewer: Account,
  reps: readonly Notification[],
  grouped: readonly NotificationType[],
  range: { from: Id | null; upTo: Id } | null,
): Promise<NotificationGroup[]> {
  const keys = reps.flatMap((n) => (effectiveGroupKey(n, grouped) === n.groupKey && n.groupKey !== null ? [n.groupKey] : []));
  const summaries = new Map(
    (keys.length === 0 ? [] : await core.storage.notifications.summarizeGroups(viewer.id, keys, range ?? { upTo: LARGEST_ID, from: null }, SAMPLE_ACCOUNTS)).map((s) => [s.groupKey, s]),
  );
  return reps.map((n) => {
    const key = effectiveGroupKey(n, grouped);
    const summary = summaries.get(key);
    if (summary === undefined) {
      return { groupKey: key, notification: n, count: 1, sampleAccountIds: [n.fromAccountId], mostRecentId: n.id, page: range === null ? null : { minId: n.id, maxId: n.id, latestAt: n.createdAt } };
    }
    return {
      groupKey: key,
      notification: n,
      count: summary.count,
      sampleAccountIds: summary.sampleAccountIds,
      mostRecentId: summary.mostRecentId,
      page: range === null ? null : { minId: summary.oldestFromId ?? n.id, maxId: summary.mostRecentId, latestAt: summary.mostRecentAt },
    };
  });
}

/** The number of groups among the notifications above `sinceId` (the marker), up to `limit`. */
export async function countUnreadGroups(core: Core, viewer: Account, query: GroupedQuery, sinceId: Id | undefined, limit: number): Promise<number> {
  if (limit <= 0) return 0;
  const reps = await representatives(core, viewer, query, { sinceId, limit }, groupedTypesOf(query));
  return reps.length;
}

const successor = (id: Id): Id => (BigInt(id) + 1n).toString();
const predecessor = (id: Id): Id => (compareIds(id, '1') <= 0 ? '0' : (BigInt(id) - 1n).toString());
