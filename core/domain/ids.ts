// Mastodon-style ids: (unix milliseconds << 16) | 16-bit sequence, as a decimal string.
// They sort by time, fit a signed 64-bit column, and exceed 2^53, so they are never handled
// as JS numbers: comparisons go through compareIds and arithmetic through BigInt.

import type { Clock } from './ports/clock.ts';
import type { IdGenerator } from './ports/ids.ts';
import type { Id, Millis } from './model.ts';

export type { IdGenerator } from './ports/ids.ts';

/** How many processes of one instance can be told apart in an id (see IdNode). */
export const ID_NODES = 64;
const NODE_BITS = 6;

/** The number (0 to ID_NODES - 1) of this process among those that write to one store, when
 * they have one each: its ids then never collide with another's, whatever the timing. Without
 * one, each process starts its sequence at random (rarely colliding, and a collision is caught
 * by the store's primary key rather than silently merged). */
export type IdNode = number | undefined;

export function checkIdNode(node: IdNode): void {
  if (node !== undefined && !(Number.isInteger(node) && node >= 0 && node < ID_NODES)) {
    throw new Error(`an id node is a whole number from 0 to ${ID_NODES - 1}, got ${node}`);
  }
}

/** The low 16 bits of ids made within one time unit: this process's node number, if any, then a
 * sequence started at random in the lower half of its range (room to count up) that borrows
 * the next unit when it runs out. */
function sequence(random16: () => number, node: IdNode): { next(unit: number): { unit: number; low: number } } {
  checkIdNode(node);
  const bits = node === undefined ? 16 : 16 - NODE_BITS;
  const top = node === undefined ? 0 : node << bits;
  const max = (1 << bits) - 1;
  let lastUnit = -1;
  let seq = 0;
  return {
    next(unit) {
      if (unit <= lastUnit) {
        unit = lastUnit; // same unit, or the wall clock stepped back: keep ids increasing
        seq += 1;
        if (seq > max) {
          unit += 1;
          seq = 0;
        }
      } else {
        seq = random16() & (max >> 1);
      }
      lastUnit = unit;
      return { unit, low: top | seq };
    },
  };
}

export function snowflakeIds(clock: Clock, random16: () => number, node?: IdNode): IdGenerator {
  const seq = sequence(random16, node);
  return {
    next() {
      const { unit, low } = seq.next(clock.now());
      return ((BigInt(unit) << 16n) | BigInt(low)).toString();
    },
  };
}

/** Ids for rows that clients see as JSON integers (application_id in ScheduledStatus):
 * (seconds since 2020 << 16) | sequence stays below 2^53 for a million years. */
export function smallIds(clock: Clock, random16: () => number, node?: IdNode): IdGenerator {
  const EPOCH_2020 = 1_577_836_800;
  const seq = sequence(random16, node);
  return {
    next() {
      const { unit, low } = seq.next(Math.floor(clock.now() / 1000) - EPOCH_2020);
      return (unit * 0x10000 + low).toString();
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
  if (typeof value !== 'string') return false;
  const length = value.length;
  if (length === 0 || length > MAX_ID.length || value.charCodeAt(0) === ZERO) return false;
  for (let i = 0; i < length; i++) {
    const c = value.charCodeAt(i);
    if (c < ZERO || c > NINE) return false;
  }
  // Digits only, no leading zero: of equal length, the text orders as the number does. (This
  // runs for every id of every request: no regular expression, no BigInt.)
  return length < MAX_ID.length || value <= MAX_ID;
}

/** The largest signed 64-bit integer, and the character codes of '0' and '9'. */
const MAX_ID = '9223372036854775807';
const ZERO = 48;
const NINE = 57;
