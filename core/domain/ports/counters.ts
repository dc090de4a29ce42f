// Counters for rate limits: fixed windows whose keys name their window, so a counter only
// ever goes up and expires when its window ends. In-process by default (core/counters.ts);
// adapters/redis/rate-limits.ts shares them between the processes of one instance.

import type { Millis } from '../model.ts';

export interface CounterAdd {
  key: string;
  /** Added to the counter; 0 reads it without counting. */
  amount: number;
  /** When the counter may be forgotten (the end of its window). */
  expiresAt: Millis;
}

export interface CounterStore {
  /** ATOMIC per counter. Adds each amount (a missing counter starts at 0) and returns every
   * counter's new value, in order. */
  add(entries: readonly CounterAdd[], now: Millis): Promise<number[]>;
  close?(): Promise<void>;
}
