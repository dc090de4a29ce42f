// Notifications: the v1 list and its single-notification operations, and the v2 grouped list
// (Mastodon 4.3), which clients that see version 4.3 prefer. Both read one store: a v1
// notification's group_key is the key of its v2 group.

import type { AppCore } from '../context.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import {
  clearNotifications,
  dismissNotification,
  findNotification,
  listNotifications,
  unreadNotificationCount,
} from '../../domain/inbox.ts';
import { countUnreadGroups, listNotificationGroups, summarizeOne, type GroupedQuery } from '../../domain/notifications/grouped.ts';
import { ungroupedId } from '../../domain/notifications/grouping.ts';
import type { Account, Notification } from '../../domain/model.ts';
import { bool, int, page, str, strArray, type Params } from '../../domain/params.ts';
import { presentAccounts, presentNotifications } from '../present/load.ts';
import { presentGroups } from '../present/notification-group.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';
import { notificationPolicyEndpoints } from './notification-policy.ts';

const READ = ['read', 'read:notifications'];
const WRITE = ['write', 'write:notifications'];
/** Senders listed for one group at most. */
const GROUP_ACCOUNTS = 80;

function queryOf(params: Params): GroupedQuery {
  return {
    types: strArray(params, 'types'),
    excludeTypes: strArray(params, 'exclude_types'),
    accountId: str(params, 'account_id'),
    includeFiltered: bool(params, 'include_filtered'),
    groupedTypes: strArray(params, 'grouped_types'),
  };
}

async function present(core: AppCore, viewer: Account, notification: Notification) {
  const [rendered] = await presentNotifications(core, [notification], viewer);
  if (rendered === undefined) throw notFound();
  return rendered;
}

/** The newest notification of a group that may be shown, or 404. */
async function findGroup(core: AppCore, viewer: Account, request: ApiRequest): Promise<Notification> {
  const key = request.params['group_key'] ?? '';
  const id = ungroupedId(key);
  if (id !== null) return findNotification(core, viewer, id);
  const [newest] = (await listNotifications(core, viewer, { includeFiltered: true, groupKey: key }, { limit: 1 })).items;
  if (newest === undefined) throw notFound();
  return newest;
}

function unreadLimit(params: Params): number {
  return Math.min(Math.abs(int(params, 'limit') ?? 100), 1000);
}

function expandAccounts(params: Params): boolean {
  const value = str(params, 'expand_accounts');
  if (value === undefined || value === 'full') return false;
  if (value === 'partial_avatars') return true;
  throw badRequest(`Invalid value for 'expand_accounts': '${value}', allowed values are 'full' and 'partial_avatars'`);
}

export function notificationEndpoints(core: AppCore): Endpoint[] {
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
    {
      method: 'GET',
      path: '/api/v1/notifications/unread_count',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json({ count: await unreadNotificationCount(core, actorOf(request), unreadLimit(paramsOf(request))) }),
    },
    ...notificationPolicyEndpoints(core),
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
        const partialAvatars = expandAccounts(params);
        const result = await listNotificationGroups(core, viewer, queryOf(params), page(params, 40, 80));
        return pagedJson(core, request, await presentGroups(core, viewer, result.groups, partialAvatars), result);
      },
    },
    {
      method: 'GET',
      path: '/api/v2/notifications/unread_count',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const params = paramsOf(request);
        const [marker] = await core.storage.markers.get(viewer.id, ['notifications']);
        return json({ count: await countUnreadGroups(core, viewer, queryOf(params), marker?.lastReadId, unreadLimit(params)) });
      },
    },
    {
      method: 'GET',
      path: '/api/v2/notifications/:group_key',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const group = await summarizeOne(core, viewer, await findGroup(core, viewer, request));
        return json(await presentGroups(core, viewer, [group]));
      },
    },
    {
      method: 'GET',
      path: '/api/v2/notifications/:group_key/accounts',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const newest = await findGroup(core, viewer, request);
        const members =
          newest.groupKey === null || ungroupedId(request.params['group_key'] ?? '') !== null
            ? [newest]
            : (await listNotifications(core, viewer, { includeFiltered: true, groupKey: newest.groupKey }, { limit: GROUP_ACCOUNTS })).items;
        return json(await presentAccounts(core, [...new Set(members.map((n) => n.fromAccountId))]));
      },
    },
    {
      method: 'POST',
      path: '/api/v2/notifications/:group_key/dismiss',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        const viewer = actorOf(request);
        const key = request.params['group_key'] ?? '';
        const id = ungroupedId(key);
        if (id !== null) await dismissNotification(core, viewer, id);
        else if ((await core.storage.notifications.deleteWhere(viewer.id, { groupKey: key })) === 0) throw notFound();
        return json({});
      },
    },
  ];
}
