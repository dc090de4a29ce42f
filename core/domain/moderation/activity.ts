// The days a local account is active, as Mastodon counts them (its dashboard's active users
// and retention): a user is active on a day they use the API. Recorded as a request is
// authenticated, at most once per account and day in each process: the day's accounts already
// recorded are remembered (a bounded set, forgotten when the day changes), so that a request
// adds no write once its account has been seen that day.

import type { Core } from '../context.ts';
import type { Id, Millis } from '../model.ts';

export const DAY: Millis = 86_400_000;
/** Past this many accounts in one day the set starts over (a write again is harmless). */
const REMEMBERED = 50_000;

const seenToday = new WeakMap<object, { day: Millis; accounts: Set<Id> }>();

/** The start (00:00 UTC) of the day `at` falls on. */
export const dayOf = (at: Millis): Millis => Math.floor(at / DAY) * DAY;

/** Records that the account was active today, unless this process already did. A failed write
 * is logged, never thrown: the request goes on. */
export async function noteActivity(core: Core, accountId: Id): Promise<void> {
  const day = dayOf(core.clock.now());
  let seen = seenToday.get(core.storage);
  if (seen === undefined || seen.day !== day) {
    seen = { day, accounts: new Set() };
    seenToday.set(core.storage, seen);
  }
  if (seen.accounts.has(accountId)) return;
  if (seen.accounts.size >= REMEMBERED) seen.accounts.clear();
  seen.accounts.add(accountId);
  try {
    await core.storage.analytics.recordActivity(accountId, day);
  } catch (error) {
    seen.accounts.delete(accountId);
    core.logger.warn({ err: error, accountId }, 'could not record the day of activity');
  }
}
