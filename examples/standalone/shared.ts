// What the processes of one instance share besides the store, from REDIS_URL: the event bus,
// the job queue, the rate-limit counters, and a number of each process's own for its ids. Without REDIS_URL everything
// stays in the process (the in-process bus, the store's own queue), as one process needs.

import type { IdNodeLease, RedisBus } from '../../adapters/redis/index.ts';
import type { EventBus } from '../../core/domain/ports/bus.ts';
import type { CounterStore } from '../../core/domain/ports/counters.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { JobQueue } from '../../core/domain/ports/queue.ts';
import type { StandaloneSettings } from './env.ts';

export interface SharedEngines {
  bus?: EventBus;
  /** Rate-limit counters every process counts against. */
  counters?: CounterStore;
  queue?: JobQueue;
  idNode?: number;
  /** Gives the id node back. The bus and the queue close with the Rookery that uses them. */
  release(): Promise<void>;
}

/** The id node alone, for a process that writes but neither streams nor queues (the CLI). */
export async function reserveNode(settings: StandaloneSettings, logger: Logger): Promise<IdNodeLease | null> {
  if (settings.redisUrl === null) return null;
  const { reserveIdNode } = await import('../../adapters/redis/index.ts');
  return reserveIdNode({ url: settings.redisUrl, prefix: settings.redisPrefix, logger });
}

export async function openShared(settings: StandaloneSettings, logger: Logger): Promise<SharedEngines> {
  if (settings.redisUrl === null) return { release: async () => {} };
  // Loaded only when asked for: a single process never loads the Redis client.
  const { createRedisBus, createRedisCounters, createRedisQueue, reserveIdNode } = await import('../../adapters/redis/index.ts');
  const redis = { url: settings.redisUrl, prefix: settings.redisPrefix, logger };
  const lease = await reserveIdNode(redis);
  let bus: RedisBus | null = null;
  let counters: CounterStore | null = null;
  try {
    bus = await createRedisBus(redis);
    counters = await createRedisCounters(redis);
    return { bus, counters, queue: await createRedisQueue(redis), idNode: lease.node, release: () => lease.release() };
  } catch (err) {
    await bus?.close();
    await counters?.close?.();
    await lease.release();
    throw err;
  }
}
