import type { Millis } from '../model.ts';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): Millis;
}
