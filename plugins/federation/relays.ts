// ActivityPub relays, subscribed to as Mastodon does. The operator names a relay by its inbox
// (`relays add URL`); the instance actor sends it a Follow of the public collection; the relay
// answers with an Accept (or a Reject) to the shared inbox. Once it accepted, the public
// statuses of local accounts (their Create, Update and Delete) and their public boosts also go
// to its inbox, signed by their authors, and what it passes on is taken in: an Announce by the
// relay's actor (LitePub relays), or an activity of someone else that it forwards (Mastodon's
// relays). A forwarded activity that carries a signature of its author that verifies is Fedify's
// like any other; one that does not is answered 202 and its object fetched from its own server,
// under a lookup's rules (a status everybody may read, from its author's server). `relays
// remove URL` forgets the relay at once and sends it the Undo.
//
// The relays are rows of the plugin's key-value storage, so that the operator's CLI (which runs
// no jobs) writes them and queues the job that talks to the relay, which a server runs.

import { randomUUID } from 'node:crypto';
import { RookeryError, type Id, type Millis, type NewJob, type PluginHost } from 'rookery/plugin-kit';
import { verifyRequest } from '@fedify/fedify';
import { Follow, PUBLIC_COLLECTION, Undo, type Accept, type Recipient, type Reject } from '@fedify/fedify/vocab';
import type { FederationParts } from './federation.ts';
import type { FederationRepository } from './storage/index.ts';

export type RelayState = 'pending' | 'accepted' | 'rejected';

export interface Relay {
  /** Where it takes deliveries: what the operator named. */
  inbox: string;
  /** The id of the Follow that subscribed to it (what its Accept names). */
  followId: string;
  state: RelayState;
  /** Its actor, known from its Accept. */
  actor: string | null;
  createdAt: Millis;
}

/** The job that sends a relay its Follow or its Undo (the plugin's `relay` job). */
export const RELAY_JOB = 'federation:relay';
export interface RelayJob {
  action: 'follow' | 'undo';
  inbox: string;
  followId: string;
}

export const MAX_RELAYS = 100;
const MAX_URL = 2048;
const PREFIX = ['rookery', 'relays'] as const;
const keyOf = (inbox: string) => [...PREFIX, inbox];

export const relayTexts = {
  invalid: 'A relay is named by the http(s) URL of its inbox',
  tooMany: `At most ${MAX_RELAYS} relays`,
};

/** The inbox URL as it is kept: http(s), no credentials, no fragment, bounded. */
export function relayInbox(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new RookeryError(422, relayTexts.invalid);
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.username !== '' || parsed.password !== '' || parsed.hash !== '' || parsed.href.length > MAX_URL) {
    throw new RookeryError(422, relayTexts.invalid);
  }
  return parsed.href;
}

export async function listRelays(repo: FederationRepository, now: Millis): Promise<Relay[]> {
  return (await repo.kvList([...PREFIX], now, MAX_RELAYS)).map((entry) => entry.value as Relay);
}

/** Subscribes (a pending relay and the job that sends its Follow). A relay already named gets
 * its Follow again (pending again if it had refused). */
export async function addRelay(repo: FederationRepository, baseUrl: string, url: string, now: Millis): Promise<{ relay: Relay; added: boolean; job: NewJob }> {
  const inbox = relayInbox(url);
  const existing = (await repo.kvGet(keyOf(inbox), now)) as Relay | undefined;
  if (existing === undefined && (await listRelays(repo, now)).length >= MAX_RELAYS) throw new RookeryError(422, relayTexts.tooMany);
  const relay: Relay =
    existing === undefined
      ? { inbox, followId: `${baseUrl}/actor#relays/${randomUUID()}`, state: 'pending', actor: null, createdAt: now }
      : existing.state === 'rejected'
        ? { ...existing, state: 'pending' }
        : existing;
  if (relay !== existing) await repo.kvSet(keyOf(inbox), relay, null);
  const payload: RelayJob = { action: 'follow', inbox, followId: relay.followId };
  return { relay, added: existing === undefined, job: { name: RELAY_JOB, payload } };
}

/** Unsubscribes: the relay is forgotten now, and the job that sends its Undo is returned (null
 * when it was not subscribed). */
export async function removeRelay(repo: FederationRepository, url: string, now: Millis): Promise<{ relay: Relay; job: NewJob } | null> {
  const inbox = relayInbox(url);
  const relay = (await repo.kvGet(keyOf(inbox), now)) as Relay | undefined;
  if (relay === undefined) return null;
  await repo.kvDelete(keyOf(inbox));
  const payload: RelayJob = { action: 'undo', inbox, followId: relay.followId };
  return { relay, job: { name: RELAY_JOB, payload } };
}

export interface Relays {
  /** The inboxes of the accepted relays not on a blocked domain: where public statuses also go. */
  recipients(): Promise<Recipient[]>;
  /** An Accept or a Reject of a relay's subscription: recorded, true; anything else: false. */
  answered(answer: Accept | Reject, accepted: boolean): Promise<boolean>;
  /** Whether this actor is an accepted relay's. */
  isRelay(actorId: URL | null): Promise<boolean>;
  /** An inbox request Fedify refused (401) because its signer is not its actor: when a relay
   * signed it, it is taken (202) and its object fetched from its own server; otherwise null. */
  forwarded(request: Request, body: unknown): Promise<{ status: number } | null>;
}

export interface RelayOptions {
  repository: FederationRepository;
  isBlocked(domain: string): Promise<boolean>;
  /** Fetches and stores a status by its URL (a lookup). */
  fetchStatus(uri: string): Promise<Id | null>;
}

export function relays(host: PluginHost, parts: FederationParts, options: RelayOptions): Relays {
  const { repository } = options;
  const all = () => listRelays(repository, host.clock.now());
  const accepted = async () => (await all()).filter((relay) => relay.state === 'accepted');

  const jobName = host.handleJob('relay', async (payload) => {
    const { action, inbox, followId } = payload as RelayJob;
    const ctx = parts.context();
    const actor = parts.instance.id;
    const follow = new Follow({ id: new URL(followId), actor, object: PUBLIC_COLLECTION });
    const activity = action === 'follow' ? follow : new Undo({ id: new URL(`${followId}/undo`), actor, object: follow });
    // A Follow for a relay since removed is not sent (its Undo is on its way).
    if (action === 'follow' && (await repository.kvGet(keyOf(inbox), host.clock.now())) === undefined) return;
    await ctx.sendActivity([await parts.instance.keyPair()], { id: new URL(inbox), inboxId: new URL(inbox) }, activity);
  });
  if (jobName !== RELAY_JOB) throw new Error(`federation: the relay job is ${jobName}, not ${RELAY_JOB}`);

  const fetchJob = host.handleJob('relayed', async (payload) => {
    await options.fetchStatus((payload as { uri: string }).uri);
  });

  return {
    async recipients() {
      const found: Recipient[] = [];
      for (const relay of await accepted()) {
        const inbox = new URL(relay.inbox);
        if (!(await options.isBlocked(inbox.host.toLowerCase()))) found.push({ id: inbox, inboxId: inbox });
      }
      return found;
    },
    async answered(answer, isAccept) {
      const followId = answer.objectId?.href;
      const relay = followId === undefined ? undefined : (await all()).find((r) => r.followId === followId);
      // Only the relay's own server answers for it.
      if (relay === undefined || answer.actorId === null || answer.actorId.origin !== new URL(relay.inbox).origin) return false;
      const next: Relay = { ...relay, state: isAccept ? 'accepted' : 'rejected', actor: answer.actorId.href };
      await repository.kvSet(keyOf(relay.inbox), next, null);
      return true;
    },
    async isRelay(actorId) {
      return actorId !== null && (await accepted()).some((relay) => relay.actor === actorId.href);
    },
    async forwarded(request, body) {
      const relayActors = (await accepted()).map((relay) => relay.actor);
      if (relayActors.length === 0) return null;
      const ctx = parts.context();
      const key = await verifyRequest(request, { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader }).catch(() => null);
      if (key?.ownerId == null || !relayActors.includes(key.ownerId.href)) return null;
      const activity = body as { type?: unknown; object?: unknown } | null;
      const object = activity?.object;
      const uri = typeof object === 'string' ? object : typeof (object as { id?: unknown } | null)?.id === 'string' ? (object as { id: string }).id : null;
      // A Create, an Update or an Announce of a status: read from its own server. Anything
      // else a relay passes on without its author's signature is taken and left.
      if (uri !== null && uri.length <= MAX_URL && ['Create', 'Update', 'Announce'].includes(String(activity?.type))) {
        await host.enqueue([{ name: fetchJob, payload: { uri } }]);
      }
      return { status: 202 };
    },
  };
}
