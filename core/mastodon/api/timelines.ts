// Timelines (home, public, hashtag, list) and the caller's bookmarks and favourites.

import type { AppCore } from '../context.ts';
import { bool, page, strArray, type Params } from '../../domain/params.ts';
import { homeTimeline } from '../../domain/timelines/home.ts';
import { listTimeline } from '../../domain/timelines/list.ts';
import { bookmarkedStatuses, favouritedStatuses } from '../../domain/timelines/marks.ts';
import { publicTimeline, tagTimeline, type PublicOptions } from '../../domain/timelines/public.ts';
import { pagedStatuses } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import type { Endpoint } from '../endpoint/types.ts';

const READ_STATUSES = ['read', 'read:statuses'];

/** local=true: local only; remote=true: remote only (local wins when both are sent). */
function originOf(params: Params): PublicOptions {
  const local = bool(params, 'local') === true ? true : bool(params, 'remote') === true ? false : undefined;
  return { local, onlyMedia: bool(params, 'only_media') };
}

export function timelineEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/timelines/home',
      auth: 'user',
      scopes: READ_STATUSES,
      handle: async (request) => {
        const slice = await homeTimeline(core, actorOf(request), page(paramsOf(request), 20, 40));
        return pagedStatuses(core, request, slice.items, slice);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/timelines/public',
      auth: 'optional',
      scopes: READ_STATUSES,
      keep: true,
      handle: async (request) => {
        const params = paramsOf(request);
        const slice = await publicTimeline(core, request.caller.account, page(params, 20, 40), originOf(params));
        return pagedStatuses(core, request, slice.items, slice);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/timelines/tag/:hashtag',
      auth: 'optional',
      scopes: READ_STATUSES,
      keep: true,
      handle: async (request) => {
        const params = paramsOf(request);
        const slice = await tagTimeline(core, request.caller.account, page(params, 20, 40), {
          ...originOf(params),
          tag: request.params['hashtag'] ?? '',
          any: strArray(params, 'any'),
          all: strArray(params, 'all'),
          none: strArray(params, 'none'),
        });
        return pagedStatuses(core, request, slice.items, slice);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/timelines/list/:list_id',
      auth: 'user',
      scopes: ['read', 'read:lists'],
      handle: async (request) => {
        const slice = await listTimeline(core, actorOf(request), request.params['list_id'] ?? '', page(paramsOf(request), 20, 40));
        return pagedStatuses(core, request, slice.items, slice);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/bookmarks',
      auth: 'user',
      scopes: ['read', 'read:bookmarks'],
      handle: async (request) => {
        const marked = await bookmarkedStatuses(core, actorOf(request), page(paramsOf(request), 20, 40));
        return pagedStatuses(core, request, marked.statuses, marked);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/favourites',
      auth: 'user',
      scopes: ['read', 'read:favourites'],
      handle: async (request) => {
        const marked = await favouritedStatuses(core, actorOf(request), page(paramsOf(request), 20, 40));
        return pagedStatuses(core, request, marked.statuses, marked);
      },
    },
  ];
}
