// Lists paged by offset, as Mastodon pages its trends: `limit` (default, at most twice that) and
// `offset`; Link headers carry those two only, a next page when this one is full and a previous
// one only past the first two pages (Mastodon's condition, kept as clients see it).

import type { RookeryConfig } from '../../domain/config.ts';
import { int, page, str, type Params } from '../../domain/params.ts';
import { json, type ApiResponse } from '../endpoint/types.ts';

export interface OffsetWindow {
  offset: number;
  limit: number;
}

export function offsetWindow(params: Params, defaultLimit: number): OffsetWindow {
  return { offset: Math.max(0, int(params, 'offset') ?? 0), limit: page(params, defaultLimit, defaultLimit * 2).limit };
}

/** `body`, one window of the list, with its Link header. */
export function offsetPagedJson(config: RookeryConfig, path: string, params: Params, body: unknown[], window: OffsetWindow): ApiResponse {
  const url = (offset: number) => {
    const search = new URLSearchParams();
    const limit = str(params, 'limit');
    if (limit !== undefined) search.append('limit', limit);
    search.append('offset', String(offset));
    return `${config.baseUrl}${path}?${search.toString()}`;
  };
  const links: string[] = [];
  if (window.limit > 0 && body.length === window.limit) links.push(`<${url(window.offset + window.limit)}>; rel="next"`);
  if (window.offset > window.limit) links.push(`<${url(window.offset - window.limit)}>; rel="prev"`);
  return json(body, 200, links.length === 0 ? undefined : { link: links.join(', ') });
}
