import type { Millis } from '../model.ts';

/** ISO 8601 in UTC with milliseconds, e.g. 2019-12-05T11:34:47.196Z. */
export function iso(ms: Millis): string {
  return new Date(ms).toISOString();
}

export function isoOrNull(ms: Millis | null): string | null {
  return ms === null ? null : iso(ms);
}

/** The UTC midnight of an instant, as a timestamp: Mastodon truncates account dates to the
 * day so that they do not reveal when someone was active. */
export function isoDay(ms: Millis): string {
  return iso(Math.floor(ms / 86_400_000) * 86_400_000);
}
