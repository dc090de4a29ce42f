// v2 keyword filters: their JSON, and which of them match a status (the `filtered` field).
// Mastodon reports every matching active filter and lets the client apply each filter's
// contexts, so matching here does not depend on where the status is shown.

import type { Filter, Millis, Status } from '../../domain/model.ts';
import { compileKeywords, type KeywordMatcher } from '../../domain/text/keywords.ts';
import { isoOrNull } from './time.ts';

export function renderFilter(filter: Filter) {
  return {
    id: filter.id,
    title: filter.title,
    context: filter.context,
    expires_at: isoOrNull(filter.expiresAt),
    filter_action: filter.action,
    keywords: filter.keywords.map((k) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord })),
    statuses: filter.statuses.map((s) => ({ id: s.id, status_id: s.statusId })),
  };
}

export type FilterJson = ReturnType<typeof renderFilter>;

export interface FilterResultJson {
  filter: FilterJson;
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}

/** The keywords of a viewer's filters, compiled once. Cached by their content, so the cache
 * needs no invalidation: a changed filter is simply another key. Bounded by count and by the
 * keyword characters the matchers hold (their size follows them: about 40 bytes each), oldest
 * first: one account at the filter limits compiles 160,000 characters. */
const compiled = new Map<string, { matcher: KeywordMatcher; weight: number }>();
const MAX_COMPILED = 512;
const MAX_WEIGHT = 2_000_000;
let weight = 0;

export function keywordMatcher(filters: readonly Filter[]): KeywordMatcher {
  let key = '';
  for (const f of filters) {
    key += `${f.id}\u0001`;
    for (const k of f.keywords) key += `${k.wholeWord ? 1 : 0}${k.keyword}\u0002`;
  }
  const hit = compiled.get(key);
  if (hit !== undefined) return hit.matcher;
  const matcher = compileKeywords(filters.flatMap((f) => f.keywords.map((k) => ({ group: f.id, keyword: k.keyword, wholeWord: k.wholeWord }))));
  const entry = { matcher, weight: key.length };
  while (compiled.size > 0 && (compiled.size >= MAX_COMPILED || weight + entry.weight > MAX_WEIGHT)) {
    const [oldest, evicted] = compiled.entries().next().value as [string, { weight: number }];
    compiled.delete(oldest);
    weight -= evicted.weight;
  }
  compiled.set(key, entry);
  weight += entry.weight;
  return matcher;
}

export function isActive(filter: Filter, now: Millis): boolean {
  return filter.expiresAt === null || filter.expiresAt > now;
}

/** Every active filter that matches the status, by keyword (`matcher` compiled from the same
 * filters) or by status. */
export function matchFilters(filters: readonly Filter[], matcher: KeywordMatcher, status: Status, searchable: string, now: Millis): FilterResultJson[] {
  const results: FilterResultJson[] = [];
  const byKeyword = matcher.size === 0 ? null : matcher.match(searchable);
  for (const filter of filters) {
    if (!isActive(filter, now)) continue;
    const keywords = byKeyword?.get(filter.id) ?? [];
    // Mastodon reports the matched statuses' ids, not the FilterStatus rows'.
    const statuses = filter.statuses.filter((s) => s.statusId === status.id || s.statusId === status.reblogOfId).map((s) => s.statusId);
    if (keywords.length === 0 && statuses.length === 0) continue;
    results.push({
      filter: renderFilter(filter),
      keyword_matches: keywords.length > 0 ? keywords : null,
      status_matches: statuses.length > 0 ? statuses : null,
    });
  }
  return results;
}
