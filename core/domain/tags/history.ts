// A hashtag's history (docs/behaviour.md, "Hashtags"): for each of the last 7 days (UTC, today
// first), how many live public statuses (boosts aside) carried it and how many accounts wrote
// them. Counted from the statuses themselves when asked, so a deleted status stops counting.

import type { Core } from '../context.ts';
import type { Millis } from '../model.ts';
import type { TagUse, TagUseQuery } from '../ports/storage.ts';

export const DAY: Millis = 86_400_000;
export const HISTORY_DAYS = 7;
/** The most uses read for one question; beyond it, the oldest uses go uncounted. */
export const USES_READ = 20_000;

export interface HistoryDay {
  /** Midnight UTC starting the day. */
  day: Millis;
  uses: number;
  accounts: number;
}

export const startOfDay = (t: Millis): Millis => Math.floor(t / DAY) * DAY;

/** What counts as a use of a hashtag: a live public status that is not a boost. */
export function usesSince(since: Millis, tags?: readonly string[]): TagUseQuery {
  return { since, visibilities: ['public'], excludeReblogs: true, tags };
}

/** The days of `uses` (today first), HISTORY_DAYS of them ending with the day of `now`. */
export function historyOf(uses: readonly Pick<TagUse, 'accountId' | 'createdAt'>[], now: Millis): HistoryDay[] {
  const today = startOfDay(now);
  const days: { day: Millis; uses: number; accounts: Set<string> }[] = [];
  for (let i = 0; i < HISTORY_DAYS; i += 1) days.push({ day: today - i * DAY, uses: 0, accounts: new Set() });
  for (const use of uses) {
    const index = (today - startOfDay(use.createdAt)) / DAY;
    const bucket = days[index];
    if (bucket === undefined) continue;
    bucket.uses += 1;
    bucket.accounts.add(use.accountId);
  }
  return days.map((d) => ({ day: d.day, uses: d.uses, accounts: d.accounts.size }));
}

/** The history of each of `tags` (normalized names). */
export async function tagHistories(core: Core, tags: readonly string[]): Promise<Map<string, HistoryDay[]>> {
  const now = core.clock.now();
  const wanted = [...new Set(tags)];
  const byTag = new Map<string, TagUse[]>(wanted.map((tag) => [tag, []]));
  if (wanted.length > 0) {
    const since = startOfDay(now) - (HISTORY_DAYS - 1) * DAY;
    for (const use of await core.storage.tags.uses(usesSince(since, wanted), USES_READ)) byTag.get(use.tag)?.push(use);
  }
  return new Map(wanted.map((tag) => [tag, historyOf(byTag.get(tag) ?? [], now)]));
}
