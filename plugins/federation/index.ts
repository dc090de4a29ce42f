// The federation plugin: ActivityPub on Fedify 2.3.6. WebFinger, host-meta, actors with their
// keys, statuses at their `uri`, collections and inboxes, all served as core endpoints (so by
// every transport); outgoing activities from the domain events of local accounts; incoming
// activities handed to the core's federation API. `allowPrivateAddress` is for tests only:
// without it nothing private, loopback or link-local is ever fetched.

import type { Core } from '../../core/core.ts';
import type { PluginHost, RookeryPlugin } from '../../core/plugin-host.ts';
import { buildFederation, type FederationParts } from './federation.ts';
import { incoming } from './incoming.ts';
import { federationEndpoints } from './mount.ts';
import { outgoing } from './outgoing.ts';
import { coreRemoteApi } from './remote-api.ts';
import { federationStores, type FederationStores } from './stores.ts';

export { federationStores, LocalMessageQueue, type FederationStores } from './stores.ts';
export { INBOX_MAX_BYTES, mountTexts } from './mount.ts';

export interface FederationPluginOptions {
  /** Fetch and deliver to private, loopback and link-local addresses, and look handles up over
   * plain http on them. For tests only. */
  allowPrivateAddress?: boolean;
  /** Where Fedify keeps its KV data and queues its work (default: federationStores). */
  stores?: (host: PluginHost) => FederationStores;
  /** Whether the operator blocked a domain: its activities are refused and nothing is sent to it. */
  isBlocked?: (core: Core, domain: string) => Promise<boolean>;
}

export function federationPlugin(options: FederationPluginOptions = {}): RookeryPlugin {
  return {
    name: 'federation',
    register(host) {
      const { core } = host;
      const stores = (options.stores ?? federationStores)(host);
      const parts: FederationParts = buildFederation(core, { ...stores, allowPrivateAddress: options.allowPrivateAddress === true });
      const isBlocked = async (domain: string) => (options.isBlocked ? options.isBlocked(core, domain.toLowerCase()) : false);
      for (const endpoint of federationEndpoints(core, parts.federation, { isBlocked })) host.addEndpoint(endpoint);
      outgoing(host, parts, { isBlocked });
      if (coreRemoteApi !== null) incoming(core, parts, { api: coreRemoteApi, isBlocked });
      else parts.federation.setInboxListeners('/users/{identifier}/inbox', '/inbox');
      void parts.federation.startQueue(core);
    },
  };
}
