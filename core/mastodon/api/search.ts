// Search (v2) (core/search.ts says what is found).

import type { AppCore } from '../context.ts';
import { badRequest, RookeryError } from '../../domain/errors.ts';
import { bool, int, page, present, str } from '../../domain/params.ts';
import { presentAccounts, presentStatuses } from '../present/load.ts';
import { presentTags } from '../present/tag.ts';
import { search, type SearchType } from '../../domain/search.ts';
import { paramsOf } from './statuses.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

const TYPES: readonly SearchType[] = ['accounts', 'hashtags', 'statuses'];

export function searchEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v2/search',
      auth: 'optional',
      scopes: ['read', 'read:search'],
      handle: async (request) => {
        const params = paramsOf(request);
        const q = str(params, 'q');
        if (q === undefined || q === '') throw badRequest("param is missing or the request can't be satisfied: q");
        const viewer = request.caller.account;
        if (viewer === null && present(params, 'offset')) {
          throw new RookeryError(401, 'Search queries pagination is not supported without authentication');
        }
        if (viewer === null && bool(params, 'resolve') === true) {
          throw new RookeryError(401, 'Search queries that resolve remote resources are not supported without authentication');
        }
        const requested = str(params, 'type');
        const results = await search(core, viewer, q, {
          type: TYPES.find((t) => t === requested),
          following: bool(params, 'following'),
          resolve: bool(params, 'resolve') === true,
          limit: page(params, 20, 40).limit,
          offset: Math.max(0, int(params, 'offset') ?? 0),
        });
        return json({
          accounts: await presentAccounts(core, results.accounts.map((a) => a.id)),
          statuses: await presentStatuses(core, results.statuses, viewer),
          hashtags: await presentTags(core, results.hashtags, viewer),
        });
      },
    },
  ];
}
