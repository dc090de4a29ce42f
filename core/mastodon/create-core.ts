// Builds a Core from its ports and configuration.

import type { RookeryConfig } from '../domain/config.ts';
import type { AppCore } from './context.ts';
import { ID_NODES, smallIds, snowflakeIds, type IdGenerator, type IdNode } from '../domain/ids.ts';
import { option, type OptionSpec } from '../domain/options.ts';
import { HookRegistry } from './host/registry.ts';
import type { EventBus } from '../domain/ports/bus.ts';
import type { Clock } from '../domain/ports/clock.ts';
import { silentLogger, type Logger } from '../domain/ports/logger.ts';
import type { JobQueue } from '../domain/ports/queue.ts';
import type { Secrets } from '../domain/ports/secrets.ts';
import type { Storage } from '../domain/ports/storage.ts';
import { JobRegistry } from '../domain/queue/registry.ts';

/** The ports a Rookery is composed of, as its options are checked (createRookery, and the
 * adapters that compose one for you). */
export const PORT_OPTIONS: OptionSpec = {
  storage: option.implementing('a Storage (rookery/sqlite, rookery/postgres, rookery/mongodb …)', ['extend', 'close']),
  bus: option.implementing('an EventBus (publish, subscribe, close)', ['publish', 'subscribe', 'close']),
  clock: option.implementing('a Clock (now)', ['now']),
  logger: option.implementing('a Logger (debug, info, warn, error)', ['debug', 'info', 'warn', 'error']),
  ids: option.implementing('an IdGenerator (next)', ['next']),
  idNode: option.integer(0, ID_NODES - 1),
  queue: option.implementing('a JobQueue', ['enqueue', 'claim', 'complete', 'retry', 'bury']),
};

export interface CoreDeps {
  config: RookeryConfig;
  storage: Storage;
  bus: EventBus;
  clock: Clock;
  secrets: Secrets;
  logger?: Logger;
  ids?: IdGenerator;
  /** This process's number among those writing to one store (core/ids.ts, IdNode). */
  idNode?: IdNode;
  /** Default: the store's own queue (storage.jobs), which the outbox writes into. */
  queue?: JobQueue;
}

export interface CoreParts {
  core: AppCore;
  registry: HookRegistry;
  /** Called whenever this process recorded or queued jobs, so a local worker can run them soon. */
  onJobs(listener: () => void): void;
}

export function createCore(deps: CoreDeps): CoreParts {
  const registry = new HookRegistry();
  const jobs = new JobRegistry();
  const ids = deps.ids ?? snowflakeIds(deps.clock, () => deps.secrets.random16(), deps.idNode);
  const queue = deps.queue ?? deps.storage.jobs;
  const listeners: (() => void)[] = [];
  // Deferred: the write that records the jobs commits before a worker looks for them.
  const wakeListeners = () => {
    for (const listener of listeners) listener();
  };
  const afterCommit = deps.storage.afterCommit?.bind(deps.storage) ?? ((fn: () => void) => void setTimeout(fn, 0));
  const signal = () => afterCommit(wakeListeners);
  const core: AppCore = {
    config: deps.config,
    storage: deps.storage,
    bus: deps.bus,
    queue,
    clock: deps.clock,
    ids,
    smallIds: smallIds(deps.clock, () => deps.secrets.random16(), deps.idNode),
    secrets: deps.secrets,
    logger: deps.logger ?? silentLogger,
    hooks: registry,
    jobs,
    record(event) {
      const recorded = jobs.jobsFor({ id: ids.next(), event });
      if (recorded.length > 0) signal();
      return recorded;
    },
    async enqueue(list) {
      if (list.length === 0) return;
      await queue.enqueue(list, deps.clock.now());
      signal();
    },
  };
  return { core, registry, onJobs: (listener) => void listeners.push(listener) };
}
