// Creating notifications: who gets told about what, and when they must not be. Runs in a job
// (events/notify.ts), so it may run twice for one event: every notification is created under a
// key made of the event's id, its type and its recipient, and a second run creates nothing.

import type { Core } from '../context.ts';
import type { Follow, Id, Millis, Mute, Notification, NotificationType, Status } from '../model.ts';
import { countsForAuthor } from '../policy.ts';
import { groupKeyFor } from './grouping.ts';
import { screen } from './screening.ts';

export interface NotificationDraft {
  recipientId: Id;
  type: NotificationType;
  fromAccountId: Id;
  status: Status | null;
  /** The report an 'admin.report' is about. */
  reportId?: Id;
  /** Also tell the account about its own doing (a poll's author, when the poll ends). */
  allowSelf?: boolean;
  /** What makes two notifications the same one (with the type and the recipient): by default
   * the event that causes it; a mention's is its status, so it is told once however many
   * events name it (the status's creation, then an edit or a later copy that adds it). */
  sameAs?: string;
}

/** A mute hides the muted account's notifications unless it was made with notifications: false. */
function mutesNotifications(mute: Mute | null, now: number): boolean {
  return mute !== null && mute.notifications && (mute.expiresAt === null || mute.expiresAt > now);
}

/** Creates a notification unless it would tell someone about themselves, reach a remote
 * account, come from an account the recipient blocks or mutes (or from a domain they block,
 * unless they follow the sender), belong to a conversation the
 * recipient muted, or be dropped by the recipient's notification policy. One the policy filters
 * is stored as filtered (no 'notification.created': nothing is streamed or pushed) and a
 * filtered mention opens or moves the sender's notification request; any other is grouped
 * (grouping.ts) and records 'notification.created'. `eventId` is the id of the event that
 * causes it. Returns it, or null when it was not created now. */
export async function notify(core: Core, eventId: Id, draft: NotificationDraft): Promise<Notification | null> {
  const { storage } = core;
  if (draft.recipientId === draft.fromAccountId && !draft.allowSelf) return null;
  const [recipient, sender] = await Promise.all([storage.accounts.get(draft.recipientId), storage.accounts.get(draft.fromAccountId)]);
  if (recipient === null || recipient.domain !== null || sender === null) return null;
  const [facts] = draft.recipientId === draft.fromAccountId ? [] : await storage.relationships.relationships(draft.recipientId, [draft.fromAccountId]);
  if (facts && (facts.blocking || facts.blockedBy || mutesNotifications(facts.muting, core.clock.now()))) return null;
  // Mastodon's NotifyService: nothing from a domain the recipient blocks, unless they follow the sender.
  if (facts && facts.domainBlocking && facts.following === null) return null;
  if (draft.status !== null) {
    const muted = await storage.interactions.conversationMutedBy(draft.status.conversationId, [draft.recipientId]);
    if (muted.length > 0) return null;
  }
  const action = await screen(core, { recipient, sender, type: draft.type, status: draft.status, following: facts?.following != null });
  if (action === 'drop') return null;
  const filtered = action === 'filter';
  const now = core.clock.now();
  const notification: Notification = {
    id: core.ids.next(),
    accountId: draft.recipientId,
    type: draft.type,
    fromAccountId: draft.fromAccountId,
    statusId: draft.status?.id ?? null,
    createdAt: now,
    groupKey: filtered ? null : await groupKeyFor(core, draft.recipientId, draft.type, draft.status?.id ?? null, now),
    filtered,
  };
  if (draft.reportId !== undefined) notification.reportId = draft.reportId;
  const created = await storage.notifications.create(notification, {
    key: `${draft.sameAs ?? eventId}:${draft.type}:${draft.recipientId}`,
    outbox: (isNew) => (isNew && !filtered ? core.record({ type: 'notification.created', notification }) : []),
  });
  // Also when a retried job finds the notification made: the request is as idempotent.
  if (filtered && draft.type === 'mention' && draft.status !== null) {
    await storage.notificationPolicies.upsertRequest({
      id: core.ids.next(),
      accountId: draft.recipientId,
      fromAccountId: draft.fromAccountId,
      lastStatusId: draft.status.id,
      createdAt: now,
      updatedAt: now,
    });
  }
  return created ? notification : null;
}

/** The accounts a status mentions, each told once per status: an edit, or a later copy of a
 * remote status, that adds a mention tells only the newly mentioned. */
export async function notifyMentioned(core: Core, eventId: Id, status: Status): Promise<void> {
  for (const id of status.mentionIds) {
    await notify(core, eventId, { recipientId: id, type: 'mention', fromAccountId: status.accountId, status, sameAs: `status:${status.id}` });
  }
}

/** A new status tells the accounts it mentions, and the author's local followers who asked to
 * be told of posts (`followers`: storage's notifiedFollowers). */
export async function notifyAboutNewStatus(core: Core, eventId: Id, status: Status, followers: readonly Follow[]): Promise<void> {
  await notifyMentioned(core, eventId, status);
  const isThreadStart = status.inReplyToAccountId === null || status.inReplyToAccountId === status.accountId;
  if (!countsForAuthor(status) || !isThreadStart) return;
  const mentioned = new Set(status.mentionIds);
  for (const follow of followers) {
    if (!mentioned.has(follow.accountId)) {
      await notify(core, eventId, { recipientId: follow.accountId, type: 'status', fromAccountId: status.accountId, status });
    }
  }
}

/** An edit tells the local accounts that boosted the status. */
export async function notifyBoostersOfEdit(core: Core, eventId: Id, status: Status): Promise<void> {
  let maxId: Id | undefined;
  for (;;) {
    const boosts = await core.storage.statuses.reblogs(status.id, ['public', 'unlisted', 'private'], { maxId, limit: 200 });
    for (const boost of boosts) {
      await notify(core, eventId, { recipientId: boost.accountId, type: 'update', fromAccountId: status.accountId, status });
    }
    if (boosts.length < 200) return;
    maxId = boosts[boosts.length - 1]?.id;
  }
}

/** A status that quotes another, its quote accepted, tells the quoted author (once per status). */
export async function notifyQuoted(core: Core, eventId: Id, status: Status, madeAt?: Millis | null): Promise<void> {
  const quote = (await core.storage.quotes.ofStatuses([status.id])).get(status.id);
  if (quote === undefined || quote.state !== 'accepted' || quote.quotedAccountId === null) return;
  // After an edit, only a quote that edit made.
  if (madeAt !== undefined && quote.createdAt !== madeAt) return;
  await notify(core, eventId, { recipientId: quote.quotedAccountId, type: 'quote', fromAccountId: status.accountId, status, sameAs: `quote:${status.id}` });
}

/** An edit tells the local authors of accepted quotes of the status, about their quote. */
export async function notifyQuotersOfEdit(core: Core, eventId: Id, status: Status): Promise<void> {
  let maxId: Id | undefined;
  for (;;) {
    const quotes = await core.storage.quotes.quotesOf(status.id, ['accepted'], { maxId, limit: 200 });
    const quoting = await core.storage.statuses.getMany(quotes.map((q) => q.statusId));
    for (const q of quoting) {
      await notify(core, eventId, { recipientId: q.accountId, type: 'quoted_update', fromAccountId: status.accountId, status: q });
    }
    if (quotes.length < 200) return;
    maxId = quotes[quotes.length - 1]?.id;
  }
}
