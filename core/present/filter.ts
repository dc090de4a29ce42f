// v2 keyword filters: their JSON, and which of them match a status (the `filtered` field).
// Mastodon reports every matching active filter and lets the client apply each filter's
// contexts, so matching here does not depend on where the status is shown.

import type { Filter, Millis, Status } from '../model.ts';
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function keywordPattern(keyword: string, wholeWord: boolean): RegExp {
  const body = escapeRegExp(keyword);
  // \b only makes sense next to word characters; a keyword like "#tag" keeps its edge open
  const start = wholeWord && /^\w/u.test(keyword) ? '(?<![\\p{L}\\p{N}_])' : '';
  const end = wholeWord && /\w$/u.test(keyword) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${start}${body}${end}`, 'iu');
}

export function isActive(filter: Filter, now: Millis): boolean {
  return filter.expiresAt === null || filter.expiresAt > now;
}

export function matchFilters(filters: readonly Filter[], status: Status, searchable: string, now: Millis): FilterResultJson[] {
  const results: FilterResultJson[] = [];
  for (const filter of filters) {
    if (!isActive(filter, now)) continue;
    const keywords = filter.keywords.filter((k) => keywordPattern(k.keyword, k.wholeWord).test(searchable)).map((k) => k.keyword);
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
