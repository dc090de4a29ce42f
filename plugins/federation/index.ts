// The federation plugin: ActivityPub on Fedify 2.3.6. WebFinger, host-meta, actors with their
// keys, statuses at their `uri`, collections and inboxes, all served as core endpoints (so by
// every transport); outgoing activities from the domain events of local accounts; incoming
// activities handed to the core's federation API (core/federation); the resolver the core asks
// for remote handles and URLs; the operator's domain blocks. Fedify's KV store and queue are on
// the instance's own storage and job queue. `allowPrivateAddress` is for tests only: without
// it nothing private, loopback or link-local is ever fetched.

import type { PluginHost, RookeryPlugin } from '../../core/plugin-host.ts';
import { buildFederation, type FederationParts } from './federation.ts';
import { incoming } from './incoming.ts';
import { federationEndpoints } from './mount.ts';
import { outgoing, POLL_UPDATE_DELAY_MS } from './outgoing.ts';
import { coreRemoteApi } from './remote-api.ts';
import { remoteMediaDecorator } from './remote-media.ts';
import { resolver } from './resolve.ts';
import { federationStores, type FederationStores } from './stores.ts';

export { federationStores, type FederationStores } from './stores.ts';
export { INBOX_MAX_BYTES, mountTexts } from './mount.ts';
export { rookeryKvStore, type RookeryKvStoreOptions } from './kv.ts';
export { rookeryMessageQueue, type RookeryMessageQueue, type RookeryMessageQueueOptions } from './queue.ts';
export { federationStorage, type DomainBlock, type FederationRepository } from './storage/index.ts';
export { canonicalDomain, normalizeDomain } from './domain-blocks.ts';

export interface FederationPluginOptions {
  /** Fetch from and deliver to private, loopback and link-local addresses, and look handles up
   * over plain http on them. For tests only. */
  allowPrivateAddress?: boolean;
  /** Where Fedify keeps its KV data and queues its work (default: federationStores). */
  stores?: (host: PluginHost) => FederationStores;
  /** How long after a vote on a local poll the poll's new counts are sent to other servers, in
   * ms (default three minutes, as Mastodon: the votes of that while go in one Update). */
  pollUpdateDelayMs?: number;
}

export function federationPlugin(options: FederationPluginOptions = {}): RookeryPlugin {
  return {
    name: 'federation',
    register(host) {
      const { core } = host;
      const allowPrivateAddress = options.allowPrivateAddress === true;
      const stores = (options.stores ?? federationStores)(host);
      const parts: FederationParts = buildFederation(core, { kv: stores.kv, queue: stores.queue, allowPrivateAddress });
      const isBlocked = (domain: string) => stores.repository.isBlocked(domain.toLowerCase());
      host.provideDomainBlocks(isBlocked);
      for (const endpoint of federationEndpoints(core, parts.federation, { isBlocked })) host.addEndpoint(endpoint);
      const delay = options.pollUpdateDelayMs;
      const pollUpdateDelayMs = typeof delay === 'number' && Number.isFinite(delay) ? Math.max(0, delay) : POLL_UPDATE_DELAY_MS;
      outgoing(host, parts, { isBlocked, pollUpdateDelayMs });
      const remote = resolver(core, parts.context, coreRemoteApi, parts.kv, allowPrivateAddress);
      const fetchStatus = async (uri: string) => {
        const found = await remote.url(uri);
        return found !== null && 'status' in found ? found.status.id : null;
      };
      incoming(core, parts, { api: coreRemoteApi, isBlocked, fetchStatus });
      host.decorateStatuses(remoteMediaDecorator(parts.kv));
      host.provideResolver(remote);
      // Every process listens: the queue's jobs run wherever the instance runs its jobs.
      void parts.federation.startQueue(core);
    },
  };
}
