// Account endpoints: profiles, their statuses and follows, lookup, and (relationships.ts) how
// the caller stands with other accounts. Sign-up and verify_credentials live in registration.ts.

import { featuredTagsOf } from '../../domain/tags/featured.ts';
import { renderFeaturedTag } from '../present/featured-tag.ts';
import { familiarFollowers, followersOf, followingOf } from '../../domain/accounts/connections.ts';
import { findAccount, findAccountOrNull, lookupAccount } from '../../domain/accounts/find.ts';
import type { AppCore } from '../context.ts';
import { unprocessable } from '../../domain/errors.ts';
import { listsWithMember } from '../../domain/lists.ts';
import { bool, int, page, str, strArray } from '../../domain/params.ts';
import { presentAccounts } from '../present/load.ts';
import { renderList } from '../present/list.ts';
import { search } from '../../domain/search.ts';
import { accountStatuses, pinnedStatuses } from '../../domain/timelines/account.ts';
import { pagedJson, pagedStatuses } from './paging.ts';
import { relationshipEndpoints } from './relationships.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, jsonText, type ApiRequest, type Endpoint } from '../endpoint/types.ts';
import { presentStatusesText } from '../present/cache/status-text.ts';

const READ_ACCOUNTS = ['read', 'read:accounts'];

function id(request: ApiRequest): string {
  return request.params['id'] ?? '';
}

export function accountEndpoints(core: AppCore): Endpoint[] {
  const follows = (path: 'followers' | 'following', read: typeof followersOf): Endpoint => ({
    method: 'GET',
    path: `/api/v1/accounts/:id/${path}`,
    auth: 'optional',
    scopes: READ_ACCOUNTS,
    handle: async (request) => {
      const owner = await findAccount(core, id(request));
      const slice = await read(core, request.caller.account, owner, page(paramsOf(request), 40, 80));
      const ids = slice.items.map((f) => (path === 'followers' ? f.accountId : f.targetAccountId));
      return pagedJson(core, request, await presentAccounts(core, ids), slice, 'since_id');
    },
  });

  return [
    {
      method: 'GET',
      path: '/api/v1/accounts',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const ids = strArray(paramsOf(request), 'id') ?? [];
        if (ids.length > 40) throw unprocessable('Too many ids requested');
        const found = await Promise.all([...new Set(ids)].map((i) => findAccountOrNull(core, i)));
        return json(await presentAccounts(core, found.flatMap((a) => (a === null ? [] : [a.id]))));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/lookup',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const account = await lookupAccount(core, str(paramsOf(request), 'acct') ?? '');
        const [rendered] = await presentAccounts(core, [account.id]);
        return json(rendered);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/search',
      auth: 'user',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const params = paramsOf(request);
        const limit = page(params, 40, 80).limit;
        const results = await search(core, actorOf(request), str(params, 'q') ?? '', {
          type: 'accounts',
          following: bool(params, 'following'),
          limit,
          offset: Math.max(0, int(params, 'offset') ?? 0),
        });
        return json(await presentAccounts(core, results.accounts.map((a) => a.id)));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/familiar_followers',
      auth: 'user',
      scopes: ['read', 'read:follows'],
      handle: async (request) => {
        const results = await familiarFollowers(core, actorOf(request), strArray(paramsOf(request), 'id') ?? []);
        const rendered = new Map((await presentAccounts(core, [...new Set(results.flatMap((r) => r.accountIds))])).map((a) => [a.id, a]));
        return json(results.map((r) => ({ id: r.id, accounts: r.accountIds.flatMap((i) => rendered.get(i) ?? []) })));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/:id',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      keep: true,
      handle: async (request) => {
        const account = await findAccount(core, id(request));
        const [rendered] = await presentAccounts(core, [account.id]);
        return json(rendered);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/:id/identity_proofs',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      // Identity proofs were dropped from Mastodon (3.5); the route stays, always empty.
      handle: async (request) => {
        await findAccount(core, id(request));
        return json([]);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/:id/statuses',
      auth: 'optional',
      scopes: ['read', 'read:statuses'],
      keep: true,
      handle: async (request) => {
        const params = paramsOf(request);
        const author = await findAccount(core, id(request));
        const viewer = request.caller.account;
        const paging = page(params, 20, 40);
        if (bool(params, 'pinned') === true) {
          // All pins fit in one page (at most limits.maxPinnedStatuses): no Link header.
          return jsonText(await presentStatusesText(core, await pinnedStatuses(core, viewer, author, paging), viewer, request.keep));
        }
        const slice = await accountStatuses(core, viewer, author, paging, {
          onlyMedia: bool(params, 'only_media'),
          excludeReplies: bool(params, 'exclude_replies'),
          excludeReblogs: bool(params, 'exclude_reblogs'),
          tagged: str(params, 'tagged') || undefined,
        });
        return pagedStatuses(core, request, slice.items, slice);
      },
    },
    follows('followers', followersOf),
    follows('following', followingOf),
    {
      method: 'GET',
      path: '/api/v1/accounts/:id/lists',
      auth: 'user',
      scopes: ['read', 'read:lists'],
      handle: async (request) => json((await listsWithMember(core, actorOf(request), id(request))).map(renderList)),
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/:id/featured_tags',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const account = await findAccount(core, id(request));
        return json((await featuredTagsOf(core, account.id)).map((f) => renderFeaturedTag(core.config, account, f)));
      },
    },
    ...relationshipEndpoints(core),
  ];
}
