// The notification policy (v2: an action per kind of sender; v1: a filter flag per kind) and
// the notification requests its filter makes (Mastodon 4.3).

import type { AppCore } from '../context.ts';
import type { Account, NotificationPolicy, NotificationRequest } from '../../domain/model.ts';
import { bool, page, str, strArray, type Params } from '../../domain/params.ts';
import { policyOf } from '../../domain/notifications/screening.ts';
import {
  acceptRequest,
  dismissRequest,
  findRequest,
  listRequests,
  policySummary,
  requestCount,
  requestsAmong,
  updatePolicy,
  type PolicyField,
  type PolicySummary,
} from '../../domain/notifications/requests.ts';
import { filterVisible } from '../../domain/viewer.ts';
import { presentAccounts, presentStatuses } from '../present/load.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:notifications'];
const WRITE = ['write', 'write:notifications'];

const V2_FIELDS: Record<PolicyField, string> = {
  forNotFollowing: 'for_not_following',
  forNotFollowers: 'for_not_followers',
  forNewAccounts: 'for_new_accounts',
  forPrivateMentions: 'for_private_mentions',
  forLimitedAccounts: 'for_limited_accounts',
};
const V1_FIELDS: Partial<Record<PolicyField, string>> = {
  forNotFollowing: 'filter_not_following',
  forNotFollowers: 'filter_not_followers',
  forNewAccounts: 'filter_new_accounts',
  forPrivateMentions: 'filter_private_mentions',
};

function summaryJson(s: PolicySummary) {
  return { pending_requests_count: s.pendingRequests, pending_notifications_count: s.pendingNotifications };
}

function v2Json(p: NotificationPolicy, s: PolicySummary) {
  return {
    for_not_following: p.forNotFollowing,
    for_not_followers: p.forNotFollowers,
    for_new_accounts: p.forNewAccounts,
    for_private_mentions: p.forPrivateMentions,
    for_limited_accounts: p.forLimitedAccounts,
    summary: summaryJson(s),
  };
}

function v1Json(p: NotificationPolicy, s: PolicySummary) {
  return {
    filter_not_following: p.forNotFollowing !== 'accept',
    filter_not_followers: p.forNotFollowers !== 'accept',
    filter_new_accounts: p.forNewAccounts !== 'accept',
    filter_private_mentions: p.forPrivateMentions !== 'accept',
    summary: summaryJson(s),
  };
}

/** v2 takes actions by name; anything else given is a 422 from updatePolicy. */
function v2Changes(params: Params): Partial<Record<PolicyField, string>> {
  const changes: Partial<Record<PolicyField, string>> = {};
  for (const [field, name] of Object.entries(V2_FIELDS) as [PolicyField, string][]) {
    const value = params[name];
    if (value === undefined) continue;
    changes[field] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return changes;
}

/** v1 takes booleans: true filters, false accepts. */
function v1Changes(params: Params): Partial<Record<PolicyField, string>> {
  const changes: Partial<Record<PolicyField, string>> = {};
  for (const [field, name] of Object.entries(V1_FIELDS) as [PolicyField, string][]) {
    const value = bool(params, name);
    if (value !== undefined) changes[field] = value ? 'filter' : 'accept';
  }
  return changes;
}

async function presentRequests(core: AppCore, viewer: Account, requests: readonly NotificationRequest[]) {
  if (requests.length === 0) return [];
  const accounts = new Map((await presentAccounts(core, requests.map((r) => r.fromAccountId))).map((a) => [a.id, a]));
  const lastIds = requests.flatMap((r) => (r.lastStatusId === null ? [] : [r.lastStatusId]));
  const visible = await filterVisible(core, viewer, await core.storage.statuses.getMany(lastIds));
  const statuses = new Map((await presentStatuses(core, visible, viewer)).map((s) => [s.id, s]));
  const counts = await Promise.all(requests.map((r) => requestCount(core, r)));
  return requests.flatMap((r, i) => {
    const account = accounts.get(r.fromAccountId);
    if (account === undefined) return [];
    return [
      {
        id: r.id,
        created_at: new Date(r.createdAt).toISOString(),
        updated_at: new Date(r.updatedAt).toISOString(),
        notifications_count: String(counts[i] ?? 0),
        account,
        last_status: (r.lastStatusId === null ? undefined : statuses.get(r.lastStatusId)) ?? null,
      },
    ];
  });
}

const idsOf = (request: ApiRequest): string[] => {
  const params = paramsOf(request);
  return strArray(params, 'id') ?? (str(params, 'id') === undefined ? [] : [str(params, 'id') as string]);
};

export function notificationPolicyEndpoints(core: AppCore): Endpoint[] {
  const policyRoutes = (version: 'v1' | 'v2'): Endpoint[] => {
    const render = version === 'v1' ? v1Json : v2Json;
    const path = `/api/${version}/notifications/policy`;
    return [
      {
        method: 'GET',
        path,
        auth: 'user',
        scopes: READ,
        handle: async (request) => {
          const viewer = actorOf(request);
          return json(render(await policyOf(core, viewer.id), await policySummary(core, viewer)));
        },
      },
      {
        method: 'PUT',
        path,
        auth: 'user',
        scopes: WRITE,
        handle: async (request) => {
          const viewer = actorOf(request);
          const params = paramsOf(request);
          const policy = await updatePolicy(core, viewer, version === 'v1' ? v1Changes(params) : v2Changes(params));
          return json(render(policy, await policySummary(core, viewer)));
        },
      },
    ];
  };
  const onOne = (action: 'accept' | 'dismiss'): Endpoint => ({
    method: 'POST',
    path: `/api/v1/notifications/requests/:id/${action}`,
    auth: 'user',
    scopes: WRITE,
    handle: async (request) => {
      const viewer = actorOf(request);
      const found = await findRequest(core, viewer, request.params['id'] ?? '');
      await (action === 'accept' ? acceptRequest : dismissRequest)(core, viewer, found);
      return json({});
    },
  });
  const onMany = (action: 'accept' | 'dismiss'): Endpoint => ({
    method: 'POST',
    path: `/api/v1/notifications/requests/${action}`,
    auth: 'user',
    scopes: WRITE,
    handle: async (request) => {
      const viewer = actorOf(request);
      for (const found of await requestsAmong(core, viewer, idsOf(request))) {
        await (action === 'accept' ? acceptRequest : dismissRequest)(core, viewer, found);
      }
      return json({});
    },
  });
  return [
    ...policyRoutes('v1'),
    ...policyRoutes('v2'),
    {
      method: 'GET',
      path: '/api/v1/notifications/requests',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const slice = await listRequests(core, viewer, page(paramsOf(request), 40, 80));
        return pagedJson(core, request, await presentRequests(core, viewer, slice.items), slice);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/notifications/requests/merged',
      auth: 'user',
      scopes: READ,
      // Accepting merges at once (requests.ts), so nothing is ever left to merge.
      handle: async () => json({ merged: true }),
    },
    onMany('accept'),
    onMany('dismiss'),
    {
      method: 'GET',
      path: '/api/v1/notifications/requests/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const [rendered] = await presentRequests(core, viewer, [await findRequest(core, viewer, request.params['id'] ?? '')]);
        return json(rendered ?? null);
      },
    },
    onOne('accept'),
    onOne('dismiss'),
  ];
}
