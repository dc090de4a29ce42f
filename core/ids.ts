// Mastodon-style ids: (unix milliseconds << 16) | 16-bit sequence, as a decimal string.
// They sort by time, fit a signed 64-bit column, and exceed 2^53, so they are never handled
// as JS numbers: comparisons go through compareIds and arithmetic through BigInt.

import type { Clock } from './ports/clock.ts';
import type { IdGenerator } from './ports/ids.ts';
import type { Id, Millis } from './model.ts';

export type { IdGenerator } from './ports/ids.ts';

/** `random16` gives the starting sequence (processes sharing a store then rarely collide, and a
 * collision is caught by the store's primary key rather than silently merged). */
export function snowflakeIds(clock: Clock, random16: () => number): IdGenerator {
  let lastMs = -1;
  let seq = 0;
  return {
    next() {
      let ms = clock.now();
      if (ms <= lastMs) {
        ms = lastMs; // same millisecond, or the wall clock stepped back: keep ids increasing
        seq += 1;
        if (seq > 0xffff) {
          ms += 1; // the sequence ran out: borrow the next millisecond
          seq = 0;
        }
      } else {
        seq = random16() & 0x7fff; // a random start in the lower half leaves room to count up
      }
      lastMs = ms;
      return ((BigInt(ms) << 16n) | BigInt(seq)).toString();
    },
  };
}

/** Ids for rows that clients see as JSON integers (application_id in ScheduledStatus):
 * (seconds since 2020 << 16) | sequence stays below 2^53 for a million years. */
export function smallIds(clock: Clock, random16: () => number): IdGenerator {
  const EPOCH_2020 = 1_577_836_800;
  let lastSecond = -1;
  let seq = 0;
  return {
    next() {
      let second = Math.floor(clock.now() / 1000) - EPOCH_2020;
      if (second <= lastSecond) {
        second = lastSecond;
        seq += 1;
        if (seq > 0xffff) {
          second += 1;
          seq = 0;
        }
      } else {
        seq = random16() & 0x7fff;
      }
      lastSecond = second;
      return (second * 0x10000 + seq).toString();
    },
  };
}

/** The smallest id that can belong to this instant: a cursor for "created before/after". */
export function idAt(ms: Millis): Id {
  return (BigInt(ms) << 16n).toString();
}

/** Milliseconds encoded in an id. */
export function idTime(id: Id): Millis {
  return Number(BigInt(id) >> 16n);
}

/** Numeric order of decimal id strings without leading zeros. */
export function compareIds(a: Id, b: Id): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ids are positive decimal integers that fit a signed 64-bit column; anything else is not an id. */
export function isId(value: unknown): value is Id {
  return typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= 9223372036854775807n;
}
