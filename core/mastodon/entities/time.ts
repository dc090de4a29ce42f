import type { Millis } from '../../domain/model.ts';

/** Recently formatted instants: the same statuses and accounts are rendered again and again. */
const formatted = new Map<Millis, string>();
const MAX_FORMATTED = 4096;

/** ISO 8601 in UTC with milliseconds, e.g. 2019-12-05T11:34:47.196Z. */
export function iso(ms: Millis): string {
  let text = formatted.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (formatted.size >= MAX_FORMATTED) formatted.clear();
    formatted.set(ms, text);
  }
  return text;
}

export function isoOrNull(ms: Millis | null): string | null {
  return ms === null ? null : iso(ms);
}

/** The UTC midnight of an instant, as a timestamp: Mastodon truncates account dates to the
 * day so that they do not reveal when someone was active. */
export function isoDay(ms: Millis): string {
  return iso(Math.floor(ms / 86_400_000) * 86_400_000);
}
