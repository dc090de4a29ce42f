// Outgoing activities, from the domain events of local accounts: each listener runs as a job
// of its own (retried on failure) and hands the activity to Fedify, whose queue delivers it,
// signed, to every inbox with retries and backoff. The recipients follow the visibility: a
// status goes to its author's remote followers unless it is direct, and to the remote
// accounts it mentions; never to a blocked domain. A local poll's new counts go, a while after
// its votes, to the same audience and to the remote accounts that voted.

import { accountUri, pollsService, statusUri, type Account, type Id, type LocalPollVoted, type PluginHost, type PollVote, type Status } from 'rookery/plugin-kit';
import type { Context } from '@fedify/fedify';
import {
  Accept,
  Announce,
  Block,
  Create,
  Delete,
  Follow,
  Like,
  Move,
  Note,
  PUBLIC_COLLECTION,
  Reject,
  Tombstone,
  Undo,
  Update,
  type Activity,
  type Recipient,
} from '@fedify/fedify/vocab';
import { recipientOf, type FederationParts } from './federation.ts';
import { CreateWithMedia, UpdateWithMedia } from './media-terms.ts';
import { actorOf, instant, noteOf } from './objects.ts';
import type { Relays } from './relays.ts';

export interface OutgoingOptions {
  isBlocked(domain: string): Promise<boolean>;
  /** How long after a vote on a local poll its new counts are sent (ms). */
  pollUpdateDelayMs: number;
  /** Where public statuses also go. */
  relays?: Relays;
}

/** Mastodon sends a poll's counts about three minutes after a vote, once for all that came. */
export const POLL_UPDATE_DELAY_MS = 3 * 60_000;

const MAX_FOLLOWER_PAGES = 1000;

/** Recipients looked up at once (each a read of the inbox remembered for the account, or a
 * fetch of its actor): on PostgreSQL a read is a round trip, and one after another an author's
 * 100,000 remote followers took longer than the job's 30 s, so the job was retried, delivering
 * again to the inboxes it had reached, until it was buried. */
const RECIPIENT_LOOKUPS = 32;

/** Inboxes per queued fan-out: Fedify's fan-out message lists every inbox it delivers to, and
 * the queue refuses a message over MAX_MESSAGE_LENGTH (queue.ts), so an author with 100,000
 * followers on as many servers is sent in several. */
export const INBOXES_PER_FANOUT = 2000;

/** One recipient per inbox a delivery goes to (the shared inbox where a server has one): a
 * server's followers cost one entry, not one each, and deliveries are the same. */
export function oneRecipientPerInbox(list: readonly Recipient[]): Recipient[] {
  const byInbox = new Map<string, Recipient>();
  for (const recipient of list) {
    const inbox = recipient.endpoints?.sharedInbox ?? recipient.inboxId;
    if (inbox === null || byInbox.has(inbox.href)) continue;
    byInbox.set(inbox.href, { id: recipient.id, inboxId: inbox });
  }
  return [...byInbox.values()];
}

/** The author's remote followers' accounts: the store finds the remote ones, so an author with
 * many local followers costs nothing more here. */
async function remoteFollowers(host: PluginHost, accountId: Id): Promise<Account[]> {
  const found: Account[] = [];
  let maxId: Id | undefined;
  for (let i = 0; i < MAX_FOLLOWER_PAGES; i++) {
    const page = await host.system.relationships.remoteFollowersOf(accountId, { limit: 200, ...(maxId === undefined ? {} : { maxId }) });
    const accounts = await host.system.accounts.getMany(page.map((follow) => follow.accountId));
    found.push(...accounts);
    if (page.length < 200) break;
    maxId = page.at(-1)?.id;
  }
  return found;
}

export function outgoing(host: PluginHost, parts: FederationParts, options: OutgoingOptions): void {
  

  /** A live local account: a deleted one sends nothing more (its statuses, favourites and
   * follows go without a word each: the Delete of the actor says it all). */
  async function localOrNull(id: Id): Promise<Account | null> {
    const account = await host.system.accounts.get(id);
    return account !== null && account.domain === null && account.deletedAt === null ? account : null;
  }

  async function recipients(ctx: Context<PluginHost>, accounts: readonly Account[]): Promise<Recipient[]> {
    const remote: Account[] = [];
    const seen = new Set<Id>();
    for (const account of accounts) {
      if (account.domain === null || seen.has(account.id)) continue;
      seen.add(account.id);
      remote.push(account);
    }
    // Asked once per domain: many followers share a few servers.
    const blocked = new Map<string, Promise<boolean>>();
    const found: (Recipient | null)[] = remote.map(() => null);
    let next = 0;
    const lookUp = async (): Promise<void> => {
      while (next < remote.length) {
        const at = next++;
        const account = remote[at] as Account & { domain: string };
        let refused = blocked.get(account.domain);
        if (refused === undefined) blocked.set(account.domain, (refused = options.isBlocked(account.domain)));
        if (!(await refused)) found[at] = await recipientOf(parts, ctx, account);
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECIPIENT_LOOKUPS, remote.length) }, lookUp));
    return found.filter((recipient): recipient is Recipient => recipient !== null);
  }

  /** The relays a status goes to besides its audience: those subscribed, when it is public. */
  async function relaysFor(relayed: boolean): Promise<Recipient[]> {
    return relayed && options.relays ? options.relays.recipients() : [];
  }

  /** Sends `activity` to the remote accounts `to`, and to the relays when it is about a public
   * status (`relayed`), as Mastodon does. `relayInboxes`: the relays, when already read. */
  async function send(ctx: Context<PluginHost>, sender: Account, to: readonly Account[], activity: Activity, relayed = false, relayInboxes?: Recipient[]): Promise<void> {
    const list = await recipients(ctx, to);
    list.push(...(relayInboxes ?? (await relaysFor(relayed))));
    const inboxes = oneRecipientPerInbox(list);
    // No ordering key: the queue runs the jobs of one key one at a time, so a server that is
    // down would hold back every later delivery of the sender to every other server.
    for (let i = 0; i < inboxes.length; i += INBOXES_PER_FANOUT) {
      await ctx.sendActivity({ identifier: sender.username }, inboxes.slice(i, i + INBOXES_PER_FANOUT), activity, { preferSharedInbox: true });
    }
  }

  /** Who must get a status: the author's remote followers (unless direct), the remote accounts
   * it mentions, and the remote author of the status it replies to when that one may see it;
   * `also` (a poll's voters) unless it is direct. */
  async function audience(status: Status, author: Account, mentioned: readonly Account[], also: readonly Account[] = []): Promise<Account[]> {
    const to = [...mentioned];
    if (status.visibility !== 'direct') to.push(...(await remoteFollowers(host, author.id)), ...also);
    if (status.inReplyToAccountId !== null && status.visibility !== 'direct') {
      const parentAuthor = await host.system.accounts.get(status.inReplyToAccountId);
      if (parentAuthor !== null) to.push(parentAuthor);
    }
    return to;
  }

  async function statusActivity(status: Status, kind: 'create' | 'update'): Promise<void> {
    if (!status.local || status.reblogOfId !== null) return;
    const author = await localOrNull(status.accountId);
    if (author === null) return;
    // Who gets it is known before the Note is: an author with no remote follower who mentions
    // no remote account, on an instance with no relay, sends nothing, and then neither the
    // Note nor Fedify's context (costly next to a local publish) is made for nobody.
    const mentioned = (await host.system.accounts.getMany(status.mentionIds)).filter((account) => account.domain !== null);
    const to = await audience(status, author, mentioned);
    const relayed = status.visibility === 'public';
    const relayInboxes = await relaysFor(relayed);
    if (relayInboxes.length === 0 && !to.some((account) => account.domain !== null)) return;
    const ctx = parts.context();
    const { object } = await noteOf(ctx, host, status, author);
    const id = object.id?.href ?? statusUri(host.config, status, author);
    const values = { actor: ctx.getActorUri(author.username), object, tos: object.toIds, ccs: object.ccIds };
    const activity =
      kind === 'create'
        ? new CreateWithMedia({ ...values, id: new URL(`${id}/activity`), published: instant(status.createdAt) })
        : new UpdateWithMedia({ ...values, id: new URL(`${id}#updates/${status.editedAt ?? host.clock.now()}`), updated: instant(status.editedAt ?? host.clock.now()) });
    await send(ctx, author, to, activity, relayed, relayInboxes);
  }

  host.on('status.created', async (event) => statusActivity(event.status, 'create'));
  host.on('status.updated', async (event) => statusActivity(event.status, 'update'));
  // A new quote policy goes as the Note again (Mastodon's Update), its interactionPolicy changed.
  host.on('status.policy_changed', async (event) => statusActivity(event.status, 'update'));
  // A local quote the quoted author's server accepted: the Note again, now with its
  // quoteAuthorization, so that every server that has it can verify it (Mastodon's Update).
  host.on('quote.changed', async (event) => {
    if (event.quote.state !== 'accepted' || event.from !== 'pending') return;
    const status = await host.system.statuses.get(event.quote.statusId);
    if (status !== null && status.local) await statusActivity(status, 'update');
  });

  host.on('status.deleted', async (event) => {
    const { status } = event;
    if (!status.local || status.reblogOfId !== null) return;
    const author = await localOrNull(status.accountId);
    if (author === null) return;
    const ctx = parts.context();
    const uri = statusUri(host.config, status, author);
    const mentioned = (await host.system.accounts.getMany(status.mentionIds)).filter((account) => account.domain !== null);
    const activity = new Delete({
      id: new URL(`${uri}#delete`),
      actor: ctx.getActorUri(author.username),
      object: new Tombstone({ id: new URL(uri) }),
      tos: [PUBLIC_COLLECTION],
    });
    await send(ctx, author, await audience(status, author, mentioned), activity, status.visibility === 'public');
  });

  /** A local account's boost as an Announce (with what it is sent to), or null when the booster
   * is remote or a party is gone. The Undo of an unboost carries the same Announce. */
  async function announceOf(boost: Status, original: Status) {
    const booster = await localOrNull(boost.accountId);
    const originalAuthor = booster === null ? null : await host.system.accounts.get(original.accountId);
    if (booster === null || originalAuthor === null) return null;
    const ctx = parts.context();
    const announce = new Announce({
      id: new URL(statusUri(host.config, boost, booster)),
      actor: ctx.getActorUri(booster.username),
      object: new URL(statusUri(host.config, original, originalAuthor)),
      tos: [PUBLIC_COLLECTION],
      ccs: [new URL(accountUri(host.config, originalAuthor)), ctx.getFollowersUri(booster.username)],
      published: instant(boost.createdAt),
    });
    return { ctx, booster, announce, to: [originalAuthor, ...(await remoteFollowers(host, booster.id))], relayed: boost.visibility === 'public' };
  }

  host.on('status.reblogged', async (event) => {
    const boosted = await announceOf(event.boost, event.original);
    if (boosted !== null) await send(boosted.ctx, boosted.booster, boosted.to, boosted.announce, boosted.relayed);
  });

  host.on('status.unreblogged', async (event) => {
    const boosted = await announceOf(event.boost, event.original);
    if (boosted === null) return;
    const { ctx, booster, announce, to, relayed } = boosted;
    const undo = new Undo({ id: new URL(`${announce.id?.href}#undo`), actor: ctx.getActorUri(booster.username), object: announce, tos: [PUBLIC_COLLECTION] });
    await send(ctx, booster, to, undo, relayed);
  });

  const likeOf = (ctx: Context<PluginHost>, by: Account, status: Status, author: Account) =>
    new Like({ id: new URL(`${ctx.getActorUri(by.username).href}#likes/${status.id}/${host.clock.now()}`), actor: ctx.getActorUri(by.username), object: new URL(statusUri(host.config, status, author)) });

  host.on('status.favourited', async (event) => {
    const by = await localOrNull(event.by.id);
    const author = await host.system.accounts.get(event.status.accountId);
    if (by === null || author === null || author.domain === null) return;
    const ctx = parts.context();
    await send(ctx, by, [author], likeOf(ctx, by, event.status, author));
  });

  host.on('account.followed', async (event) => {
    const { follow } = event;
    const follower = await localOrNull(follow.accountId);
    const target = await host.system.accounts.get(follow.targetAccountId);
    if (follower === null || target === null || target.domain === null) return;
    const ctx = parts.context();
    const activity = new Follow({ id: new URL(`${ctx.getActorUri(follower.username).href}#follows/${follow.id}`), actor: ctx.getActorUri(follower.username), object: new URL(accountUri(host.config, target)) });
    await send(ctx, follower, [target], activity);
  });

  host.on('account.updated', async (event) => {
    const account = await localOrNull(event.account.id);
    if (account === null) return;
    const ctx = parts.context();
    const actor = await actorOf(ctx, host, account, await ctx.getActorKeyPairs(account.username));
    if (actor === null) return;
    const update = new Update({ id: new URL(`${actor.id?.href}#updates/${host.clock.now()}`), actor: actor.id, object: actor, tos: [PUBLIC_COLLECTION] });
    await send(ctx, account, await remoteFollowers(host, account.id), update);
  });

  host.on('status.unfavourited', async (event) => {
    const by = await localOrNull(event.by.id);
    const author = await host.system.accounts.get(event.status.accountId);
    if (by === null || author === null || author.domain === null) return;
    const ctx = parts.context();
    const like = likeOf(ctx, by, event.status, author);
    const undo = new Undo({ id: new URL(`${like.id?.href}#undo`), actor: ctx.getActorUri(by.username), object: like });
    await send(ctx, by, [author], undo);
  });

  host.on('account.unfollowed', async (event) => {
    const { follow } = event;
    const follower = await localOrNull(follow.accountId);
    const target = await host.system.accounts.get(follow.targetAccountId);
    if (follower === null || target === null || target.domain === null) return;
    const ctx = parts.context();
    const actor = ctx.getActorUri(follower.username);
    const undo = new Undo({
      id: new URL(`${actor.href}#follows/${follow.id}/undo`),
      actor,
      object: new Follow({ id: new URL(`${actor.href}#follows/${follow.id}`), actor, object: new URL(accountUri(host.config, target)) }),
    });
    await send(ctx, follower, [target], undo);
  });

  // A local account's decision on a remote account's request to follow it.
  host.on('follow_request.authorized', async (event) => {
    const { follow } = event;
    const target = await localOrNull(follow.targetAccountId);
    const follower = await host.system.accounts.get(follow.accountId);
    if (target === null || follower === null || follower.domain === null || (await options.isBlocked(follower.domain))) return;
    const followUri = (await parts.kv.get<string>(['rookery', 'follow-uri', follower.id, target.id])) ?? null;
    await answerFollow(parts, host, target, follower, followUri, true);
  });
  host.on('follow_request.rejected', async (event) => {
    const target = await localOrNull(event.targetAccountId);
    const follower = await host.system.accounts.get(event.accountId);
    if (target === null || follower === null || follower.domain === null || (await options.isBlocked(follower.domain))) return;
    const followUri = (await parts.kv.get<string>(['rookery', 'follow-uri', follower.id, target.id])) ?? null;
    await answerFollow(parts, host, target, follower, followUri, false);
  });

  // A local vote on a remote poll: for each chosen option, a Create of a Note naming it, in
  // reply to the Question, to its author only (Mastodon's votes). The ids name the poll and the
  // option, so that a retried job sends the same vote again, which the author's server ignores.
  const sendVote = async (vote: PollVote) => {
    const status = await host.system.statuses.get(vote.statusId);
    if (status === null || status.local || status.uri === null) return;
    const author = await host.system.accounts.get(status.accountId);
    const voter = await localOrNull(vote.accountId);
    const poll = await host.service(pollsService)?.get(vote.pollId);
    if (author === null || author.domain === null || voter === null || poll == null) return;
    const ctx = parts.context();
    const actor = ctx.getActorUri(voter.username);
    const to = new URL(accountUri(host.config, author));
    for (const choice of vote.choices) {
      const title = poll.options[choice];
      if (title === undefined) continue;
      const id = `${actor.href}#votes/${poll.id}/${choice}`;
      const note = new Note({ id: new URL(id), attribution: actor, name: title, replyTarget: new URL(status.uri), tos: [to] });
      await send(ctx, voter, [author], new Create({ id: new URL(`${id}/activity`), actor, object: note, tos: [to] }));
    }
  };

  // A vote counted on a local poll (a local account's, or one from another server): the Question
  // with its new counts goes as an Update to the status's audience and to the remote voters.
  // Bursts are coalesced: each vote records, with itself, a job due `pollUpdateDelayMs` later,
  // which sends the poll as it is when it runs; a job that finds the counts already sent does
  // nothing (its vote was in them), and one that comes less than a delay after the last send
  // waits for the end of that delay. So a poll's counts go at most once per delay while votes
  // come (plus a retry of a failed job, which sends the same Update under the same id), and a
  // vote's job runs after its vote is stored, so no vote is left out of the last Update.
  const pollUpdateKey = (pollId: Id) => ['rookery', 'poll-update', pollId] as const;
  const pollUpdateJob = host.handleJob('poll-update', async (payload) => {
    const { pollId, statusId } = payload as LocalPollVoted;
    const polls = host.service(pollsService);
    const status = await host.system.statuses.get(statusId);
    if (polls === null || status === null || !status.local || status.deletedAt !== null || status.pollId !== pollId) return;
    const author = await localOrNull(status.accountId);
    const poll = await polls.get(pollId);
    if (author === null || poll === null) return;
    // Counts only grow while the status keeps its edit; an edit that resets them moves editedAt.
    const state = `${status.editedAt ?? 0}-${poll.votersCount}-${poll.votes.join('.')}`;
    const last = await parts.kv.get<{ state: string; at: number }>(pollUpdateKey(pollId));
    if (last?.state === state) return;
    const now = host.clock.now();
    if (last !== undefined && now < last.at + options.pollUpdateDelayMs) {
      await host.enqueue([{ name: pollUpdateJob, payload: { pollId, statusId }, runAt: last.at + options.pollUpdateDelayMs, orderingKey: `poll-update:${pollId}` }]);
      return;
    }
    const ctx = parts.context();
    const { object, mentioned } = await noteOf(ctx, host, status, author);
    const voters = await host.system.accounts.getMany(await polls.voters(pollId));
    const id = object.id?.href ?? statusUri(host.config, status, author);
    // The id names the state sent: a retry sends the same activity, which a receiver ignores.
    const update = new Update({ id: new URL(`${id}#updates/poll/${state}`), actor: ctx.getActorUri(author.username), object, tos: object.toIds, ccs: object.ccIds });
    await send(ctx, author, await audience(status, author, mentioned, voters), update);
    await parts.kv.set(pollUpdateKey(pollId), { state, at: now });
  });
  // Polls are the polls plugin's: heard of through its service, once every plugin registered.
  host.onReady(() => {
    const polls = host.service(pollsService);
    polls?.onVote(sendVote);
    polls?.onLocalPollVoted((voted) => [
      { name: pollUpdateJob, payload: { pollId: voted.pollId, statusId: voted.statusId }, runAt: host.clock.now() + options.pollUpdateDelayMs, orderingKey: `poll-update:${voted.pollId}` },
    ]);
  });

  // A deleted local account: the servers of the remote accounts that knew it (a page of its
  // followers and follows at a time) get the Delete of the actor, once per server (Fedify
  // sends to each shared inbox once), as Mastodon's DeleteAccountService sends it.
  host.on('account.departed', async (event) => {
    const account = await host.system.accounts.get(event.account.id);
    if (account === null || account.domain !== null || account.deletedAt === null) return;
    const ctx = parts.context();
    const actor = ctx.getActorUri(account.username);
    const activity = new Delete({ id: new URL(`${actor.href}#delete`), actor, object: actor, tos: [PUBLIC_COLLECTION] });
    await send(ctx, account, await host.system.accounts.getMany(event.audience), activity);
  });

  // A local account moved: its remote followers' servers get the Move (actor and object the
  // account, target the new one), and move them; its local followers are the core's.
  host.on('account.moved', async (event) => {
    const account = await localOrNull(event.account.id);
    const target = await host.system.accounts.get(event.target.id);
    if (account === null || target === null || account.movedToAccountId !== target.id) return;
    const ctx = parts.context();
    const actor = ctx.getActorUri(account.username);
    const activity = new Move({ id: new URL(`${actor.href}#moves/${target.id}`), actor, object: actor, target: new URL(accountUri(host.config, target)), tos: [ctx.getFollowersUri(account.username)] });
    await send(ctx, account, await remoteFollowers(host, account.id), activity);
  });

  const blockOf = (ctx: Context<PluginHost>, blocker: Account, target: Account) =>
    new Block({ id: new URL(`${ctx.getActorUri(blocker.username).href}#blocks/${target.id}/${host.clock.now()}`), actor: ctx.getActorUri(blocker.username), object: new URL(accountUri(host.config, target)) });
  host.on('account.blocked', async (event) => {
    const blocker = await localOrNull(event.accountId);
    const target = await host.system.accounts.get(event.targetAccountId);
    if (blocker === null || target === null || target.domain === null) return;
    const ctx = parts.context();
    await send(ctx, blocker, [target], blockOf(ctx, blocker, target));
  });
  host.on('account.unblocked', async (event) => {
    const blocker = await localOrNull(event.accountId);
    const target = await host.system.accounts.get(event.targetAccountId);
    if (blocker === null || target === null || target.domain === null) return;
    const ctx = parts.context();
    const block = blockOf(ctx, blocker, target);
    await send(ctx, blocker, [target], new Undo({ id: new URL(`${block.id?.href}#undo`), actor: ctx.getActorUri(blocker.username), object: block }));
  });
}

/** Accept or Reject of a remote account's Follow of a local one. */
export async function answerFollow(parts: FederationParts, host: PluginHost, local: Account, remote: Account, followUri: string | null, accept: boolean): Promise<void> {
  const ctx = parts.context();
  const recipient = await recipientOf(parts, ctx, remote);
  if (recipient === null) return;
  const actor = ctx.getActorUri(local.username);
  const follow = new Follow({ ...(followUri ? { id: new URL(followUri) } : {}), actor: new URL(accountUri(host.config, remote)), object: actor });
  const id = new URL(`${actor.href}#${accept ? 'accepts' : 'rejects'}/${remote.id}/${host.clock.now()}`);
  const activity = accept ? new Accept({ id, actor, object: follow }) : new Reject({ id, actor, object: follow });
  await ctx.sendActivity({ identifier: local.username }, recipient, activity);
}
