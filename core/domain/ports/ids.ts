import type { Id } from '../model.ts';

/** Hands out new ids. The core's default is snowflakeIds (core/ids.ts): sortable by time,
 * 64-bit, decimal strings; an embedding app may supply its own. */
export interface IdGenerator {
  next(): Id;
}
