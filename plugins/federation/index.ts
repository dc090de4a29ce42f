// The federation plugin: ActivityPub on Fedify 2.3.6. WebFinger, host-meta, actors with their
// keys, statuses at their `uri`, collections and inboxes, all served as core endpoints (so by
// every transport); outgoing activities from the domain events of local accounts; incoming
// activities handed to the domain's federation operations (host.system.federation); the resolver the core asks
// for remote handles and URLs; the operator's domain blocks; the media and custom emoji of
// remote statuses and accounts (decorators). Fedify's KV store and queue are on the instance's
// own storage and job queue. Everything read from other servers comes through rookery/node's
// fetcher (documents.ts: the instance's address policy, time and size limits, User-Agent), and
// deliveries name the instance too. `allowPrivateAddress` is for tests only: without it nothing
// private, loopback or link-local is ever fetched. What is signed how: signatures.ts (the first
// knock of a delivery and the spec remembered per server), instance-actor.ts (signed fetches),
// authorized-fetch.ts (AUTHORIZED_FETCH); relays: relays.ts.

import { adminDomainBlockEndpoints } from './admin-domain-blocks.ts';
import { checkOptions, option, rookeryUserAgent, type OptionSpec, type PluginHost, type RookeryPlugin } from 'rookery/plugin-kit';
import { createFetcher } from 'rookery/node';
import { fetchAuthorizer } from './authorized-fetch.ts';
import { buildFederation, type FederationParts } from './federation.ts';
import { forgetRemoteStatusParts, incoming } from './incoming.ts';
import { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_DOCUMENT_BYTES } from './documents.ts';
import { DEFAULT_INBOX_CONCURRENCY, federationEndpoints } from './mount.ts';
import { forwardReports } from './flags.ts';
import { outgoing, POLL_UPDATE_DELAY_MS } from './outgoing.ts';
import { relays } from './relays.ts';
import { remoteAccountEmojiDecorator, remoteStatusEmojiDecorator } from './remote-emoji.ts';
import { remoteMediaDecorator } from './remote-media.ts';
import { resolver } from './resolve.ts';
import { quoteFederation } from './quotes.ts';
import { DEFAULT_FIRST_KNOCK, learnFromInbox, SIGNATURE_SPECS, type SignatureSpec } from './signatures.ts';
import { federationStores, type FederationStores } from './stores.ts';

export { federationStores, type FederationStores } from './stores.ts';
export { DEFAULT_INBOX_CONCURRENCY, INBOX_MAX_BYTES, mountTexts } from './mount.ts';
export { DEFAULT_FETCH_TIMEOUT_MS, DEFAULT_MAX_DOCUMENT_BYTES } from './documents.ts';
export { rookeryKvStore, type RookeryKvStoreOptions } from './kv.ts';
export { rookeryMessageQueue, type RookeryMessageQueue, type RookeryMessageQueueOptions } from './queue.ts';
export { federationStorage, type DomainBlock, type FederationRepository } from './storage/index.ts';
export { canonicalDomain, normalizeDomain } from './domain-blocks.ts';
export { DEFAULT_FIRST_KNOCK, SIGNATURE_SPECS, type SignatureSpec } from './signatures.ts';
export { authorizedFetchTexts } from './authorized-fetch.ts';
export { INSTANCE_ACTOR_PATH } from './instance-actor.ts';
export { addRelay, listRelays, MAX_RELAYS, RELAY_JOB, relayTexts, removeRelay, type Relay, type RelayState } from './relays.ts';

export interface FederationPluginOptions {
  /** Fetch from and deliver to private, loopback and link-local addresses (true: all of them; a
   * function: those it accepts, e.g. to let 127.0.0.1 play a public server), and look handles
   * up over plain http on them. For tests only. */
  allowPrivateAddress?: boolean | ((address: string) => boolean);
  /** Where Fedify keeps its KV data and queues its work (default: federationStores). */
  stores?: (host: PluginHost) => FederationStores;
  /** Inbox POSTs in progress at once in this process; more are answered 429 with Retry-After
   * (default DEFAULT_INBOX_CONCURRENCY). */
  inboxConcurrency?: number;
  /** How long a fetch of a remote document (a key, an actor, a note) may take, in ms (default
   * DEFAULT_FETCH_TIMEOUT_MS). */
  fetchTimeoutMs?: number;
  /** The largest remote document read, in bytes (default DEFAULT_MAX_DOCUMENT_BYTES, 1 MiB): a
   * larger one is refused once this much has come, never read whole. */
  maxDocumentBytes?: number;
  /** How long after a vote on a local poll the poll's new counts are sent to other servers, in
   * ms (default three minutes, as Mastodon: the votes of that while go in one Update). */
  pollUpdateDelayMs?: number;
  /** How the first delivery to a server is signed, before anything is known of it (default
   * draft-cavage-http-signatures-12, what Mastodon verifies; RFC 9421 is then used for a server
   * known to accept it). */
  firstKnock?: SignatureSpec;
  /** Mastodon's AUTHORIZED_FETCH (secure mode): actors, statuses and collections only to signed
   * fetches; 401 otherwise (default false). */
  authorizedFetch?: boolean;
}

const OPTIONS: OptionSpec = {
  allowPrivateAddress: option.either(option.boolean(), option.function()),
  stores: option.function(),
  inboxConcurrency: option.integer(1, 100_000),
  fetchTimeoutMs: option.integer(1, 600_000),
  maxDocumentBytes: option.integer(1024, 100 * 1024 * 1024),
  pollUpdateDelayMs: option.integer(0, 86_400_000),
  firstKnock: option.oneOf(SIGNATURE_SPECS),
  authorizedFetch: option.boolean(),
};

export function federationPlugin(options: FederationPluginOptions = {}): RookeryPlugin {
  checkOptions('federationPlugin', options, OPTIONS);
  const { inboxConcurrency = DEFAULT_INBOX_CONCURRENCY, fetchTimeoutMs = DEFAULT_FETCH_TIMEOUT_MS, maxDocumentBytes = DEFAULT_MAX_DOCUMENT_BYTES, pollUpdateDelayMs = POLL_UPDATE_DELAY_MS, firstKnock = DEFAULT_FIRST_KNOCK } = options;
  return {
    name: 'federation',
    register(host) {
      const relaxed = options.allowPrivateAddress ?? false;
      const allowPrivateAddress = relaxed !== false;
      const userAgent = rookeryUserAgent(host.config.baseUrl);
      // The instance's one fetch policy; the test setting relaxes its address judgement only.
      const fetcher = createFetcher({ userAgent, allowPrivateAddresses: relaxed, timeoutMs: fetchTimeoutMs, maxBytes: maxDocumentBytes });
      const stores = (options.stores ?? federationStores)(host);
      // A domain the operator blocks, or, in limited federation mode, one no domain allow covers.
      const isBlocked = async (domain: string) => (await stores.repository.isBlocked(domain.toLowerCase())) || (await host.moderation.outsideAllowList(domain.toLowerCase()));
      const mayFetch = fetchAuthorizer({ enabled: options.authorizedFetch === true, isBlocked });
      const parts: FederationParts = buildFederation(host, { kv: stores.kv, queue: stores.queue, fetcher, userAgent, firstKnock, mayFetch });
      host.provideDomainBlocks(isBlocked);
      const remote = resolver(host, parts.context, host.system.federation, parts.kv, allowPrivateAddress, stores.repository, fetcher);
      const fetchStatus = async (uri: string) => {
        const found = await remote.url(uri);
        return found !== null && 'status' in found ? found.status.id : null;
      };
      const subscriptions = relays(host, parts, { repository: stores.repository, isBlocked, fetchStatus });
      const mount = { isBlocked, inboxConcurrency, accepted: (request: Parameters<typeof learnFromInbox>[1]) => learnFromInbox(stores.kv, request), forwarded: subscriptions.forwarded };
      for (const endpoint of federationEndpoints(host, parts.federation, mount)) host.addEndpoint(endpoint);
      host.addEndpoint(parts.instance.endpoint());
      for (const endpoint of adminDomainBlockEndpoints(host, stores.repository)) host.addEndpoint(endpoint);
      outgoing(host, parts, { isBlocked, pollUpdateDelayMs, relays: subscriptions });
      forwardReports(host, parts, isBlocked);
      // Each account's keys are made when it is created (Mastodon's), off the sign-up request.
      host.on('account.created', async (event) => {
        if (event.account.domain === null) await parts.keys.pairsOf(event.account.id);
      });
      const quotes = quoteFederation(host, parts, isBlocked, mayFetch);
      incoming(host, parts, { api: host.system.federation, emojis: stores.repository, isBlocked, fetchStatus, relays: subscriptions, quotes });
      host.on('status.deleted', (event) => forgetRemoteStatusParts(parts, stores.repository, event.status));
      host.decorateStatuses(remoteMediaDecorator(parts.kv));
      host.decorateStatuses(remoteStatusEmojiDecorator(stores.repository, host.clock, host.system.statuses));
      host.decorateAccounts(remoteAccountEmojiDecorator(stores.repository, host.clock));
      host.provideResolver(remote);
      // Every process listens: the queue's jobs run wherever the instance runs its jobs.
      void parts.federation.startQueue(host);
    },
  };
}
