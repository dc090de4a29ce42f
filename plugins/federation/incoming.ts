// Incoming activities: the inbox listeners (personal and shared inboxes) map what Fedify
// verified (HTTP signatures, draft-cavage and RFC 9421) onto the core's federation API. Every
// object is fetched under the federation's private-address rule; an actor of a blocked domain
// is ignored; remote HTML goes to the core, which sanitises and bounds it.

import { pollsService, type Account, type Id, type PluginHost, type Status } from 'rookery/plugin-kit';
import type { Context, InboxContext } from '@fedify/fedify';
import {
  Accept,
  Announce,
  Application,
  Block,
  Create,
  Delete,
  Flag,
  Follow,
  Like,
  Move,
  Note,
  PropertyValue,
  Question,
  QuoteRequest,
  Reject,
  Service,
  Undo,
  Update,
  isActor,
  type Activity,
  type Actor,
  type Object as APObject,
} from '@fedify/fedify/vocab';
import { findByUri, localAccount, rememberInbox, type FederationParts } from './federation.ts';
import { lookupUrl } from './documents.ts';
import { answerFollow } from './outgoing.ts';
import type { RemoteAccountInput, RemoteApi } from './remote-api.ts';
import { hrefOf, millis, statusInputOf, text } from './status-input.ts';
import { accountTexts, keepAccountEmojis, keepStatusEmojis, remoteEmojisOf, statusTexts, type EmojiRepository } from './remote-emoji.ts';
import { keepRemoteMedia, remoteMediaOf } from './remote-media.ts';
import { noteQuoteInput, quoteOf } from './quote-objects.ts';
import type { QuoteFederation } from './quotes.ts';
import type { Relays } from './relays.ts';

/** The activity's JSON as it arrived, for what Fedify's vocabulary does not keep (Mastodon's
 * attachment extras). Fedify 2.3.6 carries it on the inbox context, through its queue, for
 * forwarding; the property is not part of its typed API, so a Fedify upgrade must keep
 * test/plugins/federation/media.test.ts passing. */
function receivedActivity(ctx: InboxContext<PluginHost>): unknown {
  const raw = (ctx as { activity?: unknown }).activity;
  return typeof raw === 'object' && raw !== null ? raw : null;
}

export async function actorInput(actor: Actor): Promise<RemoteAccountInput | null> {
  if (actor.id === null) return null;
  const username = text(actor.preferredUsername);
  if (username === '') return null;
  const [icon, image] = await Promise.all([actor.getIcon().catch(() => null), actor.getImage().catch(() => null)]);
  const fields: { name: string; valueHtml: string }[] = [];
  let seen = 0;
  for await (const attachment of actor.getAttachments({ suppressError: true })) {
    if (++seen > 64 || fields.length >= 16) break;
    if (attachment instanceof PropertyValue) fields.push({ name: text(attachment.name), valueHtml: text(attachment.value) });
  }
  const published = millis(actor.published);
  return {
    uri: actor.id.href,
    url: hrefOf(actor.url) ?? actor.id.href,
    username,
    domain: actor.id.host.toLowerCase(),
    displayName: text(actor.name),
    noteHtml: text(actor.summary),
    fields,
    avatarUrl: hrefOf(icon?.url ?? null),
    headerUrl: hrefOf(image?.url ?? null),
    locked: actor.manuallyApprovesFollowers === true,
    bot: actor instanceof Service || actor instanceof Application,
    discoverable: actor.discoverable === true,
    alsoKnownAs: actor.aliasIds.slice(0, 20).map((id) => id.href),
    ...(published === null ? {} : { createdAt: published }),
  };
}

/** The actor's emojis, kept before the account is stored (so its first rendering shows them). */
export async function keepActorEmojis(emojis: EmojiRepository, actor: Actor, input: RemoteAccountInput): Promise<void> {
  await keepAccountEmojis(emojis, input.uri, await remoteEmojisOf(actor, accountTexts(input)));
}

/** The Note's or Question's parts the core does not store (media, emojis), kept under its uri
 * before the status is stored or updated. */
export async function keepStatusParts(host: PluginHost, parts: { kv: FederationParts['kv']; emojis: EmojiRepository }, object: Note | Question, uri: string, received: unknown = null): Promise<void> {
  await keepRemoteMedia(parts.kv, uri, await remoteMediaOf(() => host.newId(), object, received));
  await keepStatusEmojis(parts.emojis, uri, await remoteEmojisOf(object, await statusTexts(object)));
}

/** Objects of one Flag looked at (accounts and statuses). */
const MAX_FLAG_OBJECTS = 101;

export interface IncomingOptions {
  api: RemoteApi;
  /** Where the emojis of remote statuses and actors are kept (the plugin's repository). */
  emojis: EmojiRepository;
  isBlocked(domain: string): Promise<boolean>;
  /** Fetches and stores a status this instance has not seen (a boost of it arrived). */
  fetchStatus?(uri: string): Promise<Id | null>;
  /** The instance's relays: their answers to its subscription, and what they pass on. */
  relays?: Relays;
  /** Quote requests, their answers and withdrawn stamps (quotes.ts). */
  quotes?: QuoteFederation;
}

export function incoming(host: PluginHost, parts: FederationParts, options: IncomingOptions): void {
  const { api } = options;

  /** The remote sender, stored or refreshed; null when it is local, unknown, blocked or
   * suspended here. */
  async function senderOf(_ctx: Context<PluginHost>, activity: Activity): Promise<Account | null> {
    const actor = await activity.getActor({ suppressError: true });
    const claimed = activity.actorId;
    if (actor === null && claimed !== null && claimed.origin !== new URL(host.config.baseUrl).origin && !(await options.isBlocked(claimed.host.toLowerCase()))) {
      // Its server did not give the actor (in time, or at all): the job is retried later, as
      // Mastodon retries, rather than the activity dropped for good.
      throw new Error(`federation: the actor ${claimed.href.slice(0, 300)} could not be read`);
    }
    if (actor === null || actor.id === null || actor.id.origin === new URL(host.config.baseUrl).origin) return null;
    if (await options.isBlocked(actor.id.host.toLowerCase())) return null;
    const input = await actorInput(actor);
    if (input === null) return null;
    await rememberInbox(parts.kv, actor);
    await keepActorEmojis(options.emojis, actor, input);
    const account = await api.upsertRemoteAccount(input);
    // What an account the moderators suspended sends is dropped, as its statuses are hidden; a
    // deleted actor (its Delete came) says nothing more here.
    return (account.suspendedAt !== undefined && account.suspendedAt !== null) || account.deletedAt !== null ? null : account;
  }

  /** The activity's object, embedded or fetched. One named by a URL that cannot be fetched
   * (its server down, or too slow) fails the job, which is retried, as Mastodon retries. */
  async function objectOf(activity: Activity): Promise<APObject | null> {
    const object = await activity.getObject({ suppressError: true });
    const named = activity.objectId;
    if (object === null && named !== null && !(await options.isBlocked(named.host.toLowerCase()))) {
      throw new Error(`federation: the object ${named.href.slice(0, 300)} could not be read`);
    }
    return object;
  }

  /** The live local account an actor uri names (a deleted one takes no follow, block …). */
  async function localOf(ctx: Context<PluginHost>, uri: URL | null): Promise<Account | null> {
    const parsed = ctx.parseUri(uri);
    const account = parsed?.type === 'actor' ? await localAccount(host, parsed.identifier) : null;
    return account !== null && account.deletedAt === null ? account : null;
  }

  async function statusIdOf(uri: URL | null): Promise<Id | null> {
    if (uri === null) return null;
    const base = `${host.config.baseUrl}/users/`;
    if (uri.href.startsWith(base)) {
      const id = /\/statuses\/(\d+)$/.exec(uri.pathname)?.[1];
      return id ?? null;
    }
    return (await host.system.statuses.findByUri(uri.href))?.id ?? null;
  }

  /** A status by its uri: stored, or fetched when unknown. */
  async function resolveStatus(uri: URL): Promise<Id | null> {
    return (await statusIdOf(uri)) ?? (options.fetchStatus ? await options.fetchStatus(uri.href) : null);
  }

  /** The quote parts of a remote Note, for its input (quote-objects.ts). */
  async function withQuote<T extends object>(input: T, object: Note | Question, actor: Actor | null): Promise<T> {
    return { ...input, ...(await noteQuoteInput(host, object, actor, resolveStatus)) };
  }

  /** The object is the sender's: attributed to it, and its id on the sender's server. */
  async function sameAuthor(object: APObject, sender: Account): Promise<boolean> {
    if (sender.uri === null || object.id === null || object.id.origin !== new URL(sender.uri).origin) return false;
    return object.attributionIds.some((id) => id.href === sender.uri);
  }

  /** The local account whose Follow an Accept or Reject answers. The Follow is ours: its id is
   * an actor's id with a fragment (no fetch needed); else the embedded Follow's actor is read
   * as sent, which is safe because the core only turns a pending request of that account to
   * the sender into a follow. */
  async function followerOfAnswer(ctx: Context<PluginHost>, answer: Accept | Reject): Promise<Account | null> {
    const direct = await localOf(ctx, answer.objectId);
    if (direct !== null) return direct;
    const follow = await answer.getObject({ crossOrigin: 'trust', suppressError: true });
    return follow instanceof Follow ? localOf(ctx, follow.actorId) : null;
  }

  const listeners = parts.federation.setInboxListeners('/users/{identifier}/inbox', '/inbox');

  listeners
    .on(Follow, async (ctx: InboxContext<PluginHost>, follow) => {
      const sender = await senderOf(ctx, follow);
      const target = await localOf(ctx, follow.objectId);
      if (sender === null || target === null || follow.id === null) return;
      const state = await api.remoteFollow(sender.id, target.id, follow.id.href);
      await parts.kv.set(['rookery', 'follow-uri', sender.id, target.id], follow.id.href);
      if (state === 'following') await answerFollow(parts, host, target, sender, follow.id.href, true);
    })
    .on(Accept, async (ctx, accept) => {
      if (await options.relays?.answered(accept, true)) return;
      const sender = await senderOf(ctx, accept);
      if (sender !== null && (await options.quotes?.answered(accept, sender))) return;
      const follower = sender === null ? null : await followerOfAnswer(ctx, accept);
      if (sender !== null && follower !== null) await api.followAccepted(follower.id, sender.id);
    })
    .on(Reject, async (ctx, reject) => {
      if (await options.relays?.answered(reject, false)) return;
      const sender = await senderOf(ctx, reject);
      if (sender !== null && (await options.quotes?.answered(reject, sender))) return;
      const follower = sender === null ? null : await followerOfAnswer(ctx, reject);
      if (sender !== null && follower !== null) await api.followRejected(follower.id, sender.id);
    })
    .on(Create, async (ctx, create) => {
      const sender = await senderOf(ctx, create);
      if (sender === null) return;
      const object = await objectOf(create);
      if (!(object instanceof Note || object instanceof Question) || !(await sameAuthor(object, sender))) return;
      // A vote on a poll of ours (a Note naming the option, replying to the Question): not a
      // status; counted by the polls plugin under a local vote's rules (once per account and
      // option, so a second delivery of the same Note counts nothing).
      if (object instanceof Note && object.name !== null && ctx.parseUri(object.replyTargetId)?.type === 'object') {
        const statusId = await statusIdOf(object.replyTargetId);
        const polls = host.service(pollsService);
        if (statusId !== null && polls !== null) await polls.remoteVote(statusId, sender.id, text(object.name));
        return;
      }
      const actor = await create.getActor({ suppressError: true });
      const input = await statusInputOf(host, object, sender, actor);
      if (input === null) return;
      await keepStatusParts(host, { kv: parts.kv, emojis: options.emojis }, object, input.uri, receivedActivity(ctx));
      await api.receiveRemoteStatus(await withQuote(input, object, actor));
    })
    .on(Update, async (ctx, update) => {
      const sender = await senderOf(ctx, update);
      if (sender === null) return;
      const object = await objectOf(update);
      if (object instanceof Note || object instanceof Question) {
        if (!(await sameAuthor(object, sender))) return;
        const actor = await update.getActor({ suppressError: true });
        const input = await statusInputOf(host, object, sender, actor);
        if (input === null) return;
        await keepStatusParts(host, { kv: parts.kv, emojis: options.emojis }, object, input.uri, receivedActivity(ctx));
        await api.updateRemoteStatus(await withQuote(input, object, actor));
      }
      // An actor's new profile, as sent (the sender's own document, signed by it).
      else if (object !== null && isActor(object) && object.id?.href === sender.uri) {
        const input = await actorInput(object);
        if (input !== null) {
          await rememberInbox(parts.kv, object);
          await keepActorEmojis(options.emojis, object, input);
          await api.upsertRemoteAccount(input);
        }
      }
    })
    .on(Delete, async (_ctx, del) => {
      const actorId = del.actorId;
      const objectId = del.objectId;
      if (actorId === null || objectId === null) return;
      // What was kept beside the account goes with it; its statuses' parts go as each is deleted.
      if (objectId.href === actorId.href) {
        await api.removeRemoteAccount(actorId.href);
        await keepAccountEmojis(options.emojis, actorId.href, []);
        return;
      }
      const sender = await findByUri(host, actorId.href);
      if (sender === null || sender.domain === null) return;
      // A stamp withdrawn: the quote it authorized is revoked.
      if (await options.quotes?.deleted(objectId, sender)) return;
      // What was kept beside the status goes with it (forgetRemoteStatusParts).
      await api.deleteRemoteStatus(objectId.href, sender.id);
    })
    .on(Announce, async (ctx, announce) => {
      // A relay passing a status on: the status is taken (from its own server), not a boost.
      if (await options.relays?.isRelay(announce.actorId)) {
        if (announce.objectId !== null && (await statusIdOf(announce.objectId)) === null) await options.fetchStatus?.(announce.objectId.href);
        return;
      }
      const sender = await senderOf(ctx, announce);
      if (sender === null || announce.id === null) return;
      let statusId = await statusIdOf(announce.objectId);
      if (statusId === null && announce.objectId !== null && options.fetchStatus) statusId = await options.fetchStatus(announce.objectId.href);
      if (statusId !== null) await api.remoteBoost(sender.id, statusId, announce.id.href, millis(announce.published) ?? host.clock.now());
    })
    .on(Like, async (ctx, like) => {
      const sender = await senderOf(ctx, like);
      const statusId = await statusIdOf(like.objectId);
      if (sender !== null && statusId !== null) await api.remoteFavourite(sender.id, statusId);
    })
    .on(QuoteRequest, async (ctx, request) => {
      // A quote of a local status asks for approval. The quoting status (the instrument) is
      // stored first, as any status of the sender's; the core then answers by the policy.
      const sender = await senderOf(ctx, request);
      const quotedId = await statusIdOf(request.objectId);
      if (sender === null || quotedId === null || options.quotes === undefined) return;
      let quotingId = await statusIdOf(request.instrumentId);
      // A stored status that does not quote this one yet was edited to quote it (the Update may
      // come after the request): its current copy is fetched and applied as the edit.
      const stale = quotingId !== null && (await quoteOf(host, quotingId))?.quotedStatusId !== quotedId;
      if (quotingId === null || stale) {
        const instrument = await request.getInstrument({ suppressError: true });
        if ((instrument instanceof Note || instrument instanceof Question) && (await sameAuthor(instrument, sender))) {
          const actor = await request.getActor({ suppressError: true });
          const input = await statusInputOf(host, instrument, sender, actor);
          if (input !== null) {
            await keepStatusParts(host, { kv: parts.kv, emojis: options.emojis }, instrument, input.uri);
            const quoting = await withQuote(input, instrument, actor);
            quotingId = quotingId === null ? ((await api.receiveRemoteStatus(quoting))?.id ?? null) : ((await api.updateRemoteStatus(quoting))?.id ?? quotingId);
          }
        }
      }
      await options.quotes.requested(ctx, request, sender, quotingId, quotedId);
    })
    .on(Block, async (ctx, block) => {
      const sender = await senderOf(ctx, block);
      const target = await localOf(ctx, block.objectId);
      if (sender !== null && target !== null) await api.remoteBlock(sender.id, target.id);
    })
    .on(Undo, async (ctx, undo) => {
      const sender = await senderOf(ctx, undo);
      if (sender === null) return;
      const object = await undo.getObject({ suppressError: true });
      if (object instanceof Follow) {
        const target = await localOf(ctx, object.objectId);
        if (target !== null) await api.remoteUnfollow(sender.id, target.id);
      } else if (object instanceof Announce) {
        if (object.id !== null) await api.remoteUnboost(object.id.href, sender.id);
      } else if (object instanceof Like) {
        const statusId = await statusIdOf(object.objectId);
        if (statusId !== null) await api.remoteUnfavourite(sender.id, statusId);
      } else if (object instanceof Block) {
        const target = await localOf(ctx, object.objectId);
        if (target !== null) await api.remoteUnblock(sender.id, target.id);
      }
    })
    .on(Move, async (ctx, move) => {
      // A remote actor moved (Mastodon's Move: actor and object the origin, target the new
      // account). The target is read fresh from its own server (never as embedded, which the
      // origin could write), so that its aliases are its server's word; the core takes the
      // move only when they name the origin.
      const sender = await senderOf(ctx, move);
      if (sender === null || move.objectId?.href !== sender.uri || move.targetId === null) return;
      let target = await localOf(ctx, move.targetId);
      if (target === null) {
        if (move.targetId.origin === new URL(host.config.baseUrl).origin || (await options.isBlocked(move.targetId.host.toLowerCase()))) return;
        // Signed by the instance actor, and so not from the documents' cache.
        const fetched = await lookupUrl(ctx, move.targetId.href, await ctx.getDocumentLoader(await parts.instance.keyPair()));
        if (fetched === null || !isActor(fetched) || fetched.id?.href !== move.targetId.href) return;
        const input = await actorInput(fetched);
        if (input === null) return;
        await rememberInbox(parts.kv, fetched);
        await keepActorEmojis(options.emojis, fetched, input);
        target = await api.upsertRemoteAccount(input);
      }
      await api.remoteMove(sender.id, target.id);
    })
    .on(Flag, async (ctx, flag) => {
      // Another server reports local accounts (and statuses of theirs) to our moderators, as
      // Mastodon forwards a report: one report per local account named, or, when it names
      // none, per author of the local statuses it names. At most MAX_FLAG_OBJECTS are read.
      const sender = await senderOf(ctx, flag);
      if (sender === null) return;
      const targets = new Map<Id, Id[]>();
      const statusIds: Id[] = [];
      for (const id of flag.objectIds.slice(0, MAX_FLAG_OBJECTS)) {
        const account = await localOf(ctx, id);
        if (account !== null) {
          if (!targets.has(account.id)) targets.set(account.id, []);
          continue;
        }
        const statusId = id.origin === new URL(host.config.baseUrl).origin ? await statusIdOf(id) : null;
        if (statusId !== null) statusIds.push(statusId);
      }
      const statuses = await host.system.statuses.getMany(statusIds);
      const named = targets.size > 0;
      for (const status of statuses) {
        if (!named || targets.has(status.accountId)) targets.set(status.accountId, [...(targets.get(status.accountId) ?? []), status.id]);
      }
      const comment = text(flag.content);
      for (const [targetAccountId, ids] of targets) await api.receiveFlag({ reporterId: sender.id, targetAccountId, statusIds: ids, comment });
    })
    .onError((_ctx, error) => {
      host.logger.warn({ err: error }, 'federation: an incoming activity failed');
    });
}

/** The media and emojis kept beside a remote status, dropped once it is deleted, however that
 * came about (its Delete, or its author's). */
export async function forgetRemoteStatusParts(parts: FederationParts, emojis: EmojiRepository, status: Status): Promise<void> {
  if (status.local || status.uri === null || status.reblogOfId !== null) return;
  await keepStatusEmojis(emojis, status.uri, []);
  await keepRemoteMedia(parts.kv, status.uri, []);
}
