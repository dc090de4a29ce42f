// Rate-limit counters in Redis, so that every process of one instance counts against the same
// limits (REDIS_URL for the standalone instance). One round trip per request: a MULTI with an
// INCRBY and a PEXPIREAT per counter; a counter's key names its window, so it only ever goes
// up and Redis forgets it when the window ends.
//
// Dependency: @redis/client, the client the rest of rookery/redis uses.

import { createClient } from '@redis/client';
import type { CounterStore } from '../../core/ports/counters.ts';

export interface RedisCountersOptions {
  /** redis://… (REDIS_URL); or give a connected client of your own as `client`. */
  url?: string;
  client?: RedisClient;
  /** Prepended to every key (default "rookery:rate:"). */
  prefix?: string;
}

type RedisClient = ReturnType<typeof createClient>;

/** Counters in Redis. Connects now when given a URL (and then closes the client with the
 * store); a client you pass stays yours. */
export async function createRedisCounters(options: RedisCountersOptions): Promise<CounterStore> {
  const prefix = options.prefix ?? 'rookery:rate:';
  const own = options.client === undefined;
  const client = options.client ?? createClient(options.url === undefined ? {} : { url: options.url });
  if (own) await client.connect();
  return {
    async add(entries) {
      if (entries.length === 0) return [];
      const multi = client.multi();
      for (const { key, amount, expiresAt } of entries) multi.incrBy(`${prefix}${key}`, amount).pExpireAt(`${prefix}${key}`, expiresAt);
      const replies = await multi.exec();
      return entries.map((_, i) => Number(replies[i * 2]));
    },
    async close() {
      if (own) await client.close();
    },
  };
}
