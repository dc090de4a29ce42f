// Link headers for paged lists: rel="next" pages to older items, rel="prev" to newer ones.
// Other query parameters are kept so that the next page asks the same question.

import type { RookeryConfig } from '../../domain/config.ts';
import type { Id } from '../../domain/model.ts';
import type { Params } from '../../domain/params.ts';

const CURSORS = new Set(['max_id', 'min_id', 'since_id']);

function pageUrl(config: RookeryConfig, path: string, query: Params, cursor: Record<string, string>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (CURSORS.has(key) || key === 'access_token') continue;
    if (Array.isArray(value)) for (const item of value) search.append(`${key}[]`, String(item));
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') search.append(key, String(value));
  }
  for (const [key, value] of Object.entries(cursor)) search.append(key, value);
  return `${config.baseUrl}${path}?${search.toString()}`;
}

export interface LinkCursors {
  /** Oldest item of the page: next page uses max_id = this. Null: no next link. */
  next: Id | null;
  /** Newest item of the page: previous page uses this cursor. Null: no prev link. */
  prev: Id | null;
  /** Which parameter the prev link uses: min_id (timelines) or since_id (account lists). */
  prevParam?: 'min_id' | 'since_id';
}

export function linkHeader(config: RookeryConfig, path: string, query: Params, cursors: LinkCursors): string | undefined {
  const links: string[] = [];
  if (cursors.next !== null) links.push(`<${pageUrl(config, path, query, { max_id: cursors.next })}>; rel="next"`);
  if (cursors.prev !== null) links.push(`<${pageUrl(config, path, query, { [cursors.prevParam ?? 'min_id']: cursors.prev })}>; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
