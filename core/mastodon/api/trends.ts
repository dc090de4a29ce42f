// Trends (core/domain/trends.ts): hashtags and statuses, paged by offset as Mastodon pages them
// (offset-paging.ts). Trending links are the cards plugin's (preview cards are its own).

import type { AppCore } from '../context.ts';
import { trendingStatuses, trendingTags } from '../../domain/trends.ts';
import { presentStatuses } from '../present/load.ts';
import { presentTags } from '../present/tag.ts';
import { paramsOf } from './statuses.ts';
import { offsetPagedJson, offsetWindow } from './offset-paging.ts';
import type { Endpoint } from '../endpoint/types.ts';

export function trendEndpoints(core: AppCore): Endpoint[] {
  const tags = (path: string): Endpoint => ({
    method: 'GET',
    path,
    auth: 'optional',
    scopes: [],
    handle: async (request) => {
      const params = paramsOf(request);
      const window = offsetWindow(params, 10);
      const trending = (await trendingTags(core)).slice(window.offset, window.offset + window.limit);
      const histories = new Map(trending.map((t) => [t.tag, t.history]));
      return offsetPagedJson(core.config, request.path, params, await presentTags(core, trending.map((t) => t.tag), request.caller.account, histories), window);
    },
  });
  return [
    tags('/api/v1/trends'),
    tags('/api/v1/trends/tags'),
    {
      method: 'GET',
      path: '/api/v1/trends/statuses',
      auth: 'optional',
      scopes: [],
      handle: async (request) => {
        const params = paramsOf(request);
        const window = offsetWindow(params, 20);
        const viewer = request.caller.account;
        const trending = (await trendingStatuses(core, viewer)).slice(window.offset, window.offset + window.limit);
        return offsetPagedJson(core.config, request.path, params, await presentStatuses(core, trending, viewer), window);
      },
    },
  ];
}
