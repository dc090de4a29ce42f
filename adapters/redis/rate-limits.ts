// Rate-limit counters in Redis, so that every process of one instance counts against the same
// limits (REDIS_URL for the standalone instance). One round trip per request: a MULTI with an
// INCRBY and a PEXPIREAT per counter; a counter's key names its window, so it only ever goes
// up and Redis forgets it when the window ends. Limits fail open: while Redis cannot answer,
// requests are served uncounted (and that is logged once per outage) rather than refused.

import type { CounterStore } from '../../core/domain/ports/counters.ts';
import { CONNECTION_OPTIONS, closeConnection, DEFAULT_PREFIX, openConnection, type RedisClient, type RedisConnectionOptions } from './connection.ts';
import { checkOptions, option } from '../../core/domain/options.ts';

export interface RedisCountersOptions extends RedisConnectionOptions {
  /** A connected client of your own instead of `url` (it stays yours: close() leaves it open). */
  client?: RedisClient;
  /** How long a request waits for its counts before it is served uncounted (default 500 ms). */
  timeoutMs?: number;
}

/** Counters under `<prefix>rate:`. */
export async function createRedisCounters(options: RedisCountersOptions = {}): Promise<CounterStore> {
  checkOptions('createRedisCounters', options, { ...CONNECTION_OPTIONS, client: option.implementing('a Redis client', ['sendCommand']), timeoutMs: option.integer(1, 60_000) });
  const prefix = `${options.prefix ?? DEFAULT_PREFIX}rate:`;
  const own = options.client === undefined;
  const client = options.client ?? (await openConnection(options, 'rate-limits'));
  const timeoutMs = options.timeoutMs ?? 500;
  let failing = false;
  const uncounted = (length: number, err?: unknown): number[] => {
    if (!failing) options.logger?.warn({ err }, 'rate limits are not counted while redis cannot answer');
    failing = true;
    return new Array<number>(length).fill(0);
  };
  return {
    async add(entries) {
      if (entries.length === 0) return [];
      // Reconnecting: commands would wait for Redis, and the request with them.
      if (!client.isReady) return uncounted(entries.length);
      const multi = client.multi();
      for (const { key, amount, expiresAt } of entries) multi.incrBy(`${prefix}${key}`, amount).pExpireAt(`${prefix}${key}`, expiresAt);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error(`redis did not count within ${timeoutMs} ms`)), timeoutMs);
      });
      const counting = multi.exec();
      // Answered after the deadline (or never, if Redis went away with the command): dropped.
      counting.catch(() => undefined);
      try {
        const replies = await Promise.race([counting, late]);
        failing = false;
        return entries.map((_, i) => Number(replies[i * 2]));
      } catch (err) {
        return uncounted(entries.length, err);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (own) await closeConnection(client);
    },
  };
}
