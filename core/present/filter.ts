// v2 keyword filters: their JSON, and which of them match a status (the `filtered` field).
// Mastodon reports every matching active filter and lets the client apply each filter's
// contexts, so matching here does not depend on where the status is shown.

import type { Filter, Millis, Status } from '../model.ts';
import { compileKeywords, type KeywordMatcher } from '../text/keywords.ts';
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
 * needs no invalidation: a changed filter is simply another key. */
const compiled = new Map<string, KeywordMatcher>();
const MAX_COMPILED = 512;

export function keywordMatcher(filters: readonly Filter[]): KeywordMatcher {
  let key = '';
  for (const f of filters) {
    key += `${f.id}\u0001`;
    for (const k of f.keywords) key += `${k.wholeWord ? 1 : 0}${k.keyword}\u0002`;
  }
  let matcher = compiled.get(key);
  if (matcher === undefined) {
    matcher = compileKeywords(filters.flatMap((f) => f.keywords.map((k) => ({ group: f.id, keyword: k.keyword, wholeWord: k.wholeWord }))));
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, matcher);
  }
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
    const statuses = filter.statuses.filter((s) => s.statusId === status.id || s.statusId === status.reblogOfId).map((s) => s.id);
    if (keywords.length === 0 && statuses.length === 0) continue;
    results.push({
      filter: renderFilter(filter),
      keyword_matches: keywords.length > 0 ? keywords : null,
      status_matches: statuses.length > 0 ? statuses : null,
    });
  }
  return results;
}
