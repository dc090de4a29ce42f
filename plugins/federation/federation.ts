// The Fedify federation of one Rookery: the actor, object and collection dispatchers over the
// core's storage, and the context outgoing and incoming work runs in. Identifiers are local
// usernames (/users/{identifier}); statuses live at their `uri` (/users/{identifier}/statuses/{id}).
// What it signs and how: signatures.ts (deliveries) and instance-actor.ts (fetches); what it
// asks of those who fetch from it: `signedFetches` (AUTHORIZED_FETCH).

import { type Account, accountUri, type PluginHost, type Status } from 'rookery/plugin-kit';
import { FetchRefused, type Fetcher } from 'rookery/node';
import { createFederation, type Context, type Federation, type KvStore, type MessageQueue, type RequestContext } from '@fedify/fedify';
import { Create, isActor, Note, type Actor, type Recipient } from '@fedify/fedify/vocab';
import { documentLoaders, lookupUrl } from './documents.ts';
import { instanceActor, signFetches, type InstanceActor } from './instance-actor.ts';
import { keyStore, type KeyStore } from './keys.ts';
import { actorOf, instant, noteOf } from './objects.ts';
import { SPEC_PREFIX, specMemory, type SignatureSpec } from './signatures.ts';

export const PAGE = 20;
const MAX_URL = 2048;

export interface FederationParts {
  federation: Federation<PluginHost>;
  keys: KeyStore;
  /** The server's own actor (/actor): signs fetches and relay subscriptions. */
  instance: InstanceActor;
  kv: KvStore;
  /** How everything the plugin reads from other servers is fetched (documents.ts). */
  fetcher: Fetcher;
  /** A context for work outside a request (event jobs). */
  context(): Context<PluginHost>;
}

export interface BuildOptions {
  kv: KvStore;
  queue: MessageQueue;
  /** The instance's fetcher, with the plugin's limits and address setting. */
  fetcher: Fetcher;
  /** What deliveries say they are. */
  userAgent: string;
  /** How the first delivery to a server is signed (signatures.ts). */
  firstKnock: SignatureSpec;
  /** Whether a fetch of the instance's actors, statuses and collections is answered: true for
   * every fetch unless AUTHORIZED_FETCH (authorized-fetch.ts). */
  mayFetch(ctx: RequestContext<PluginHost>): Promise<boolean>;
}

/** Fedify posts each delivery itself (fetch(), with the headers its queued message carries), so
 * the fetcher cannot dial it: the queue hands each delivery over only once the fetcher's policy
 * has judged its inbox (a refused one is dropped: its address will not change by waiting), and
 * with our User-Agent, which Fedify would not send (Node's fetch then says "node"). Messages
 * queued before this was so are handled the same way. */
function deliveriesUnderPolicy(queue: MessageQueue, fetcher: Fetcher, userAgent: string, logger: PluginHost['logger']): MessageQueue {
  const deliver = async (handler: (message: unknown) => Promise<void> | void, message: unknown) => {
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'outbox') return handler(message);
    const { inbox, headers } = message as { inbox?: unknown; headers?: Record<string, string> };
    try {
      await fetcher.judge(String(inbox));
    } catch (error) {
      if (!(error instanceof FetchRefused)) throw error;
      logger.warn({ inbox, error: error.message }, 'federation: a delivery was not sent');
      return;
    }
    return handler({ ...message, headers: { ...headers, 'User-Agent': userAgent } });
  };
  const { enqueueMany, getDepth } = queue;
  return {
    ...(queue.nativeRetrial === undefined ? {} : { nativeRetrial: queue.nativeRetrial }),
    enqueue: (message, options) => queue.enqueue(message, options),
    ...(enqueueMany ? { enqueueMany: (messages, options) => enqueueMany.call(queue, messages, options) } : {}),
    ...(getDepth ? { getDepth: () => getDepth.call(queue) } : {}),
    listen: (handler, options) => queue.listen((message) => deliver(handler, message), options),
  };
}

/** A live local account by username, or null. */
export async function localAccount(host: PluginHost, username: string): Promise<Account | null> {
  if (!/^[A-Za-z0-9_]{1,30}$/.test(username)) return null;
  const account = await host.system.accounts.findByUsername(username, null);
  if (account === null || account.domain !== null) return null;
  const user = await host.system.accounts.getUser(account.id);
  return user === null || user.disabled ? null : account;
}

/** A live status of `author` written here (not a boost), or null; who may read it is decided
 * by the object's authorize predicate. */
async function ownStatus(host: PluginHost, author: Account, id: string): Promise<Status | null> {
  const status = await host.system.statuses.get(id);
  if (status === null || status.accountId !== author.id || !status.local || status.deletedAt !== null || status.reblogOfId !== null) return null;
  return status;
}

export function buildFederation(host: PluginHost, options: BuildOptions): FederationParts {
  const federation = createFederation<PluginHost>({
    kv: specMemory(options.kv),
    kvPrefixes: { httpMessageSignaturesSpec: SPEC_PREFIX },
    firstKnock: options.firstKnock,
    queue: deliveriesUnderPolicy(options.queue, options.fetcher, options.userAgent, host.logger),
    manuallyStartQueue: true,
    origin: host.config.baseUrl,
    // Neither allowPrivateAddress nor userAgent (Fedify refuses them with these): the fetcher
    // carries both, and every document comes through it.
    ...documentLoaders(options.fetcher, options.kv, { prefix: SPEC_PREFIX, first: options.firstKnock }),
  });
  const keys = keyStore(options.kv);
  const instance = instanceActor(host, keys, federation);
  signFetches(federation, options.kv, instance);
  const { mayFetch } = options;

  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      const account = await localAccount(host, identifier);
      if (account === null) return null;
      return actorOf(ctx, host, account, await ctx.getActorKeyPairs(identifier));
    })
    .authorize((ctx) => mayFetch(ctx))
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const account = await localAccount(host, identifier);
      return account === null ? [] : keys.pairsOf(account.id);
    })
    .mapHandle(async (_ctx, username) => (await localAccount(host, username))?.username ?? null);

  federation
    .setObjectDispatcher(Note, '/users/{identifier}/statuses/{id}', async (ctx, values) => {
      const author = await localAccount(host, values.identifier);
      const status = author === null ? null : await ownStatus(host, author, values.id);
      if (author === null || status === null) return null;
      return (await noteOf(ctx, host, status, author)).object as Note;
    })
    .authorize(async (ctx, values) => {
      if (!(await mayFetch(ctx))) return false;
      const author = await localAccount(host, values.identifier);
      const status = author === null ? null : await ownStatus(host, author, values.id);
      if (status === null) return true; // 404 follows
      if (status.visibility === 'public' || status.visibility === 'unlisted') return true;
      // Followers-only and direct statuses: only to a signed fetch by someone who may see them.
      const owner = await ctx.getSignedKeyOwner();
      if (owner?.id == null || author === null) return false;
      const reader = await findByUri(host, owner.id.href);
      if (reader === null) return false;
      if (status.mentionIds.includes(reader.id)) return true;
      return status.visibility === 'private' && (await host.system.relationships.getFollow(reader.id, author.id)) !== null;
    });

  federation
    .setOutboxDispatcher('/users/{identifier}/outbox', async (ctx, identifier, cursor) => {
      const author = await localAccount(host, identifier);
      if (author === null || cursor === null) return null;
      const page = await host.system.statuses.query(
        { visibilities: ['public'], authorId: author.id, excludeReblogs: true },
        { limit: PAGE, ...(cursor === '' ? {} : { maxId: cursor }) },
      );
      const items = await Promise.all(
        page.map(async (status) => {
          const { object } = await noteOf(ctx, host, status, author);
          return new Create({ id: new URL(`${object.id?.href}/activity`), actor: ctx.getActorUri(identifier), object, tos: object.toIds, ccs: object.ccIds, published: instant(status.createdAt) });
        }),
      );
      return { items, nextCursor: page.length < PAGE ? null : (page.at(-1)?.id ?? null) };
    })
    .setCounter(async (_ctx, identifier) => (await localAccount(host, identifier))?.statusesCount ?? null)
    .setFirstCursor(() => '')
    .authorize((ctx) => mayFetch(ctx));

  const accountPage = async (kind: 'followers' | 'following', identifier: string, cursor: string | null): Promise<{ items: URL[]; nextCursor: string | null } | null> => {
    const account = await localAccount(host, identifier);
    if (account === null || cursor === null) return null;
    const page = { limit: 40, ...(cursor === '' ? {} : { maxId: cursor }) };
    const follows = kind === 'followers' ? await host.system.relationships.followersOf(account.id, page) : await host.system.relationships.followingOf(account.id, page);
    const accounts = await host.system.accounts.getMany(follows.map((follow) => (kind === 'followers' ? follow.accountId : follow.targetAccountId)));
    return { items: accounts.map((other) => new URL(accountUri(host.config, other))), nextCursor: follows.length < page.limit ? null : (follows.at(-1)?.id ?? null) };
  };
  federation
    .setFollowersDispatcher('/users/{identifier}/followers', async (_ctx, identifier, cursor) => {
      // Only ids: deliveries never fan out through this collection (recipients are computed).
      const page = await accountPage('followers', identifier, cursor);
      return page === null ? null : { ...page, items: page.items.map((id): Recipient => ({ id, inboxId: null })) };
    })
    .setCounter(async (_ctx, identifier) => (await localAccount(host, identifier))?.followersCount ?? null)
    .setFirstCursor(() => '')
    .authorize((ctx) => mayFetch(ctx));
  federation
    .setFollowingDispatcher('/users/{identifier}/following', (_ctx, identifier, cursor) => accountPage('following', identifier, cursor))
    .setCounter(async (_ctx, identifier) => (await localAccount(host, identifier))?.followingCount ?? null)
    .setFirstCursor(() => '')
    .authorize((ctx) => mayFetch(ctx));

  federation.setFeaturedDispatcher('/users/{identifier}/collections/featured', async (ctx, identifier) => {
    const author = await localAccount(host, identifier);
    if (author === null) return null;
    const pins = await host.system.interactions.pinsBy(author.id);
    const statuses = await host.system.statuses.getMany(pins.map((pin) => pin.statusId));
    const shown = statuses.filter((status) => status.visibility === 'public' || status.visibility === 'unlisted');
    return { items: await Promise.all(shown.map(async (status) => (await noteOf(ctx, host, status, author)).object)) };
  })
    .authorize((ctx) => mayFetch(ctx));

  return {
    federation,
    keys,
    instance,
    kv: options.kv,
    fetcher: options.fetcher,
    context: () => federation.createContext(new URL(host.config.baseUrl), host),
  };
}

/** A known account by its ActivityPub id: local ones by their derived uri, remote ones as the
 * store keeps them. */
export async function findByUri(host: PluginHost, uri: string): Promise<Account | null> {
  const base = `${host.config.baseUrl}/users/`;
  if (uri.startsWith(base)) return localAccount(host, uri.slice(base.length));
  return host.system.accounts.findByUri(uri);
}

interface StoredInbox {
  inbox: string;
  sharedInbox: string | null;
}

/** Where a remote account takes deliveries: remembered from its actor document. */
export async function rememberInbox(kv: KvStore, actor: Actor): Promise<void> {
  const usable = (url: URL | null | undefined): url is URL => url != null && /^https?:$/.test(url.protocol) && url.href.length <= MAX_URL;
  if (actor.id === null || !usable(actor.inboxId)) return;
  const sharedInbox = actor.endpoints?.sharedInbox;
  const shared = usable(sharedInbox) ? sharedInbox.href : null;
  const stored: StoredInbox = { inbox: actor.inboxId.href, sharedInbox: shared };
  await kv.set(['rookery', 'inbox', actor.id.href], stored);
}

/** The recipient of a remote account, its actor document fetched when its inbox is unknown. */
export async function recipientOf(parts: FederationParts, ctx: Context<PluginHost>, account: Account): Promise<Recipient | null> {
  if (account.domain === null || account.uri === null) return null;
  let stored = await parts.kv.get<StoredInbox>(['rookery', 'inbox', account.uri]);
  if (stored === undefined) {
    const actor = await lookupUrl(ctx, account.uri);
    if (actor === null || !isActor(actor)) return null;
    await rememberInbox(parts.kv, actor);
    stored = await parts.kv.get<StoredInbox>(['rookery', 'inbox', account.uri]);
    if (stored === undefined) return null;
  }
  return { id: new URL(account.uri), inboxId: new URL(stored.inbox), endpoints: stored.sharedInbox === null ? null : { sharedInbox: new URL(stored.sharedInbox) } };
}
