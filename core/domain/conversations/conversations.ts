// Private conversations as Mastodon keeps them (AccountConversation): each account sees its
// direct statuses grouped by thread and by the set of the other participants. The author's own
// direct status joins its conversation read; one that mentions a local account joins theirs
// unread when their mention notification is created (not when the policy filtered or dropped
// it, nor in a muted thread: then no notification is made), or when they accept the request
// that held it back. A deleted status leaves every conversation that held it.

import type { Core } from '../context.ts';
import type { DomainEvent, DomainEventType } from '../events/events.ts';
import { notFound } from '../errors.ts';
import { isId } from '../ids.ts';
import type { Account, AccountConversation, Id, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import type { EventHandler } from '../queue/registry.ts';
import { filterVisible } from '../viewer.ts';

export const CONVERSATION_EVENTS: readonly DomainEventType[] = ['status.created', 'notification.created', 'status.deleted'];

/** The events a conversation can change for: direct statuses, and unfiltered mentions. */
export function concernsConversations(event: DomainEvent): boolean {
  switch (event.type) {
    case 'status.created':
    case 'status.deleted':
      return event.status.visibility === 'direct';
    case 'notification.created':
      return event.notification.type === 'mention' && event.notification.statusId !== null && !event.notification.filtered;
    default:
      return false;
  }
}

/** Everyone in the status's conversation but `ownerId`: its author and the accounts it mentions. */
export function participantsOf(status: Status, ownerId: Id): Id[] {
  return [...new Set([status.accountId, ...status.mentionIds])].filter((id) => id !== ownerId);
}

/** Adds a direct status to the owner's conversation, and tells their streams when it changed. */
export async function addToConversation(core: Core, ownerId: Id, status: Status): Promise<void> {
  if (status.visibility !== 'direct' || status.reblogOfId !== null) return;
  const { conversation } = await core.storage.conversations.addStatus(
    {
      id: core.ids.next(),
      accountId: ownerId,
      conversationId: status.conversationId,
      participantIds: participantsOf(status, ownerId),
      lastStatusId: status.id,
      unread: status.accountId !== ownerId,
    },
    status.id,
  );
  // Queued even when the status was there already: a retried job may have stopped before.
  await core.enqueue(core.record({ type: 'conversation.updated', accountId: ownerId, id: conversation.id }));
}

export function conversationHandler(core: Core): EventHandler {
  return async ({ event }) => {
    switch (event.type) {
      case 'status.created': {
        const status = await core.storage.statuses.get(event.status.id);
        if (status === null || status.visibility !== 'direct' || !status.local) return;
        await addToConversation(core, status.accountId, status);
        return;
      }
      case 'notification.created': {
        const n = event.notification;
        if (n.type !== 'mention' || n.statusId === null || n.filtered) return;
        const [status, recipient] = await Promise.all([core.storage.statuses.get(n.statusId), core.storage.accounts.get(n.accountId)]);
        if (status === null || recipient === null) return;
        // Only what the recipient may see now (a mention edited away since is not theirs).
        if ((await filterVisible(core, recipient, [status])).length === 0) return;
        await addToConversation(core, n.accountId, status);
        return;
      }
      case 'status.deleted': {
        if (event.status.visibility !== 'direct') return;
        for (const changed of await core.storage.conversations.removeStatus(event.status.id)) {
          if (changed.conversation !== null) await core.enqueue(core.record({ type: 'conversation.updated', accountId: changed.accountId, id: changed.id }));
        }
        return;
      }
      default:
        return;
    }
  };
}

/** The viewer's conversations, most recently active first, paged by their last status's id;
 * one whose last status the viewer can no longer see (policy.ts) is left out. */
export async function listConversations(core: Core, viewer: Account, page: Page): Promise<Slice<AccountConversation>> {
  const keep = async (rows: AccountConversation[]) => {
    const visible = new Set((await filterVisible(core, viewer, await core.storage.statuses.getMany(rows.map((c) => c.lastStatusId)))).map((s) => s.id));
    return rows.filter((c) => visible.has(c.lastStatusId));
  };
  return fillPage(page, (c) => c.lastStatusId, (p) => core.storage.conversations.list(viewer.id, p), keep);
}

export async function findConversation(core: Core, viewer: Account, id: string): Promise<AccountConversation> {
  const conversation = isId(id) ? await core.storage.conversations.get(viewer.id, id) : null;
  if (conversation === null) throw notFound();
  return conversation;
}

export async function markConversation(core: Core, viewer: Account, id: string, unread: boolean): Promise<AccountConversation> {
  const conversation = isId(id) ? await core.storage.conversations.setUnread(viewer.id, id, unread) : null;
  if (conversation === null) throw notFound();
  return conversation;
}

/** Removes the conversation from the viewer's list (its statuses stay); a later status in it
 * starts it again. */
export async function removeConversation(core: Core, viewer: Account, id: string): Promise<void> {
  if (!isId(id) || !(await core.storage.conversations.delete(viewer.id, id))) throw notFound();
}
