// The notifications handler: who is told about each event (notifications.ts decides whether
// a given person may be). Runs as a job per event, after the write committed.

import type { Core } from '../context.ts';
import type { EventHandler } from '../queue/registry.ts';
import { notify, notifyAboutNewStatus, notifyBoostersOfEdit, notifyMentioned, notifyQuoted, notifyQuotersOfEdit } from './notify.ts';
import type { DomainEventType } from '../events/events.ts';
import { notifyStaff, notifyStaffOfSignUp } from './staff.ts';

export const NOTIFYING_EVENTS: readonly DomainEventType[] = [
  'status.created', 'status.updated', 'status.refreshed', 'status.reblogged', 'status.favourited', 'account.followed', 'report.created', 'account.created',
  // What was undone takes its notification with it, as on Mastodon (a notification belongs to
  // the follow, favourite or boost it reports).
  'status.unreblogged', 'status.unfavourited', 'account.unfollowed', 'follow_request.authorized', 'follow_request.rejected',
  'quote.changed',
];

export function notificationHandler(core: Core): EventHandler {
  return async ({ id, event }) => {
    switch (event.type) {
      case 'status.created': {
        const asked = await core.storage.relationships.notifiedFollowers(event.status.accountId);
        // Nobody to tell (no mention, no quote, no follower asking to hear of posts): the status
        // is not read again. (Mentions an edit adds meanwhile are told by its own event.)
        if (event.status.mentionIds.length === 0 && event.quotedStatusId === null && asked.length === 0) return;
        // Deleted before its notifications went out: nobody is told about it.
        const status = await core.storage.statuses.get(event.status.id);
        if (status === null) return;
        await notifyAboutNewStatus(core, id, status, asked);
        // A publish that quoted nothing says so: no quote to read.
        if (event.quotedStatusId !== null) await notifyQuoted(core, id, status);
        return;
      }
      case 'status.updated': {
        const status = await core.storage.statuses.get(event.status.id);
        if (status === null) return;
        await notifyMentioned(core, id, status);
        await notifyBoostersOfEdit(core, id, status);
        await notifyQuotersOfEdit(core, id, status);
        // A quote the edit made (quoted_status_id on edit): its quoted author is told, as on publish.
        await notifyQuoted(core, id, status, status.editedAt);
        return;
      }
      case 'status.refreshed': {
        // Mentions set without an edit (a remote status's later copy): the new ones are told.
        const status = await core.storage.statuses.get(event.status.id);
        if (status !== null && status.mentionIds.length > 0) await notifyMentioned(core, id, status);
        return;
      }
      case 'status.reblogged':
        await notify(core, id, { recipientId: event.original.accountId, type: 'reblog', fromAccountId: event.boost.accountId, status: event.original });
        return;
      case 'status.favourited':
        await notify(core, id, { recipientId: event.status.accountId, type: 'favourite', fromAccountId: event.by.id, status: event.status });
        return;
      case 'account.followed':
        await notify(core, id, {
          recipientId: event.follow.targetAccountId,
          type: event.requested ? 'follow_request' : 'follow',
          fromAccountId: event.follow.accountId,
          status: null,
        });
        return;
      case 'status.unreblogged':
        await core.storage.notifications.deleteWhere(event.original.accountId, { types: ['reblog'], fromAccountId: event.boost.accountId, statusId: event.original.id });
        return;
      case 'status.unfavourited':
        await core.storage.notifications.deleteWhere(event.status.accountId, { types: ['favourite'], fromAccountId: event.by.id, statusId: event.status.id });
        return;
      case 'account.unfollowed':
        await core.storage.notifications.deleteWhere(event.follow.targetAccountId, { types: ['follow', 'follow_request'], fromAccountId: event.follow.accountId });
        return;
      case 'follow_request.authorized':
        // The request is answered: its notification goes (the follow it became is not notified).
        await core.storage.notifications.deleteWhere(event.follow.targetAccountId, { types: ['follow_request'], fromAccountId: event.follow.accountId });
        return;
      case 'follow_request.rejected':
        // A request turned down, or a follower removed: neither notification stays.
        await core.storage.notifications.deleteWhere(event.targetAccountId, { types: ['follow', 'follow_request'], fromAccountId: event.accountId });
        return;
      case 'report.created':
        await notifyStaff(core, id, event.report);
        return;
      case 'account.created':
        await notifyStaffOfSignUp(core, id, event.account);
        return;
      case 'quote.changed': {
        // A quote accepted later (a remote server's authorization): its quoted author is told.
        if (event.quote.state !== 'accepted') return;
        const status = await core.storage.statuses.get(event.quote.statusId);
        if (status !== null) await notifyQuoted(core, id, status);
        return;
      }
      default:
        return;
    }
  };
}
