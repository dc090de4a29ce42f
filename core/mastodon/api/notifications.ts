// Notifications: the v1 list and its single-notification operations, and the v2 grouped
// list (Mastodon 4.3), which clients that see version 4.3 prefer.

import type { AppCore } from '../context.ts';
import { notFound } from '../../domain/errors.ts';
import {
  clearNotifications,
  dismissNotification,
  findNotification,
  listNotifications,
  ownNotification,
  unreadNotificationCount,
  type NotificationQuery,
} from '../../domain/inbox.ts';
import type { Account, Notification } from '../../domain/model.ts';
import { int, page, str, strArray, type Params } from '../../domain/params.ts';
import { presentAccounts, presentNotifications } from '../present/load.ts';
import { notificationIdOf, renderGrouped } from '../present/notification-group.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:notifications'];
const WRITE = ['write', 'write:notifications'];

function queryOf(params: Params): NotificationQuery {
  return { types: strArray(params, 'types'), excludeTypes: strArray(params, 'exclude_types'), accountId: str(params, 'account_id') };
}

async function present(core: AppCore, viewer: Account, notification: Notification) {
  const [rendered] = await presentNotifications(core, [notification], viewer);
  if (rendered === undefined) throw notFound();
  return rendered;
}

/** The notification behind a v2 group key: one that may be shown, or (`shown: false`, for
 * dismissing) any of the viewer's own. */
async function findGroup(core: AppCore, viewer: Account, request: ApiRequest, shown = true): Promise<Notification> {
  const id = notificationIdOf(request.params['group_key'] ?? '') ?? '';
  return shown ? findNotification(core, viewer, id) : ownNotification(core, viewer, id);
}

function unreadLimit(params: Params): number {
  return Math.min(Math.abs(int(params, 'limit') ?? 100), 1000);
}

export function notificationEndpoints(core: AppCore): Endpoint[] {
  /** v1 and v2 answer the unread count alike. */
  const unreadCount = (path: string): Endpoint => ({
    method: 'GET',
    path,
    auth: 'user',
    scopes: READ,
    handle: async (request) => json({ count: await unreadNotificationCount(core, actorOf(request), unreadLimit(paramsOf(request))) }),
  });

  return [
    {
      method: 'GET',
      path: '/api/v1/notifications',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const params = paramsOf(request);
        const slice = await listNotifications(core, viewer, queryOf(params), page(params, 40, 80));
        return pagedJson(core, request, await presentNotifications(core, slice.items, viewer), slice);
      },
    },
    unreadCount('/api/v1/notifications/unread_count'),
    {
      method: 'GET',
      path: '/api/v1/notifications/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        return json(await present(core, viewer, await findNotification(core, viewer, request.params['id'] ?? '')));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/notifications/:id/dismiss',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await dismissNotification(core, actorOf(request), request.params['id'] ?? '');
        return json({});
      },
    },
    {
      method: 'POST',
      path: '/api/v1/notifications/clear',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await clearNotifications(core, actorOf(request));
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v2/notifications',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const params = paramsOf(request);
        const slice = await listNotifications(core, viewer, queryOf(params), page(params, 40, 80));
        return pagedJson(core, request, renderGrouped(await presentNotifications(core, slice.items, viewer), true), slice);
      },
    },
    unreadCount('/api/v2/notifications/unread_count'),
    {
      method: 'GET',
      path: '/api/v2/notifications/:group_key',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        return json(renderGrouped([await present(core, viewer, await findGroup(core, viewer, request))], false));
      },
    },
    {
      method: 'GET',
      path: '/api/v2/notifications/:group_key/accounts',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const notification = await findGroup(core, actorOf(request), request);
        return json(await presentAccounts(core, [notification.fromAccountId]));
      },
    },
    {
      method: 'POST',
      path: '/api/v2/notifications/:group_key/dismiss',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        const viewer = actorOf(request);
        await dismissNotification(core, viewer, (await findGroup(core, viewer, request, false)).id);
        return json({});
      },
    },
  ];
}
