// The recipient's notification policy (Mastodon 4.3): notifications from people they do not
// follow, who do not follow them (or only began to lately), new accounts, private mentions out of
// the blue and limited accounts are accepted, filtered (held back as notification requests) or
// dropped, as the recipient chose. A sender the recipient accepted a request from passes.

import type { Core } from '../context.ts';
import type { Account, Id, NotificationPolicy, NotificationPolicyAction, NotificationType, Status } from '../model.ts';

const DAY = 24 * 3_600_000;
const NEW_ACCOUNT_MS = 30 * DAY;
const NEW_FOLLOWER_MS = 3 * DAY;
/** How far up a thread a private mention looks for the recipient's own private mention of the sender. */
const THREAD_DEPTH = 100;

/** The types a policy applies to; the others (a followed account's post, polls, edits) always pass. */
const FILTERABLE: ReadonlySet<NotificationType> = new Set(['mention', 'reblog', 'follow', 'follow_request', 'favourite', 'quote']);

export function defaultPolicy(accountId: Id): NotificationPolicy {
  return { accountId, forNotFollowing: 'accept', forNotFollowers: 'accept', forNewAccounts: 'accept', forPrivateMentions: 'filter', forLimitedAccounts: 'filter' };
}

export async function policyOf(core: Core, accountId: Id): Promise<NotificationPolicy> {
  return (await core.storage.notificationPolicies.getPolicy(accountId)) ?? defaultPolicy(accountId);
}

export interface Screened {
  recipient: Account;
  sender: Account;
  type: NotificationType;
  status: Status | null;
  /** The recipient follows the sender. */
  following: boolean;
}

/** What the recipient's policy does with this notification: the strictest action among the
 * rules that apply (drop before filter), accept when none does. */
export async function screen(core: Core, n: Screened): Promise<NotificationPolicyAction> {
  if (!FILTERABLE.has(n.type) || n.recipient.id === n.sender.id) return 'accept';
  const policy = await policyOf(core, n.recipient.id);
  const actions = [policy.forNotFollowing, policy.forNotFollowers, policy.forNewAccounts, policy.forPrivateMentions];
  if (actions.every((a) => a === 'accept')) return 'accept';
  if (await core.storage.notificationPolicies.isPermitted(n.recipient.id, n.sender.id)) return 'accept';
  const now = core.clock.now();
  const applying: NotificationPolicyAction[] = [];
  const notFollowing = !n.following;
  if (notFollowing) applying.push(policy.forNotFollowing);
  if (policy.forNotFollowers !== 'accept' && (await notFollower(core, n.sender.id, n.recipient.id, now))) applying.push(policy.forNotFollowers);
  if (notFollowing && now - n.sender.createdAt < NEW_ACCOUNT_MS) applying.push(policy.forNewAccounts);
  if (notFollowing && policy.forPrivateMentions !== 'accept' && (await privateMentionOutOfTheBlue(core, n))) applying.push(policy.forPrivateMentions);
  // Rookery has no moderator limits on accounts, so forLimitedAccounts never applies.
  if (applying.includes('drop')) return 'drop';
  if (applying.includes('filter')) return 'filter';
  return 'accept';
}

/** The sender does not follow the recipient, or began to less than NEW_FOLLOWER_MS ago. */
async function notFollower(core: Core, senderId: Id, recipientId: Id, now: number): Promise<boolean> {
  const follow = await core.storage.relationships.getFollow(senderId, recipientId);
  return follow === null || now - follow.createdAt < NEW_FOLLOWER_MS;
}

/** A private mention that does not answer a private mention of the sender by the recipient
 * higher up in its thread. */
async function privateMentionOutOfTheBlue(core: Core, n: Screened): Promise<boolean> {
  const status = n.status;
  if (n.type !== 'mention' || status === null || status.visibility !== 'direct') return false;
  let parentId = status.inReplyToId;
  const seen = new Set<Id>();
  for (let depth = 0; parentId !== null && depth < THREAD_DEPTH && !seen.has(parentId); depth += 1) {
    seen.add(parentId);
    const parent = await core.storage.statuses.get(parentId);
    if (parent === null) break;
    if (parent.accountId === n.recipient.id && parent.visibility === 'direct' && parent.mentionIds.includes(n.sender.id)) return false;
    parentId = parent.inReplyToId;
  }
  return true;
}
