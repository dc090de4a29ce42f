// Loads, in a handful of batched reads, everything needed to render statuses and
// notifications for one viewer, then renders them with the pure renderers.

import type { AppCore } from '../context.ts';
import { notFound } from '../../domain/errors.ts';
import type { BoundAccountDecorator } from '../context.ts';
import type { Account, Id, Notification, Status } from '../../domain/model.ts';
import { NO_ACCOUNT_DECORATORS, renderAccount, type AccountJson, type LoadedAccountDecorator } from './account.ts';
import { isActive, keywordMatcher } from '../entities/filter.ts';
import { renderStatus, type LoadedDecorator, type RenderOptions, type StatusBundle, type StatusJson, type ViewerBundle } from './status.ts';
import { iso } from '../entities/time.ts';
import { renderReport, type ReportJson } from './report-entity.ts';
import { filterVisible } from '../../domain/viewer.ts';
import { loadQuotes } from './quote.ts';

function unique(ids: Iterable<Id>): Id[] {
  return [...new Set(ids)];
}

/** Most statuses have no application or boosted original: skip those reads entirely. */
function many<T>(ids: readonly Id[], read: (ids: readonly Id[]) => Promise<T[]>): Promise<T[]> {
  return ids.length === 0 ? Promise.resolve([]) : read(ids);
}

/** Every plugin decorator's batched read for these statuses. */
export async function loadDecorators(core: AppCore, statuses: readonly Status[], viewerId: Id | null): Promise<LoadedDecorator[]> {
  const decorators = core.hooks.decorators;
  if (decorators.length === 0) return [];
  const loaded = await Promise.all(decorators.map((decorator) => decorator.load(statuses, viewerId)));
  return decorators.map((decorator, i) => ({ decorator, loaded: loaded[i] }));
}

/** Every plugin account decorator's batched read for the accounts one presentation call
 * renders. With none registered: no read, no promise, nothing made (the status reads are
 * benchmarked against a bare server). */
export function loadAccountDecorators(core: AppCore, accounts: readonly Account[]): readonly LoadedAccountDecorator[] | Promise<readonly LoadedAccountDecorator[]> {
  const decorators = core.hooks.accountDecorators;
  if (!anyCovered(decorators, accounts)) return NO_ACCOUNT_DECORATORS;
  return Promise.all(decorators.map((decorator) => decorator.load(accounts))).then((loaded) => decorators.map((decorator, i) => ({ decorator, loaded: loaded[i] })));
}

/** Whether a decorator has anything for one of `accounts` (an index loop: this runs on every
 * status read of an instance whose plugins decorate accounts). */
function anyCovered(decorators: readonly BoundAccountDecorator[], accounts: readonly Account[]): boolean {
  for (let d = 0; d < decorators.length; d++) {
    const decorator = decorators[d] as BoundAccountDecorator;
    for (let a = 0; a < accounts.length; a++) if (decorator.covers(accounts[a] as Account)) return true;
  }
  return false;
}

/** The decorators of `bundle` as one more reader sees them: those that read something of the
 * viewer's own (poll votes) load again for that reader; the others are shared. */
export async function decoratorsFor(core: AppCore, bundle: StatusBundle, readerId: Id): Promise<LoadedDecorator[]> {
  const statuses = [...bundle.statuses.values()];
  return Promise.all(
    bundle.decorators.map(async (entry) => (entry.decorator.perViewer ? { decorator: entry.decorator, loaded: await entry.decorator.load(statuses, readerId) } : entry)),
  );
}

/** `alsoAccounts`: accounts rendered beside the statuses (notifications' senders), read and
 * decorated with their authors. */
export async function loadStatusBundle(core: AppCore, statuses: readonly Status[], viewer: Account | null, alsoAccounts: readonly Id[] = []): Promise<StatusBundle> {
  const { storage } = core;
  const known = new Map(statuses.map((s) => [s.id, s]));
  const missingOriginals = unique(statuses.flatMap((s) => (s.reblogOfId !== null && !known.has(s.reblogOfId) ? [s.reblogOfId] : [])));
  // Every read below starts in one go (a store can check its freshness once for all of them).
  const originals = missingOriginals.length === 0 ? [] : await storage.statuses.getMany(missingOriginals);
  const base = [...statuses, ...originals];
  // The quotes are read beside the rest; the statuses they show (rarely any) need their own
  // parts too, and then the rest is read again with them.
  const [quotes, first] = await Promise.all([loadQuotes(core, base, viewer), loadParts(core, base, viewer, alsoAccounts)]);
  const baseIds = new Set(base.map((s) => s.id));
  const shown = quotes.rendered.filter((s) => !baseIds.has(s.id));
  const parts = shown.length === 0 ? first : await loadParts(core, [...base, ...shown], viewer, alsoAccounts);
  return { ...parts, quotes: quotes.bundle };
}

/** Everything but the quotes: accounts (and their plugins' parts), applications, the plugins'
 * parts of the statuses, the viewer's flags and filters. */
async function loadParts(core: AppCore, all: readonly Status[], viewer: Account | null, alsoAccounts: readonly Id[]): Promise<Omit<StatusBundle, 'quotes'>> {
  const { storage } = core;
  const byId = new Map(all.map((s) => [s.id, s]));
  const accountIds = all.flatMap((s) => [s.accountId, ...s.mentionIds]);
  const [accounts, applications, decorators, viewerReads] = await Promise.all([
    storage.accounts.getMany(unique(alsoAccounts.length === 0 ? accountIds : [...alsoAccounts, ...accountIds])),
    many(unique(all.flatMap((s) => (s.applicationId === null ? [] : [s.applicationId]))), (ids) => storage.oauth.getApplicationsMany(ids)),
    loadDecorators(core, [...byId.values()], viewer?.id ?? null),
    viewer === null
      ? null
      : Promise.all([
          storage.interactions.viewerState(viewer.id, [...byId.keys()], unique(all.map((s) => s.conversationId))),
          storage.filters.listBy(viewer.id),
        ]),
  ]);
  // Usually nothing to load (no plugin, or only local accounts): then no await, nothing made.
  const accountDecorators = anyCovered(core.hooks.accountDecorators, accounts) ? await loadAccountDecorators(core, rendered(accounts, all, alsoAccounts)) : NO_ACCOUNT_DECORATORS;
  const now = core.clock.now();
  let viewerBundle: StatusBundle['viewer'] = null;
  if (viewerReads !== null) {
    const [state, filters] = viewerReads;
    const active = filters.filter((f) => isActive(f, now));
    viewerBundle = { state, filters: active, keywords: keywordMatcher(active) };
  }
  return {
    // A deleted account's statuses (and notifications) are gone at once, before the background
    // removal reaches them: without their author they are not rendered.
    accounts: new Map(accounts.flatMap((a) => (a.deletedAt === null ? [[a.id, a] as const] : []))),
    statuses: byId,
    applications: new Map(applications.map((a) => [a.id, a])),
    decorators,
    accountDecorators,
    viewer: viewerBundle,
    now,
  };
}

/** The accounts rendered as accounts (authors, boosters, `also`), not those only mentioned. */
function rendered(accounts: readonly Account[], statuses: readonly Status[], also: readonly Id[]): Account[] {
  const ids = new Set(also);
  for (const status of statuses) ids.add(status.accountId);
  return accounts.filter((account) => ids.has(account.id));
}

/** Renders in order; statuses that cannot be rendered (author gone) are left out. */
export async function presentStatuses(core: AppCore, statuses: readonly Status[], viewer: Account | null, options: RenderOptions = {}): Promise<StatusJson[]> {
  if (statuses.length === 0) return [];
  const bundle = await loadStatusBundle(core, statuses, viewer);
  return statuses.flatMap((status) => {
    const json = renderStatus(core.config, status, bundle, options);
    return json ? [json] : [];
  });
}

export async function presentStatus(core: AppCore, status: Status, viewer: Account | null, options: RenderOptions = {}): Promise<StatusJson> {
  const [json] = await presentStatuses(core, [status], viewer, options);
  if (!json) throw notFound();
  return json;
}

export async function presentAccounts(core: AppCore, ids: readonly Id[]): Promise<AccountJson[]> {
  const found = await core.storage.accounts.getMany(ids);
  const decorators = await loadAccountDecorators(core, found);
  const accounts = new Map(found.map((a) => [a.id, a]));
  return ids.flatMap((id) => {
    const account = accounts.get(id);
    return account ? [renderAccount(core.config, account, decorators)] : [];
  });
}

export interface NotificationJson {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: AccountJson;
  status?: StatusJson;
  report?: ReportJson;
}

/** Notifications for their recipient; those whose account is gone, or whose status is gone or
 * no longer visible to the recipient (policy.ts, through viewer.ts), are left out: every read
 * of a notification and its fan-out to the streams render through here. */
export async function presentNotifications(core: AppCore, notifications: readonly Notification[], viewer: Account): Promise<NotificationJson[]> {
  const statusIds = unique(notifications.flatMap((n) => (n.statusId === null ? [] : [n.statusId])));
  const statuses = await filterVisible(core, viewer, await many(statusIds, (ids) => core.storage.statuses.getMany(ids)));
  const reportIds = unique(notifications.flatMap((n) => (n.reportId === undefined ? [] : [n.reportId])));
  const reports = new Map((await many(reportIds, (ids) => core.storage.reports.getMany(ids))).map((r) => [r.id, r]));
  const senderIds = unique([...notifications.map((n) => n.fromAccountId), ...[...reports.values()].map((r) => r.targetAccountId)]);
  // With statuses, the senders are read and decorated with the statuses' authors, in one go.
  let accounts: ReadonlyMap<Id, Account>;
  let accountDecorators: readonly LoadedAccountDecorator[];
  const statusById = new Map<Id, StatusJson>();
  if (statuses.length === 0) {
    const found = (await core.storage.accounts.getMany(senderIds)).filter((a) => a.deletedAt === null);
    accounts = new Map(found.map((a) => [a.id, a]));
    accountDecorators = await loadAccountDecorators(core, found);
  } else {
    const bundle = await loadStatusBundle(core, statuses, viewer, senderIds);
    accounts = bundle.accounts;
    accountDecorators = bundle.accountDecorators ?? NO_ACCOUNT_DECORATORS;
    for (const status of statuses) {
      const json = renderStatus(core.config, status, bundle);
      if (json) statusById.set(json.id, json);
    }
  }
  return notifications.flatMap((n) => {
    const account = accounts.get(n.fromAccountId);
    if (!account) return [];
    const json: NotificationJson = {
      id: n.id,
      type: n.type,
      created_at: iso(n.createdAt),
      group_key: n.groupKey ?? `ungrouped-${n.id}`,
      account: renderAccount(core.config, account, accountDecorators),
    };
    if (n.statusId !== null) {
      const status = statusById.get(n.statusId);
      if (!status) return [];
      json.status = status;
    }
    if (n.reportId !== undefined) {
      const report = reports.get(n.reportId);
      const target = report === undefined ? undefined : accounts.get(report.targetAccountId);
      if (report === undefined || target === undefined) return [];
      json.report = renderReport(report, renderAccount(core.config, target, accountDecorators));
    }
    return [json];
  });
}

/** A viewer with no interaction of their own: what every signed-in subscriber of a new status
 * sees (all flags false), rendered once for all of them. */
export function blankViewer(): ViewerBundle {
  return {
    state: { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() },
    filters: [],
    keywords: keywordMatcher([]),
  };
}

/** A status's plugin-owned parts as an anonymous reader sees them (the poll's option titles, the
 * media): what the edit history records of a revision the core cannot read itself. */
export async function pluginParts(core: AppCore, status: Status): Promise<Pick<StatusJson, 'media_attachments' | 'poll' | 'card' | 'emojis'>> {
  const json = { media_attachments: [], poll: null, card: null, emojis: [] } as unknown as StatusJson;
  const context = { now: core.clock.now(), signedIn: false };
  for (const { decorator, loaded } of await loadDecorators(core, [status], null)) decorator.render(status, loaded, json, context);
  return { media_attachments: json.media_attachments, poll: json.poll, card: json.card, emojis: json.emojis };
}
