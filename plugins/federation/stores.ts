// Where Fedify keeps its cache, idempotence records and key pairs (a KvStore) and where its
// deliveries and inbox work wait (a MessageQueue): both on the instance's own storage and job
// queue (kv.ts, queue.ts), so they are durable, shared by every process of the instance, and
// run where its jobs run. One function, so that another choice is one line.

import type { PluginHost } from 'rookery/plugin-kit';
import type { KvStore, MessageQueue } from '@fedify/fedify';
import { rookeryKvStore } from './kv.ts';
import { rookeryMessageQueue } from './queue.ts';
import { federationStorage, type FederationRepository } from './storage/index.ts';

export interface FederationStores {
  kv: KvStore;
  queue: MessageQueue;
  /** The plugin's repository (domain blocks). */
  repository: FederationRepository;
}

export function federationStores(host: PluginHost): FederationStores {
  const repository = host.storage(federationStorage);
  return { kv: rookeryKvStore(repository, { clock: host.clock }), queue: rookeryMessageQueue(host), repository };
}
