// What happens after a domain event: notifications, then stream messages on the bus.

import type { Core } from '../core.ts';
import type { Account, Id, Status } from '../model.ts';
import { notify, notifyAboutNewStatus, notifyBoostersOfEdit } from '../notifications.ts';
import { presentNotifications, presentStatus } from '../present/load.ts';
import { audienceOf } from './audience.ts';
import { channels } from './channels.ts';
import type { DomainEvent } from './events.ts';
import { routeStatus, type Audience, type RouteKind } from './routing.ts';
import { filterVisible, withoutHiddenAccounts } from '../viewer.ts';

export async function dispatch(core: Core, event: DomainEvent): Promise<void> {
  switch (event.type) {
    case 'status.created': {
      // One read of the audience serves both the notifications and the routing.
      const audience = await audienceOf(core, event.status);
      await notifyAboutNewStatus(core, event.status, audience.followers);
      await publishStatus(core, event.status, 'update', audience);
      return;
    }
    case 'status.updated':
      await publishStatus(core, event.status, 'status.update');
      await notifyBoostersOfEdit(core, event.status);
      return;
    case 'status.deleted':
      await publishStatus(core, event.status, 'delete');
      for (const boost of event.boosts) await publishStatus(core, boost, 'delete');
      return;
    case 'status.reblogged':
      await notify(core, { recipientId: event.original.accountId, type: 'reblog', fromAccountId: event.boost.accountId, status: event.original });
      await publishStatus(core, event.boost, 'update');
      return;
    case 'status.unreblogged':
      await publishStatus(core, event.boost, 'delete');
      return;
    case 'status.favourited':
      await notify(core, { recipientId: event.status.accountId, type: 'favourite', fromAccountId: event.by.id, status: event.status });
      return;
    case 'account.followed':
      await notify(core, {
        recipientId: event.follow.targetAccountId,
        type: event.requested ? 'follow_request' : 'follow',
        fromAccountId: event.follow.accountId,
        status: null,
      });
      return;
    case 'notification.created': {
      const channel = channels.user(event.notification.accountId);
      if (!(await core.bus.hasSubscribers(channel))) return;
      const recipient = await core.storage.accounts.get(event.notification.accountId);
      if (recipient === null) return;
      const [json] = await presentNotifications(core, [event.notification], recipient);
      if (json) await core.bus.publish(channel, { event: 'notification', payload: JSON.stringify(json) });
      return;
    }
    case 'filters.changed':
      await core.bus.publish(channels.user(event.accountId), { event: 'filters_changed' });
      return;
  }
}

/** Sends a status to every channel that shows it, rendered once per viewer (anonymously for
 * public channels) and only for channels someone listens to. A viewer who may not see it, or
 * who blocks or mutes someone in it, does not get it. */
async function publishStatus(core: Core, status: Status, kind: RouteKind, audience?: Audience): Promise<void> {
  const routes = routeStatus(status, audience ?? (await audienceOf(core, status)), kind);
  const payloads = new Map<Id | null, string | null>();
  for (const route of routes) {
    if (!(await core.bus.hasSubscribers(route.channel))) continue;
    if (kind === 'delete') {
      await core.bus.publish(route.channel, { event: 'delete', payload: status.id });
      continue;
    }
    if (!payloads.has(route.viewerId)) payloads.set(route.viewerId, await renderFor(core, status, route.viewerId));
    const payload = payloads.get(route.viewerId);
    if (payload) await core.bus.publish(route.channel, { event: kind, payload });
  }
}

async function renderFor(core: Core, status: Status, viewerId: Id | null): Promise<string | null> {
  let viewer: Account | null = null;
  if (viewerId !== null) {
    viewer = await core.storage.accounts.get(viewerId);
    if (viewer === null) return null;
    if (viewerId !== status.accountId) {
      const visible = await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, [status]));
      if (visible.length === 0) return null;
    }
  }
  const json = await presentStatus(core, status, viewer).catch(() => null);
  return json === null ? null : JSON.stringify(json);
}
