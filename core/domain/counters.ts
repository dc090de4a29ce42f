// The in-process CounterStore: a map of live counters, swept of expired ones as it grows, so
// its size follows the keys of the current windows (one process; see adapters/redis for many).

import type { CounterStore } from './ports/counters.ts';

interface Counter {
  value: number;
  expiresAt: number;
}

export function createMemoryCounters(): CounterStore {
  const counters = new Map<string, Counter>();
  let sweepAt = 1024;
  const sweep = (now: number) => {
    for (const [key, counter] of counters) if (counter.expiresAt <= now) counters.delete(key);
    sweepAt = Math.max(1024, counters.size * 2);
  };
  return {
    async add(entries, now) {
      if (counters.size >= sweepAt) sweep(now);
      return entries.map(({ key, amount, expiresAt }) => {
        let counter = counters.get(key);
        if (counter === undefined || counter.expiresAt <= now) {
          if (amount === 0) return 0;
          counter = { value: 0, expiresAt };
          counters.set(key, counter);
        }
        counter.value += amount;
        return counter.value;
      });
    },
  };
}
