// Notification requests (Mastodon 4.3): the mentions a policy filtered, one request per sender.
// Accepting one lets the sender through from then on and brings their filtered notifications
// into the list (their private mentions into the conversations); dismissing one deletes them.

import type { Core } from '../context.ts';
import { notFound, unprocessable } from '../errors.ts';
import { isId } from '../ids.ts';
import { NOTIFICATION_POLICY_ACTIONS, type Account, type Id, type NotificationPolicy, type NotificationPolicyAction, type NotificationRequest } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { addToConversation } from '../conversations/conversations.ts';
import { policyOf } from './screening.ts';

/** Counts past which Mastodon stops counting (MAX_MEANINGFUL_COUNT). */
export const MEANINGFUL_COUNT = 100;
/** Requests one bulk accept or dismiss acts on at most. */
export const MAX_BULK = 100;
/** Filtered private mentions of one sender brought into conversations on accept, newest first. */
const MAX_MERGED_MENTIONS = 1000;

export type PolicyField = 'forNotFollowing' | 'forNotFollowers' | 'forNewAccounts' | 'forPrivateMentions' | 'forLimitedAccounts';

/** Changes some of the policy's fields; a value that is not an action is a 422 naming it. */
export async function updatePolicy(core: Core, viewer: Account, changes: Partial<Record<PolicyField, string>>): Promise<NotificationPolicy> {
  const policy = await policyOf(core, viewer.id);
  const next: NotificationPolicy = { ...policy };
  for (const [field, value] of Object.entries(changes) as [PolicyField, string | undefined][]) {
    if (value === undefined) continue;
    if (!(NOTIFICATION_POLICY_ACTIONS as readonly string[]).includes(value)) {
      throw unprocessable(`Validation failed: ${FIELD_NAMES[field]} is not included in the list`);
    }
    next[field] = value as NotificationPolicyAction;
  }
  await core.storage.notificationPolicies.setPolicy(next);
  return next;
}

const FIELD_NAMES: Record<PolicyField, string> = {
  forNotFollowing: 'For not following',
  forNotFollowers: 'For not followers',
  forNewAccounts: 'For new accounts',
  forPrivateMentions: 'For private mentions',
  forLimitedAccounts: 'For limited accounts',
};

export interface PolicySummary {
  pendingRequests: number;
  pendingNotifications: number;
}

/** What is waiting: requests (up to MEANINGFUL_COUNT) and their filtered mentions. */
export async function policySummary(core: Core, viewer: Account): Promise<PolicySummary> {
  const [pendingRequests, pendingNotifications] = await Promise.all([
    core.storage.notificationPolicies.countRequests(viewer.id, MEANINGFUL_COUNT),
    core.storage.notifications.count(viewer.id, { filtered: true, types: ['mention'] }, MEANINGFUL_COUNT * MEANINGFUL_COUNT),
  ]);
  return { pendingRequests, pendingNotifications: pendingRequests === 0 ? 0 : pendingNotifications };
}

/** How many filtered mentions a request holds (up to MEANINGFUL_COUNT). */
export function requestCount(core: Core, request: NotificationRequest): Promise<number> {
  return core.storage.notifications.count(request.accountId, { fromAccountId: request.fromAccountId, filtered: true, types: ['mention'] }, MEANINGFUL_COUNT);
}

export function listRequests(core: Core, viewer: Account, page: Page): Promise<Slice<NotificationRequest>> {
  return fillPage(page, (r) => r.id, (p) => core.storage.notificationPolicies.listRequests(viewer.id, p));
}

export async function findRequest(core: Core, viewer: Account, id: string): Promise<NotificationRequest> {
  const request = isId(id) ? await core.storage.notificationPolicies.getRequest(viewer.id, id) : null;
  if (request === null) throw notFound();
  return request;
}

export async function acceptRequest(core: Core, viewer: Account, request: NotificationRequest): Promise<void> {
  const { storage } = core;
  await storage.notificationPolicies.permit(viewer.id, request.fromAccountId, core.clock.now());
  const mentions = await storage.notifications.list(viewer.id, { fromAccountId: request.fromAccountId, filtered: true, types: ['mention'] }, { limit: MAX_MERGED_MENTIONS });
  const statuses = await storage.statuses.getMany(mentions.flatMap((n) => (n.statusId === null ? [] : [n.statusId])));
  for (const status of statuses) {
    if (status.visibility === 'direct') await addToConversation(core, viewer.id, status);
  }
  await storage.notifications.unfilterFrom(viewer.id, request.fromAccountId);
  await storage.notificationPolicies.deleteRequest(viewer.id, request.id);
}

export async function dismissRequest(core: Core, viewer: Account, request: NotificationRequest): Promise<void> {
  await core.storage.notifications.deleteWhere(viewer.id, { fromAccountId: request.fromAccountId, filtered: true });
  await core.storage.notificationPolicies.deleteRequest(viewer.id, request.id);
}

/** The viewer's requests among `ids` (others', unknown and malformed ones are passed over). */
export async function requestsAmong(core: Core, viewer: Account, ids: readonly string[]): Promise<NotificationRequest[]> {
  const found: NotificationRequest[] = [];
  for (const id of [...new Set(ids)].filter((x): x is Id => isId(x)).slice(0, MAX_BULK)) {
    const request = await core.storage.notificationPolicies.getRequest(viewer.id, id);
    if (request !== null) found.push(request);
  }
  return found;
}
