// What remote accounts do to our statuses and accounts, and what their servers answer to our
// follows. Each goes through the operation a local user's request uses (core/statuses,
// core/accounts), so the rules, counters, events and notifications are the same ones.

import { blockAccount, unblockAccount } from '../accounts/block.ts';
import { acceptRequest, dropRequest, endFollow, follow, removeFromListsOf } from '../accounts/follow.ts';
import type { Core } from '../context.ts';
import { notFound, RookeryError, unprocessable } from '../errors.ts';
import type { Account, Id, Millis, Status } from '../model.ts';
import { StorageConflict } from '../ports/storage.ts';
import { favourite, unfavourite } from '../statuses/favourite.ts';
import { reblog, unreblog } from '../statuses/reblog.ts';
import { httpUrl } from '../remote/lookup.ts';

async function account(core: Core, id: Id): Promise<Account> {
  const found = await core.storage.accounts.get(id);
  if (found === null) throw notFound();
  return found;
}

/** Runs an undo that answers 404 when the actor can no longer see the status, after it undid
 * its part: for a remote actor the undo is done either way. */
async function quietly(work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof RookeryError && err.status === 404)) throw err;
  }
}

/** A Like: the favourite a local user makes (visibility, blocks, counter, 'status.favourited'
 * and its notification). 404 when the account may not see the status. */
export async function remoteFavourite(core: Core, accountId: Id, statusId: Id): Promise<Status> {
  return favourite(core, await account(core, accountId), statusId);
}

/** Undo of a Like. */
export async function remoteUnfavourite(core: Core, accountId: Id, statusId: Id): Promise<void> {
  const actor = await account(core, accountId);
  await quietly(() => unfavourite(core, actor, statusId));
}

/** An Announce: a boost stored under the activity's id and time, with the rules of a local
 * boost (only public and unlisted statuses, counter, 'status.reblogged', notification). A
 * second delivery returns the first boost. */
export async function remoteBoost(core: Core, accountId: Id, statusId: Id, boostUri: string, createdAt: Millis): Promise<Status> {
  const uri = httpUrl(boostUri);
  if (uri === null) throw unprocessable('Validation failed: Uri is invalid');
  const earlier = await core.storage.statuses.findByUri(uri);
  if (earlier !== null) return earlier;
  const now = core.clock.now();
  const at = Number.isFinite(createdAt) && createdAt > 0 && createdAt <= now ? createdAt : now;
  try {
    return await reblog(core, await account(core, accountId), null, statusId, {}, null, { uri, createdAt: at });
  } catch (err) {
    // The id of a boost since undone: not boosted again by a replay.
    if (err instanceof StorageConflict && err.rule === 'uri') throw notFound();
    throw err;
  }
}

/** Undo of an Announce, by the account that made it; false when there is no such boost. */
export async function remoteUnboost(core: Core, boostUri: string, accountId: Id): Promise<boolean> {
  const boost = await core.storage.statuses.findByUri(boostUri);
  if (boost === null || boost.reblogOfId === null || boost.accountId !== accountId) return false;
  const actor = await account(core, accountId);
  await quietly(() => unreblog(core, actor, boost.reblogOfId as Id));
  return true;
}

/** A Follow of a local account: a follow, or a request when the account is locked (recorded
 * with 'account.followed', which notifies). `followUri` is the activity's id, for the plugin's
 * own records. A 403 between accounts where one blocks the other. */
export async function remoteFollow(core: Core, followerId: Id, targetId: Id, followUri: string): Promise<'following' | 'requested'> {
  if (httpUrl(followUri) === null) throw unprocessable('Validation failed: Uri is invalid');
  const follower = await account(core, followerId);
  const target = await account(core, targetId);
  if (follower.domain === null || target.domain !== null) throw unprocessable('Validation failed: a remote account follows a local one');
  await follow(core, follower, targetId);
  return (await core.storage.relationships.getFollow(follower.id, targetId)) !== null ? 'following' : 'requested';
}

/** Undo of a Follow (of a follow or of a pending request). */
export async function remoteUnfollow(core: Core, followerId: Id, targetId: Id): Promise<void> {
  await endFollow(core, followerId, targetId);
}

/** The remote account accepted the request of a local one: the follow holds from now on
 * ('follow_request.authorized'). false when there was no pending request. */
export async function followAccepted(core: Core, localFollowerId: Id, remoteTargetId: Id): Promise<boolean> {
  const [facts] = await core.storage.relationships.relationships(localFollowerId, [remoteTargetId]);
  const request = facts?.requested ?? null;
  if (request === null) return facts?.following !== null && facts?.following !== undefined;
  await acceptRequest(core, request);
  return true;
}

/** The remote account turned down (or later withdrew its acceptance of) a local account's
 * follow: the request or the follow is gone ('follow_request.rejected'). */
export async function followRejected(core: Core, localFollowerId: Id, remoteTargetId: Id): Promise<void> {
  const dropped = await dropRequest(core, localFollowerId, remoteTargetId);
  if (dropped) return;
  await core.storage.relationships.unfollow(localFollowerId, remoteTargetId, (removed) =>
    removed ? core.record({ type: 'follow_request.rejected', accountId: localFollowerId, targetAccountId: remoteTargetId }) : [],
  );
  await removeFromListsOf(core, localFollowerId, remoteTargetId);
}

/** A Block by a remote account: as a local block (follows both ways end). */
export async function remoteBlock(core: Core, accountId: Id, targetId: Id): Promise<void> {
  if (accountId === targetId) return;
  await account(core, targetId);
  await blockAccount(core, accountId, targetId);
}

export async function remoteUnblock(core: Core, accountId: Id, targetId: Id): Promise<void> {
  await unblockAccount(core, accountId, targetId);
}
