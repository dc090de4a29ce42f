// Fedify's KvStore on the federation plugin's own repository (storage/), so what Fedify caches
// and remembers lives in the instance's store, on whichever engine it is. Expired entries are
// invisible at once and removed by a sweep at most once a minute, run from a write.

import type { Clock } from 'rookery/plugin-kit';
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { FederationRepository } from './storage/index.ts';

export interface RookeryKvStoreOptions {
  /** Where expiry times come from (default: Date.now). */
  clock?: Clock;
  /** Entries one `list` returns at most (default 10 000: a bound, not a page size). */
  listLimit?: number;
}

const SWEEP_EVERY = 60_000;
const DAY = 86_400_000;

/** The length of a Duration in ms. Calendar units have no fixed length; a month counts as 30
 * days and a year as 365 (Fedify's own durations are in hours or less). */
export function durationMs(duration: Temporal.Duration): number {
  const d = duration as unknown as Record<string, number>;
  const field = (name: string) => Number(d[name] ?? 0) || 0;
  const ms =
    field('years') * 365 * DAY +
    field('months') * 30 * DAY +
    field('weeks') * 7 * DAY +
    field('days') * DAY +
    field('hours') * 3_600_000 +
    field('minutes') * 60_000 +
    field('seconds') * 1000 +
    field('milliseconds') +
    field('microseconds') / 1000 +
    field('nanoseconds') / 1_000_000;
  return Math.max(0, Math.round(ms));
}

export function rookeryKvStore(repo: FederationRepository, options: RookeryKvStoreOptions = {}): KvStore {
  const clock = options.clock ?? { now: () => Date.now() };
  const listLimit = options.listLimit ?? 10_000;
  let lastSweep = clock.now();
  const expiry = (set?: KvStoreSetOptions): number | null => (set?.ttl == null ? null : clock.now() + durationMs(set.ttl));
  const maybeSweep = async (): Promise<void> => {
    const now = clock.now();
    if (now - lastSweep < SWEEP_EVERY) return;
    lastSweep = now;
    await repo.kvSweep(now);
  };
  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      return (await repo.kvGet(key, clock.now())) as T | undefined;
    },
    async set(key, value, set) {
      await repo.kvSet(key, value, expiry(set));
      await maybeSweep();
    },
    async delete(key) {
      await repo.kvDelete(key);
    },
    async cas(key, expectedValue, newValue, set) {
      return repo.kvCas(key, expectedValue, newValue, expiry(set), clock.now());
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      for (const entry of await repo.kvList(prefix ?? [], clock.now(), listLimit)) {
        yield { key: entry.key as unknown as KvKey, value: entry.value };
      }
    },
  };
}
