// Trends computed from the statuses themselves, with no review by an operator: a plain,
// documented ranking (docs/behaviour.md, "Trends") over recent public statuses.

import type { Core } from './context.ts';
import { compareIds } from './ids.ts';
import type { Account, Status } from './model.ts';
import { DAY, historyOf, startOfDay, usesSince, USES_READ, type HistoryDay } from './tags/history.ts';
import { filterVisible, withoutHiddenAccounts } from './viewer.ts';

/** How far back trends look: today and yesterday (UTC). */
export const TREND_DAYS = 2;
/** How many of the newest public statuses trending statuses are chosen from. */
export const STATUS_CANDIDATES = 400;
/** The most trending items any page can reach. */
export const MAX_TRENDS = 100;

export interface TrendingTag {
  tag: string;
  history: HistoryDay[];
}

/** Hashtags of live public statuses (boosts aside) of the last TREND_DAYS days, ranked by how many
 * accounts used them in that time, then by how many statuses, then by the newest use, then by
 * name. */
export async function trendingTags(core: Core): Promise<TrendingTag[]> {
  const now = core.clock.now();
  const since = startOfDay(now) - 6 * DAY;
  const recentFrom = startOfDay(now) - (TREND_DAYS - 1) * DAY;
  const uses = await core.storage.tags.uses(usesSince(since), USES_READ);
  const byTag = new Map<string, typeof uses>();
  for (const use of uses) {
    const list = byTag.get(use.tag);
    if (list === undefined) byTag.set(use.tag, [use]);
    else list.push(use);
  }
  const ranked: { tag: string; accounts: number; uses: number; newest: number; history: HistoryDay[] }[] = [];
  for (const [tag, list] of byTag) {
    const recent = list.filter((u) => u.createdAt >= recentFrom);
    if (recent.length === 0) continue;
    ranked.push({
      tag,
      accounts: new Set(recent.map((u) => u.accountId)).size,
      uses: recent.length,
      newest: Math.max(...recent.map((u) => u.createdAt)),
      history: historyOf(list, now),
    });
  }
  ranked.sort((a, b) => b.accounts - a.accounts || b.uses - a.uses || b.newest - a.newest || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return ranked.slice(0, MAX_TRENDS).map(({ tag, history }) => ({ tag, history }));
}

/** Whether a status may trend: public, not a boost nor a reply, marked neither sensitive nor
 * behind a content warning, by an account that chose to be discoverable. */
export function mayTrend(status: Status, author: Account | undefined): boolean {
  return (
    status.visibility === 'public' &&
    status.reblogOfId === null &&
    status.inReplyToId === null &&
    !status.sensitive &&
    status.spoilerText === '' &&
    author !== undefined &&
    author.discoverable
  );
}

/** Statuses of the last TREND_DAYS days among the newest STATUS_CANDIDATES public ones that may
 * trend and were boosted or favourited, ranked by boosts plus favourites, then newest first;
 * what the viewer may not see, or hides, left out. */
export async function trendingStatuses(core: Core, viewer: Account | null): Promise<Status[]> {
  const since = startOfDay(core.clock.now()) - (TREND_DAYS - 1) * DAY;
  const recent = (await core.storage.statuses.query({ visibilities: ['public'], excludeReblogs: true }, { limit: STATUS_CANDIDATES })).filter(
    (s) => s.createdAt >= since && s.reblogsCount + s.favouritesCount > 0,
  );
  const authors = new Map((await core.storage.accounts.getMany([...new Set(recent.map((s) => s.accountId))])).map((a) => [a.id, a]));
  const candidates = recent.filter((s) => mayTrend(s, authors.get(s.accountId)));
  const shown = await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, candidates));
  const score = (s: Status) => s.reblogsCount + s.favouritesCount;
  return shown.sort((a, b) => score(b) - score(a) || compareIds(b.id, a.id)).slice(0, MAX_TRENDS);
}
