// Follow suggestions: v1 lists the accounts, v2 says why each is suggested (`sources`, and the
// older three-valued `source`); DELETE /api/v1/suggestions/:id dismisses one for good.

import type { AppCore } from '../context.ts';
import { dismissSuggestion, SUGGESTION_LIMITS, suggestionsFor } from '../../domain/accounts/suggestions.ts';
import { int, page } from '../../domain/params.ts';
import type { Suggestion } from '../../domain/ports/storage.ts';
import { presentAccounts } from '../present/load.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:accounts'];
const WRITE = ['write', 'write:accounts'];

/** Mastodon's legacy `source` for each of its `sources`. */
const LEGACY_SOURCE = { friends_of_friends: 'past_interactions', most_followed: 'global' } as const;

function limitOf(request: ApiRequest): number {
  return page(paramsOf(request), SUGGESTION_LIMITS.limit, SUGGESTION_LIMITS.maxLimit).limit;
}

async function accountsOf(core: AppCore, suggestions: readonly Suggestion[]) {
  const rendered = new Map((await presentAccounts(core, suggestions.map((s) => s.accountId))).map((a) => [a.id, a]));
  return suggestions.flatMap((s) => {
    const account = rendered.get(s.accountId);
    return account === undefined ? [] : [{ suggestion: s, account }];
  });
}

export function suggestionEndpoints(core: AppCore): Endpoint[] {
  const dismiss = (path: string): Endpoint => ({
    method: 'DELETE',
    path,
    auth: 'user',
    scopes: WRITE,
    handle: async (request) => {
      await dismissSuggestion(core, actorOf(request), request.params['id'] ?? '');
      return json({});
    },
  });
  return [
    {
      method: 'GET',
      path: '/api/v1/suggestions',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await accountsOf(core, await suggestionsFor(core, actorOf(request), limitOf(request)))).map((e) => e.account)),
    },
    {
      method: 'GET',
      path: '/api/v2/suggestions',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const offset = int(paramsOf(request), 'offset') ?? 0;
        const entries = await accountsOf(core, await suggestionsFor(core, actorOf(request), limitOf(request), offset));
        return json(entries.map(({ suggestion, account }) => ({ source: LEGACY_SOURCE[suggestion.source], sources: [suggestion.source], account })));
      },
    },
    // Mastodon routes the dismissal through v1 only.
    dismiss('/api/v1/suggestions/:id'),
  ];
}
