// Hashtags: GET /api/v1/tags/:name, following them and the followed ones
// (core/domain/tags/follows.ts), featuring them on one's profile (core/domain/tags/featured.ts).

import type { AppCore } from '../context.ts';
import { page, str } from '../../domain/params.ts';
import { featuredNameOf, featuredTagsOf, featuredTagSuggestions, featureTag, unfeatureTag, unfeatureTagById } from '../../domain/tags/featured.ts';
import { followedTags, followTag, unfollowTag } from '../../domain/tags/follows.ts';
import { tagNameOf } from '../../domain/tags/names.ts';
import { renderFeaturedTag } from '../present/featured-tag.ts';
import { presentTag, presentTags } from '../present/tag.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const WRITE_FOLLOWS = ['follow', 'write', 'write:follows'];
const READ_ACCOUNTS = ['read', 'read:accounts'];
const WRITE_ACCOUNTS = ['write', 'write:accounts'];

export function tagEndpoints(core: AppCore): Endpoint[] {
  /** POST /api/v1/tags/:name/<action>, answered with the tag as the caller now sees it. */
  const action = (name: string, scopes: string[], run: (request: ApiRequest) => Promise<unknown>): Endpoint => ({
    method: 'POST',
    path: `/api/v1/tags/:name/${name}`,
    auth: 'user',
    scopes,
    handle: async (request) => {
      await run(request);
      return json(await presentTag(core, tagNameOf(request.params['name']).name, actorOf(request)));
    },
  });
  return [
    {
      method: 'GET',
      path: '/api/v1/tags/:name',
      auth: 'optional',
      scopes: ['read', 'read:follows'],
      handle: async (request) => json(await presentTag(core, tagNameOf(request.params['name']).name, request.caller.account)),
    },
    action('follow', WRITE_FOLLOWS, (request) => followTag(core, actorOf(request), tagNameOf(request.params['name']))),
    action('unfollow', WRITE_FOLLOWS, (request) => unfollowTag(core, actorOf(request), tagNameOf(request.params['name']))),
    action('feature', WRITE_ACCOUNTS, (request) => featureTag(core, actorOf(request), tagNameOf(request.params['name']))),
    action('unfeature', WRITE_ACCOUNTS, (request) => unfeatureTag(core, actorOf(request), tagNameOf(request.params['name']))),
    {
      method: 'GET',
      path: '/api/v1/featured_tags',
      auth: 'user',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const actor = actorOf(request);
        return json((await featuredTagsOf(core, actor.id)).map((f) => renderFeaturedTag(core.config, actor, f)));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/featured_tags',
      auth: 'user',
      scopes: WRITE_ACCOUNTS,
      handle: async (request) => {
        const actor = actorOf(request);
        const featured = await featureTag(core, actor, featuredNameOf(str(paramsOf(request), 'name')), true);
        const view = (await featuredTagsOf(core, actor.id)).find((f) => f.id === featured.id) ?? { ...featured, statusesCount: 0, lastStatusAt: null };
        return json(renderFeaturedTag(core.config, actor, view));
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/featured_tags/:id',
      auth: 'user',
      scopes: WRITE_ACCOUNTS,
      handle: async (request) => {
        await unfeatureTagById(core, actorOf(request), request.params['id'] ?? '');
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v1/featured_tags/suggestions',
      auth: 'user',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const actor = actorOf(request);
        return json(await presentTags(core, await featuredTagSuggestions(core, actor), actor));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/followed_tags',
      auth: 'user',
      scopes: ['follow', 'read', 'read:follows'],
      handle: async (request) => {
        const actor = actorOf(request);
        const slice = await followedTags(core, actor, page(paramsOf(request), 100, 200));
        return pagedJson(core, request, await presentTags(core, slice.items.map((f) => f.name), actor), slice, 'since_id');
      },
    },
  ];
}
