// How the caller stands with other accounts: follow, block, mute, their lists, and the
// relationships clients show on profiles.

import { isSuspended } from '../../domain/policy.ts';
import { endorse, endorsementsOf, unendorse } from '../../domain/accounts/endorse.ts';
import { findAccount } from '../../domain/accounts/find.ts';
import { block, mute, unblock, unmute } from '../../domain/accounts/block.ts';
import { blocksOf, followRequestsTo, mutesOf } from '../../domain/accounts/connections.ts';
import { blockDomain, domainBlocksOf, unblockDomain } from '../../domain/accounts/domain-blocks.ts';
import { setAccountNote } from '../../domain/accounts/note.ts';
import { authorizeFollowRequest, follow, rejectFollowRequest, removeFromFollowers, unfollow, type FollowOptions } from '../../domain/accounts/follow.ts';
import type { AppCore } from '../context.ts';
import { isId } from '../../domain/ids.ts';
import type { Account } from '../../domain/model.ts';
import { bool, int, page, present, str, strArray, type Params } from '../../domain/params.ts';
import { presentAccounts } from '../present/load.ts';
import { presentRelationship, presentRelationships } from '../present/relationship.ts';
import { isoOrNull } from '../entities/time.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const WRITE_FOLLOWS = ['write', 'write:follows', 'follow'];
const WRITE_BLOCKS = ['write', 'write:blocks', 'follow'];
const WRITE_MUTES = ['write', 'write:mutes', 'follow'];
const WRITE_ACCOUNTS = ['write', 'write:accounts'];
const READ_ACCOUNTS = ['read', 'read:accounts'];

function followOptions(params: Params): FollowOptions {
  const languages = present(params, 'languages') ? (strArray(params, 'languages') ?? []) : undefined;
  return {
    reblogs: bool(params, 'reblogs'),
    notify: bool(params, 'notify'),
    languages: languages === undefined ? undefined : languages.length === 0 ? null : languages,
  };
}

export function relationshipEndpoints(core: AppCore): Endpoint[] {
  /** POST /api/v1/<prefix>/:id/<action>, answered with the caller's relationship to the target. */
  const action = (prefix: string, name: string, scopes: string[], run: (actor: Account, targetId: string, params: Params) => Promise<Account>): Endpoint => ({
    method: 'POST',
    path: `/api/v1/${prefix}/:id/${name}`,
    auth: 'user',
    scopes,
    handle: async (request: ApiRequest) => {
      const actor = actorOf(request);
      const target = await run(actor, request.params['id'] ?? '', paramsOf(request));
      return json(await presentRelationship(core, actor.id, target.id));
    },
  });

  return [
    {
      method: 'GET',
      path: '/api/v1/accounts/relationships',
      auth: 'user',
      scopes: ['read', 'read:follows', 'follow'],
      handle: async (request) => {
        const actor = actorOf(request);
        const params = paramsOf(request);
        const asked = [...new Set((strArray(params, 'id') ?? []).filter(isId))];
        // Suspended accounts are left out unless with_suspended is asked for (Mastodon 4.x).
        const withSuspended = bool(params, 'with_suspended') === true;
        const known = new Set((await core.storage.accounts.getMany(asked)).filter((a) => withSuspended || !isSuspended(a)).map((a) => a.id));
        return json(await presentRelationships(core, actor.id, asked.filter((i) => known.has(i))));
      },
    },
    action('accounts', 'follow', WRITE_FOLLOWS, (actor, target, params) => follow(core, actor, target, followOptions(params))),
    action('accounts', 'unfollow', WRITE_FOLLOWS, (actor, target) => unfollow(core, actor, target)),
    action('accounts', 'remove_from_followers', WRITE_FOLLOWS, (actor, follower) => removeFromFollowers(core, actor, follower)),
    action('accounts', 'note', ['write', 'write:accounts'], (actor, target, params) => setAccountNote(core, actor, target, str(params, 'comment') ?? '')),
    action('accounts', 'block', WRITE_BLOCKS, (actor, target) => block(core, actor, target)),
    action('accounts', 'unblock', WRITE_BLOCKS, (actor, target) => unblock(core, actor, target)),
    action('accounts', 'mute', WRITE_MUTES, (actor, target, params) =>
      mute(core, actor, target, { notifications: bool(params, 'notifications') ?? true, durationSeconds: Math.max(0, int(params, 'duration') ?? 0) }),
    ),
    action('accounts', 'unmute', WRITE_MUTES, (actor, target) => unmute(core, actor, target)),
    // Endorsing: `pin`/`unpin` since Mastodon 2.5, `endorse`/`unendorse` since 4.4.
    ...(['pin', 'endorse'] as const).map((name) => action('accounts', name, WRITE_ACCOUNTS, (actor, target) => endorse(core, actor, target))),
    ...(['unpin', 'unendorse'] as const).map((name) => action('accounts', name, WRITE_ACCOUNTS, (actor, target) => unendorse(core, actor, target))),
    {
      method: 'GET',
      path: '/api/v1/endorsements',
      auth: 'user',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const slice = await endorsementsOf(core, actorOf(request).id, page(paramsOf(request), 40, 80));
        return pagedJson(core, request, await presentAccounts(core, slice.items.map((e) => e.targetId)), slice, 'since_id');
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/:id/endorsements',
      auth: 'optional',
      scopes: READ_ACCOUNTS,
      handle: async (request) => {
        const account = await findAccount(core, request.params['id'] ?? '');
        const slice = await endorsementsOf(core, account.id, page(paramsOf(request), 40, 80));
        return pagedJson(core, request, await presentAccounts(core, slice.items.map((e) => e.targetId)), slice, 'since_id');
      },
    },
    action('follow_requests', 'authorize', WRITE_FOLLOWS, (actor, requester) => authorizeFollowRequest(core, actor, requester)),
    action('follow_requests', 'reject', WRITE_FOLLOWS, (actor, requester) => rejectFollowRequest(core, actor, requester)),
    {
      method: 'GET',
      path: '/api/v1/follow_requests',
      auth: 'user',
      scopes: ['read', 'read:follows', 'follow'],
      handle: async (request) => {
        const slice = await followRequestsTo(core, actorOf(request), page(paramsOf(request), 40, 80));
        return pagedJson(core, request, await presentAccounts(core, slice.items.map((r) => r.accountId)), slice, 'since_id');
      },
    },
    {
      method: 'GET',
      path: '/api/v1/blocks',
      auth: 'user',
      scopes: ['read', 'read:blocks', 'follow'],
      handle: async (request) => {
        const slice = await blocksOf(core, actorOf(request), page(paramsOf(request), 40, 80));
        return pagedJson(core, request, await presentAccounts(core, slice.items.map((b) => b.targetAccountId)), slice, 'since_id');
      },
    },
    {
      method: 'GET',
      path: '/api/v1/mutes',
      auth: 'user',
      scopes: ['read', 'read:mutes', 'follow'],
      handle: async (request) => {
        const slice = await mutesOf(core, actorOf(request), page(paramsOf(request), 40, 80));
        const accounts = await presentAccounts(core, slice.items.map((m) => m.targetAccountId));
        const expiry = new Map(slice.items.map((m) => [m.targetAccountId, isoOrNull(m.expiresAt)]));
        // Muted accounts carry when the mute ends, as on Mastodon.
        const body = accounts.map((a) => ({ ...a, mute_expires_at: expiry.get(a.id) ?? null }));
        return pagedJson(core, request, body, slice, 'since_id');
      },
    },
    {
      method: 'GET',
      path: '/api/v1/domain_blocks',
      auth: 'user',
      scopes: ['read', 'read:blocks', 'follow'],
      handle: async (request) => {
        const slice = await domainBlocksOf(core, actorOf(request), page(paramsOf(request), 100, 200));
        return pagedJson(core, request, slice.items.map((b) => b.domain), slice, 'since_id');
      },
    },
    {
      method: 'POST',
      path: '/api/v1/domain_blocks',
      auth: 'user',
      scopes: WRITE_BLOCKS,
      handle: async (request) => {
        await blockDomain(core, actorOf(request), str(paramsOf(request), 'domain') ?? '');
        return json({});
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/domain_blocks',
      auth: 'user',
      scopes: WRITE_BLOCKS,
      handle: async (request) => {
        await unblockDomain(core, actorOf(request), str(paramsOf(request), 'domain') ?? '');
        return json({});
      },
    },
  ];
}
