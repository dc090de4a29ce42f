// Storage in memory (tests, demos). Every operation runs synchronously inside its async
// function, so each one is atomic with respect to every other; objects are cloned on the way in
// and on the way out, so callers never share state with the store.
//
// One file per repository, all over one MemoryState (state.ts). A repository method must not
// await between its first read and its last write, or the guarantee above is lost. Plugins
// bring their own repositories through `extend`, built on a MemoryExtensionContext.

import type { NewJob, Outbox } from '../../core/domain/ports/queue.ts';
import { extensionRegistry, type Storage, type StorageWrite } from '../../core/domain/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { enqueueNow, jobQueue, recordOutbox } from './jobs.ts';
import { listRepository } from './lists.ts';
import { notificationRepository } from './notifications.ts';
import { oauthRepository } from './oauth.ts';
import { relationshipRepository } from './relationships.ts';
import { createMemoryState } from './state.ts';
import { statusRepository } from './statuses.ts';

/** What a plugin's memory repository is built on. The same rule holds as for the adapter's own
 * repositories: no await between a method's first read and its last write. */
export interface MemoryExtensionContext {
  readonly engine: 'memory';
  /** The identity this store's StorageWrites carry. */
  readonly store: object;
  /** The extension's private state (an empty object at first; the plugin puts its maps there). */
  readonly state: Record<string, unknown>;
  /** A StorageWrite for statuses.create/update of this store; its steps run synchronously
   * inside the status write (checks before it, applies after it). */
  prepare(write: { check?(): void; apply(): void }): StorageWrite;
  /** Queues jobs in the current synchronous step (a write's outbox, or jobs an apply records). */
  enqueue(jobs: readonly NewJob[]): void;
  /** Runs a write and queues the jobs its outbox returns, in the same synchronous step. */
  withOutbox<R>(outbox: Outbox<R> | undefined, write: () => R): R;
}

export function createMemoryStorage(): Storage {
  const state = createMemoryState();
  const store = {};
  const contextFor = (name: string): MemoryExtensionContext => {
    let bag = state.extensions.get(name);
    if (bag === undefined) {
      bag = {};
      state.extensions.set(name, bag);
    }
    return {
      engine: 'memory',
      store,
      state: bag,
      prepare: (write) => {
        const prepared: StorageWrite = { store, apply: () => write.apply() };
        const check = write.check;
        return check === undefined ? prepared : { ...prepared, check: () => check.call(write) };
      },
      enqueue: (jobs) => enqueueNow(state.jobs, jobs, 0),
      withOutbox: (outbox, write) => recordOutbox(state.jobs, outbox, write()),
    };
  };
  return {
    engine: 'memory',
    extend: extensionRegistry('memory', contextFor),
    accounts: accountRepository(state),
    statuses: statusRepository(state, store),
    interactions: interactionRepository(state),
    relationships: relationshipRepository(state),
    notifications: notificationRepository(state),
    lists: listRepository(state),
    filters: filterRepository(state),
    markers: markerRepository(state),
    oauth: oauthRepository(state),
    jobs: jobQueue(state.jobs),
    async close() {},
  };
}
