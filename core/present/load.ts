// Loads, in a handful of batched reads, everything needed to render statuses and
// notifications for one viewer, then renders them with the pure renderers.

import type { Core } from '../core.ts';
import { notFound } from '../errors.ts';
import type { Account, Id, Notification, Status } from '../model.ts';
import { renderAccount, type AccountJson } from './account.ts';
import { isActive, keywordMatcher } from './filter.ts';
import { renderStatus, type RenderOptions, type StatusBundle, type StatusJson, type ViewerBundle } from './status.ts';
import { iso } from './time.ts';

function unique(ids: Iterable<Id>): Id[] {
  return [...new Set(ids)];
}

/** Most statuses have no media, poll or boosted original: skip those reads entirely. */
function many<T>(ids: readonly Id[], read: (ids: readonly Id[]) => Promise<T[]>): Promise<T[]> {
  return ids.length === 0 ? Promise.resolve([]) : read(ids);
}

export async function loadStatusBundle(core: Core, statuses: readonly Status[], viewer: Account | null): Promise<StatusBundle> {
  const { storage } = core;
  const known = new Map(statuses.map((s) => [s.id, s]));
  const missingOriginals = unique(statuses.flatMap((s) => (s.reblogOfId !== null && !known.has(s.reblogOfId) ? [s.reblogOfId] : [])));
  const originals = await many(missingOriginals, (ids) => storage.statuses.getMany(ids));
  const all = [...statuses, ...originals];
  const byId = new Map(all.map((s) => [s.id, s]));
  const pollIds = unique(all.flatMap((s) => (s.pollId === null ? [] : [s.pollId])));
  const [accounts, applications, media, polls, cards] = await Promise.all([
    storage.accounts.getMany(unique(all.flatMap((s) => [s.accountId, ...s.mentionIds]))),
    many(unique(all.flatMap((s) => (s.applicationId === null ? [] : [s.applicationId]))), (ids) => storage.oauth.getApplicationsMany(ids)),
    many(unique(all.flatMap((s) => s.mediaIds)), (ids) => storage.media.getMany(ids)),
    many(pollIds, (ids) => storage.polls.getMany(ids)),
    storage.cards.forStatuses(unique(all.map((s) => s.id))),
  ]);
  const now = core.clock.now();
  let viewerBundle: StatusBundle['viewer'] = null;
  if (viewer !== null) {
    const [state, pollVotes, filters] = await Promise.all([
      storage.interactions.viewerState(viewer.id, [...byId.keys()], unique(all.map((s) => s.conversationId))),
      pollIds.length === 0 ? Promise.resolve(new Map<Id, number[]>()) : storage.polls.votesBy(viewer.id, pollIds),
      storage.filters.listBy(viewer.id),
    ]);
    const active = filters.filter((f) => isActive(f, now));
    viewerBundle = { state, pollVotes, filters: active, keywords: keywordMatcher(active) };
  }
  return {
    accounts: new Map(accounts.map((a) => [a.id, a])),
    statuses: byId,
    applications: new Map(applications.map((a) => [a.id, a])),
    media: new Map(media.map((m) => [m.id, m])),
    polls: new Map(polls.map((p) => [p.id, p])),
    cards,
    viewer: viewerBundle,
    now,
  };
}

/** Renders in order; statuses that cannot be rendered (author gone) are left out. */
export async function presentStatuses(core: Core, statuses: readonly Status[], viewer: Account | null, options: RenderOptions = {}): Promise<StatusJson[]> {
  if (statuses.length === 0) return [];
  const bundle = await loadStatusBundle(core, statuses, viewer);
  return statuses.flatMap((status) => {
    const json = renderStatus(core.config, status, bundle, options);
    return json ? [json] : [];
  });
}

export async function presentStatus(core: Core, status: Status, viewer: Account | null, options: RenderOptions = {}): Promise<StatusJson> {
  const [json] = await presentStatuses(core, [status], viewer, options);
  if (!json) throw notFound();
  return json;
}

export async function presentAccounts(core: Core, ids: readonly Id[]): Promise<AccountJson[]> {
  const accounts = new Map((await core.storage.accounts.getMany(ids)).map((a) => [a.id, a]));
  return ids.flatMap((id) => {
    const account = accounts.get(id);
    return account ? [renderAccount(core.config, account)] : [];
  });
}

export interface NotificationJson {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: AccountJson;
  status?: StatusJson;
}

/** Notifications for their recipient; those whose account or status is gone are left out. */
export async function presentNotifications(core: Core, notifications: readonly Notification[], viewer: Account): Promise<NotificationJson[]> {
  const statusIds = unique(notifications.flatMap((n) => (n.statusId === null ? [] : [n.statusId])));
  const statuses = await core.storage.statuses.getMany(statusIds);
  const [accounts, rendered] = await Promise.all([
    core.storage.accounts.getMany(unique(notifications.map((n) => n.fromAccountId))),
    presentStatuses(core, statuses, viewer),
  ]);
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const statusById = new Map(rendered.map((s) => [s.id, s]));
  return notifications.flatMap((n) => {
    const account = accountById.get(n.fromAccountId);
    if (!account) return [];
    const json: NotificationJson = {
      id: n.id,
      type: n.type,
      created_at: iso(n.createdAt),
      group_key: `ungrouped-${n.id}`,
      account: renderAccount(core.config, account),
    };
    if (n.statusId !== null) {
      const status = statusById.get(n.statusId);
      if (!status) return [];
      json.status = status;
    }
    return [json];
  });
}

/** A viewer with no interaction of their own: what every signed-in subscriber of a new status
 * sees (all flags false), rendered once for all of them. */
export function blankViewer(): ViewerBundle {
  return {
    state: { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() },
    pollVotes: new Map(),
    filters: [],
    keywords: keywordMatcher([]),
  };
}
