// Paged lists of accounts around one account: followers, following, and the viewer's own
// blocks, mutes and follow requests. Rows are paged by their own id (follow, block, mute,
// request), so clients can only follow the Link header.

import type { Core } from '../context.ts';
import type { Account, Block, Follow, Id, Mute } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { activeMute, isSuspended } from '../policy.ts';
import { isId } from '../ids.ts';
import { findAccountOrNull } from './find.ts';

interface Row {
  id: Id;
}

/** Leaves out suspended accounts, and accounts the viewer blocks or mutes, or is blocked by
 * (not on their own lists). */
function withoutHiddenRows<T extends Row>(core: Core, viewer: Account | null, ownerId: Id, accountOf: (row: T) => Id) {
  return async (rows: T[]): Promise<T[]> => {
    const suspended = new Set((await core.storage.accounts.getMany(rows.map(accountOf))).filter(isSuspended).map((a) => a.id));
    const shown = suspended.size === 0 ? rows : rows.filter((row) => !suspended.has(accountOf(row)));
    if (viewer === null || viewer.id === ownerId) return shown;
    const others = shown.map(accountOf).filter((id) => id !== viewer.id);
    const hidden = await core.storage.relationships.hiddenFrom(viewer.id, others, core.clock.now());
    return shown.filter((row) => !hidden.has(accountOf(row)));
  };
}

async function blockedByOwner(core: Core, viewer: Account | null, owner: Account): Promise<boolean> {
  if (viewer === null || viewer.id === owner.id) return false;
  const [facts] = await core.storage.relationships.relationships(viewer.id, [owner.id]);
  return facts?.blockedBy ?? false;
}

const EMPTY = { items: [], next: null, prev: null };

/** Follows of the account (account ids in `accountId`). */
export async function followersOf(core: Core, viewer: Account | null, owner: Account, page: Page): Promise<Slice<Follow>> {
  if (isSuspended(owner) || (await blockedByOwner(core, viewer, owner))) return EMPTY;
  return fillPage(page, (f) => f.id, (p) => core.storage.relationships.followersOf(owner.id, p), withoutHiddenRows<Follow>(core, viewer, owner.id, (f) => f.accountId));
}

/** Follows by the account (account ids in `targetAccountId`). */
export async function followingOf(core: Core, viewer: Account | null, owner: Account, page: Page): Promise<Slice<Follow>> {
  if (isSuspended(owner) || (await blockedByOwner(core, viewer, owner))) return EMPTY;
  return fillPage(page, (f) => f.id, (p) => core.storage.relationships.followingOf(owner.id, p), withoutHiddenRows<Follow>(core, viewer, owner.id, (f) => f.targetAccountId));
}

export function blocksOf(core: Core, actor: Account, page: Page): Promise<Slice<Block>> {
  return fillPage<Block>(page, (b) => b.id, (p) => core.storage.relationships.blocksBy(actor.id, p));
}

/** Mutes that have not expired. */
export function mutesOf(core: Core, actor: Account, page: Page): Promise<Slice<Mute>> {
  const now = core.clock.now();
  return fillPage(page, (m) => m.id, (p) => core.storage.relationships.mutesBy(actor.id, p), async (rows) => rows.filter((m) => activeMute(m, now) !== null));
}

export function followRequestsTo(core: Core, actor: Account, page: Page): Promise<Slice<Follow>> {
  return fillPage(page, (r) => r.id, (p) => core.storage.relationships.followRequestsTo(actor.id, p));
}

/** At most this many accounts are looked at per request, and this many followers per account. */
export const FAMILIAR_LIMITS = { accounts: 40, followers: 80 } as const;

/** For each asked account (unknown ones left out, as Mastodon does), the accounts the viewer
 * follows that follow it, oldest follow first: none when it blocks the viewer, and without
 * those hidden from the viewer (blocks and mutes, as in the followers list). */
export async function familiarFollowers(core: Core, viewer: Account, ids: readonly string[]): Promise<{ id: Id; accountIds: Id[] }[]> {
  const asked = [...new Set(ids.filter(isId))].slice(0, FAMILIAR_LIMITS.accounts);
  const targets = (await Promise.all(asked.map((id) => findAccountOrNull(core, id)))).filter((a): a is Account => a !== null);
  if (targets.length === 0) return [];
  const facts = await core.storage.relationships.relationships(viewer.id, targets.map((a) => a.id));
  const blockedBy = new Set(facts.filter((f) => f.blockedBy).map((f) => f.targetId));
  const now = core.clock.now();
  return Promise.all(
    targets.map(async (target) => {
      if (blockedBy.has(target.id)) return { id: target.id, accountIds: [] };
      const follows = await core.storage.relationships.familiarFollows(viewer.id, [target.id], FAMILIAR_LIMITS.followers);
      const accountIds = follows.map((f) => f.accountId).reverse();
      const hidden = await core.storage.relationships.hiddenFrom(viewer.id, accountIds, now);
      return { id: target.id, accountIds: accountIds.filter((id) => !hidden.has(id)) };
    }),
  );
}
