// The streams handler: turns events into stream messages on the bus. A status is rendered
// once per kind of reader (anonymously for public and hashtag channels; once for every
// signed-in reader of a new status, whose flags are all false) and only for channels someone
// listens to (in any process of the instance). Only an edit or a boost, where a reader's own flags (favourited,
// bookmarked …) may differ, is rendered per reader. Each subscriber's blocks, mutes, languages
// and keyword filters are applied at delivery (core/streaming), from the facts sent along.

import type { AppCore } from '../context.ts';
import type { Id, Status } from '../../domain/model.ts';
import type { StatusFacts, StreamMessage } from '../../domain/ports/bus.ts';
import { blankViewer, decoratorsFor, loadStatusBundle, presentNotifications } from '../present/load.ts';
import { presentConversations } from '../present/conversation.ts';
import { renderStatus, searchableText, type StatusBundle, type StatusJson } from '../present/status.ts';
import { sameData } from '../present/cache/status-text.ts';
import type { EventHandler } from '../../domain/queue/registry.ts';
import { repeatsInHome } from '../../domain/timelines/home.ts';
import { audienceOf } from '../../domain/routing/audience.ts';
import { channels, controlTarget } from '../../domain/routing/channels.ts';
import type { DomainEventType } from '../../domain/events/events.ts';
import { routeStatus, type Route, type RouteKind } from '../../domain/routing/routing.ts';

export const STREAMED_EVENTS: readonly DomainEventType[] = [
  'status.created',
  'status.updated',
  'status.refreshed',
  'status.deleted',
  'status.reblogged',
  'status.unreblogged',
  'notification.created',
  'conversation.updated',
  'filters.changed',
  'relationship.changed',
  'settings.changed',
  'token.revoked',
  'account.disabled',
  'quote.changed',
  'status.policy_changed',
];

export function streamHandler(core: AppCore): EventHandler {
  const publishIfListened = async (channel: string, message: StreamMessage) => {
    if (await core.bus.hasSubscribers(channel)) await core.bus.publish(channel, message);
  };
  return async ({ event }) => {
    switch (event.type) {
      case 'status.created': {
        // Who listens is asked first, of the status as published: when nobody does, it is not
        // read again. (An edit made meanwhile reaches the listeners with its own event.)
        const routes = await liveRoutes(core, event.status, 'update');
        if (routes.length === 0) return;
        const status = await core.storage.statuses.get(event.status.id);
        if (status !== null) await publishStatus(core, status, 'update', sameData(status, event.status) ? routes : undefined);
        return;
      }
      case 'status.updated':
      case 'status.refreshed':
      case 'status.policy_changed': {
        // Rendered as it is now: an edit or a delete may have happened since.
        const status = await core.storage.statuses.get(event.status.id);
        if (status !== null) await publishStatus(core, status, 'status.update');
        return;
      }
      case 'quote.changed': {
        // Readers see the quoting status's quote in its new state (accepted, revoked …).
        const status = await core.storage.statuses.get(event.quote.statusId);
        if (status !== null) await publishStatus(core, status, 'status.update');
        return;
      }
      case 'status.reblogged': {
        const boost = await core.storage.statuses.get(event.boost.id);
        if (boost !== null) await publishStatus(core, boost, 'update');
        return;
      }
      case 'status.deleted':
        await publishDelete(core, event.status);
        for (const boost of event.boosts) await publishDelete(core, boost);
        return;
      case 'status.unreblogged':
        await publishDelete(core, event.boost);
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
      case 'conversation.updated': {
        // Mastodon sends it on the direct stream; clients that show direct messages from the
        // user stream (the web UI's conversations column among them) get it there too.
        const targets = await core.bus.listening([channels.direct(event.accountId), channels.user(event.accountId)]);
        if (targets.size === 0) return;
        const [owner, conversation] = await Promise.all([core.storage.accounts.get(event.accountId), core.storage.conversations.get(event.accountId, event.id)]);
        if (owner === null || conversation === null) return;
        const [json] = await presentConversations(core, [conversation], owner);
        if (json === undefined) return;
        for (const channel of targets) await core.bus.publish(channel, { event: 'conversation', payload: JSON.stringify(json) });
        return;
      }
      case 'filters.changed':
        await publishIfListened(channels.user(event.accountId), { event: 'filters_changed' });
        await publishIfListened(channels.control, { event: 'state_changed', payload: controlTarget.account(event.accountId) });
        return;
      case 'relationship.changed':
        await publishIfListened(channels.control, { event: 'state_changed', payload: controlTarget.account(event.accountId) });
        if (event.targetAccountId !== null) await publishIfListened(channels.control, { event: 'state_changed', payload: controlTarget.account(event.targetAccountId) });
        return;
      case 'settings.changed':
        await publishIfListened(channels.control, { event: 'state_changed', payload: controlTarget.account(event.accountId) });
        return;
      case 'token.revoked':
        await publishIfListened(channels.control, { event: 'kill', payload: controlTarget.token(event.tokenId) });
        return;
      case 'account.disabled':
        await publishIfListened(channels.control, { event: 'kill', payload: controlTarget.account(event.accountId) });
        return;
      default:
        return;
    }
  };
}

/** What every subscriber's own filters check a status against. */
export function statusFacts(status: Status, bundle: StatusBundle): StatusFacts {
  const original = status.reblogOfId === null ? null : (bundle.statuses.get(status.reblogOfId) ?? null);
  const proper = original ?? status;
  const authorIds = original === null ? [status.accountId] : [status.accountId, original.accountId];
  const domains = new Set<string>();
  for (const id of authorIds) {
    const domain = bundle.accounts.get(id)?.domain;
    if (domain) domains.add(domain.toLowerCase());
  }
  return {
    statusIds: original === null ? [status.id] : [status.id, original.id],
    accountIds: [...new Set([...authorIds, ...proper.mentionIds])],
    authorIds,
    domains: [...domains],
    language: proper.language,
    text: searchableText(proper, bundle),
  };
}

function encode(json: StatusJson | null): string | null {
  return json === null ? null : JSON.stringify(json);
}

/** The routes of a status that someone listens to (in this process or another). */
async function liveRoutes(core: AppCore, status: Status, kind: Exclude<RouteKind, 'delete'>): Promise<Route[]> {
  const routes = routeStatus(status, await audienceOf(core, status), kind);
  const listening = await core.bus.listening(routes.map((route) => route.channel));
  return routes.filter((route) => listening.has(route.channel));
}

/** `listened`: its live routes, when already found for this very status. */
async function publishStatus(core: AppCore, status: Status, kind: Exclude<RouteKind, 'delete'>, listened?: Route[]): Promise<void> {
  const live = await withoutRepeatedBoosts(core, status, kind, listened ?? (await liveRoutes(core, status, kind)));
  if (live.length === 0) return;
  const bundle = await loadStatusBundle(core, [status], null);
  const facts = statusFacts(status, bundle);
  // A reader's own flags only matter when the status may be older than the event: an edit, or
  // the original of a boost.
  const perReader = kind === 'status.update' || status.reblogOfId !== null;
  let anonymous: string | null | undefined;
  let signedIn: string | null | undefined;
  const byReader = new Map<Id, string | null>();
  for (const route of live) {
    let payload: string | null;
    if (route.viewerId === null) {
      payload = anonymous === undefined ? (anonymous = encode(renderStatus(core.config, status, bundle, { omitFiltered: true }))) : anonymous;
    } else if (!perReader) {
      payload = signedIn === undefined ? (signedIn = encode(renderStatus(core.config, status, { ...bundle, viewer: blankViewer() }, { omitFiltered: true }))) : signedIn;
    } else {
      if (!byReader.has(route.viewerId)) byReader.set(route.viewerId, await renderForReader(core, status, bundle, route.viewerId));
      payload = byReader.get(route.viewerId) ?? null;
    }
    if (payload !== null) await core.bus.publish(route.channel, { event: kind, payload, status: facts, signedIn: route.viewerId !== null });
  }
}

/** A new boost leaves the home streams of the readers whose home feed it repeats (its original
 * or another boost of it is among their feed's entries just before it): the same decision, by
 * timelines/home.ts, as their home timeline makes. Lists and other channels keep it. */
async function withoutRepeatedBoosts(core: AppCore, status: Status, kind: Exclude<RouteKind, 'delete'>, routes: Route[]): Promise<Route[]> {
  if (kind !== 'update' || status.reblogOfId === null) return routes;
  const kept: Route[] = [];
  for (const route of routes) {
    if (route.viewerId !== null && route.channel === channels.user(route.viewerId)) {
      const reader = await core.storage.accounts.get(route.viewerId);
      if (reader !== null && (await repeatsInHome(core, reader, status))) continue;
    }
    kept.push(route);
  }
  return kept;
}

/** The status with one reader's own flags, from the bundle already loaded plus their state. */
async function renderForReader(core: AppCore, status: Status, bundle: StatusBundle, readerId: Id): Promise<string | null> {
  const ids = [...bundle.statuses.keys()];
  const conversations = [...new Set([...bundle.statuses.values()].map((s) => s.conversationId))];
  const [state, decorators] = await Promise.all([
    core.storage.interactions.viewerState(readerId, ids, conversations),
    decoratorsFor(core, bundle, readerId),
  ]);
  return encode(renderStatus(core.config, status, { ...bundle, decorators, viewer: { ...blankViewer(), state } }, { omitFiltered: true }));
}

async function publishDelete(core: AppCore, status: Status): Promise<void> {
  const routes = routeStatus(status, await audienceOf(core, status), 'delete');
  const listening = await core.bus.listening(routes.map((route) => route.channel));
  for (const route of routes) {
    if (listening.has(route.channel)) await core.bus.publish(route.channel, { event: 'delete', payload: status.id });
  }
}
