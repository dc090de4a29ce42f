// Deleting an account, as Mastodon's DeleteAccountService does with a reserved username: one
// operation for every way it comes about (its owner in the web pages, an admin, the operator's
// CLI, an embedding app, or its own server's `Delete` of a remote actor).
//
// At once: the account is marked deleted in one write (from then on it is gone for everyone:
// 404 on the API, its tokens refused, no sign-in) and its profile emptied; the row stays, so
// its username is never taken again. Its tokens are revoked, its browser sessions end, and its
// e-mail address is freed.
//
// Then, in the background, a job of its own removes what it wrote and what points at it, a
// bounded batch per step and a few steps per run, queueing itself again until nothing is left:
// statuses (and boosts), favourites, bookmarks, notifications to and from it, its followers and
// follows (remote parties hear of the deletion: 'account.departed', which the federation plugin
// turns into a `Delete` of the actor to their servers, recorded before the follows that name
// them go), pending requests, lists, blocks and mutes. Every step reads what is left, so a run
// that died half way is simply run again (restart-safe).

import type { Core } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { can, roleOf } from '../moderation/roles.ts';
import { isSuspended } from '../policy.ts';
import { isId } from '../ids.ts';
import { VISIBILITIES, type Account, type AdminAction, type Id } from '../model.ts';
import type { NewJob } from '../ports/queue.ts';
import { counterEffects } from '../statuses/delete.ts';
import { removeFromListsOf } from './follow.ts';

export const PURGE_JOB = 'account-purge';
/** Rows one step reads and removes. */
export const PURGE_BATCH = 100;
/** Steps per run of the job, before it queues itself again (so that one run stays short). */
const STEPS_PER_RUN = 5;

/** Who deleted the account: its owner, an admin (recorded in the audit log), the operator
 * (CLI), the embedding app, or its own server (a remote actor's Delete). */
export type DeletedBy = { kind: 'owner' } | { kind: 'admin'; admin: Account } | { kind: 'operator' } | { kind: 'app' } | { kind: 'server' };

function purgeJob(accountId: Id): NewJob {
  return { name: PURGE_JOB, payload: { accountId }, orderingKey: `${PURGE_JOB}:${accountId}` };
}

/** Marks the account deleted and queues the removal of its data; the account as it is now.
 * An account already deleted is returned as it is (nothing happens twice). */
export async function deleteAccount(core: Core, account: Account, by: DeletedBy): Promise<Account> {
  if (account.deletedAt !== null) return account;
  const now = core.clock.now();
  const local = account.domain === null;
  const user = local ? await core.storage.accounts.getUser(account.id) : null;
  const marked = await core.storage.accounts.update(
    account.id,
    { deletedAt: now, displayName: '', note: '', fields: [], avatarUrl: null, headerUrl: null, alsoKnownAs: [], movedToAccountId: null },
    // The event carries the account as it was (plugins remove what they keep for it: files).
    { outbox: (updated) => (updated === null ? [] : [...core.record({ type: 'account.deleted', account: { ...account, deletedAt: now } }), purgeJob(account.id)]) },
  );
  if (marked === null) throw notFound();
  if (user !== null) {
    // Nobody signs in as it again, whatever password they know; its address is free for a new
    // sign-up (Mastodon destroys the user), its username is not.
    await core.storage.accounts.updateUser(account.id, { passwordHash: await core.secrets.hashPassword(core.secrets.randomToken(32)) });
    await core.storage.accounts.changeEmail(account.id, `${account.id}@deleted.invalid`);
    const revoked = await core.storage.oauth.revokeTokensOfAccount(account.id, now);
    // Its live streams close as a revoked token's do.
    await core.enqueue(revoked.flatMap((tokenId) => core.record({ type: 'token.revoked', tokenId, accountId: account.id })));
    await core.storage.oauth.deleteSessionsOf(account.id);
  }
  if (by.kind === 'admin') {
    const action: AdminAction = { id: core.ids.next(), accountId: by.admin.id, action: 'destroy', targetType: 'Account', targetId: account.id, createdAt: now };
    await core.storage.serverBlocks.record(action);
  }
  return marked;
}

/** The account `id` names, live or not; 404 when there is none. */
export async function accountById(core: Core, id: string): Promise<Account> {
  const account = isId(id) ? await core.storage.accounts.get(id) : null;
  if (account === null) throw notFound();
  return account;
}

/** The job that removes a deleted account's data, step after step. */
export function registerPurgeJob(core: Core): void {
  core.jobs.register(PURGE_JOB, async (payload) => {
    const accountId = (payload as { accountId?: unknown } | null)?.accountId;
    if (typeof accountId !== 'string') throw new Error('malformed account-purge job');
    const account = await core.storage.accounts.get(accountId);
    if (account === null || account.deletedAt === null) return;
    for (let step = 0; step < STEPS_PER_RUN; step += 1) {
      if (!(await purgeStep(core, account))) return;
    }
    await core.enqueue([purgeJob(account.id)]);
  });
}

/** Tells the federation which remote accounts knew the deleted one (a page of them). */
async function tellRemote(core: Core, account: Account, ids: readonly Id[]): Promise<void> {
  if (account.domain !== null || ids.length === 0) return;
  const remote = (await core.storage.accounts.getMany(ids)).filter((other) => other.domain !== null).map((other) => other.id);
  if (remote.length > 0) await core.enqueue(core.record({ type: 'account.departed', account, audience: remote }));
}

/** One batch of the removal; false when nothing was left. */
export async function purgeStep(core: Core, account: Account): Promise<boolean> {
  const { statuses, interactions, relationships, notifications, lists } = core.storage;
  const page = { limit: PURGE_BATCH };
  // Statuses and boosts, as if it deleted them ('status.deleted': streams, feeds and
  // conversations drop them). Deleting shifts pages: the newest page is read again each time.
  const written = await statuses.query({ visibilities: VISIBILITIES, authorId: account.id }, page);
  if (written.length > 0) {
    for (const status of written) {
      await statuses.delete(status.id, core.clock.now(), counterEffects(status), (gone) =>
        gone === null ? [] : core.record({ type: 'status.deleted', status: gone.status, boosts: gone.boosts }),
      );
    }
    return true;
  }
  // Its favourites are withdrawn (the counts drop, as on Mastodon).
  const favourites = await interactions.favouritesBy(account.id, page);
  if (favourites.length > 0) {
    const favourited = new Map((await statuses.getMany(favourites.map((mark) => mark.statusId))).map((status) => [status.id, status]));
    for (const mark of favourites) {
      const status = favourited.get(mark.statusId);
      await interactions.unfavourite(account.id, mark.statusId, (done) => (done && status !== undefined ? core.record({ type: 'status.unfavourited', status, by: account }) : []));
    }
    return true;
  }
  const bookmarks = await interactions.bookmarksBy(account.id, page);
  if (bookmarks.length > 0) {
    for (const mark of bookmarks) await interactions.unbookmark(account.id, mark.statusId);
    return true;
  }
  await notifications.clear(account.id);
  if ((await notifications.deleteFrom(account.id, PURGE_BATCH * 10)) > 0) return true;
  // Followers: the remote ones' servers are told first (a retried step tells them again,
  // which a Delete allows), then the follows go.
  const followers = await relationships.followersOf(account.id, page);
  if (followers.length > 0) {
    await tellRemote(core, account, followers.map((follow) => follow.accountId));
    for (const follow of followers) {
      await relationships.unfollow(follow.accountId, account.id);
      await removeFromListsOf(core, follow.accountId, account.id);
    }
    return true;
  }
  const requests = await relationships.followRequestsTo(account.id, page);
  if (requests.length > 0) {
    for (const request of requests) await relationships.cancelFollowRequest(request.accountId, account.id);
    return true;
  }
  const asked = await relationships.followRequestsBy(account.id, page);
  if (asked.length > 0) {
    await tellRemote(core, account, asked.map((request) => request.targetAccountId));
    for (const request of asked) await relationships.cancelFollowRequest(account.id, request.targetAccountId);
    return true;
  }
  const following = await relationships.followingOf(account.id, page);
  if (following.length > 0) {
    await tellRemote(core, account, following.map((follow) => follow.targetAccountId));
    for (const follow of following) {
      await relationships.unfollow(account.id, follow.targetAccountId);
      await relationships.cancelFollowRequest(account.id, follow.targetAccountId);
    }
    return true;
  }
  const owned = await lists.listBy(account.id);
  if (owned.length > 0) {
    for (const list of owned.slice(0, PURGE_BATCH)) await lists.delete(list.id);
    return true;
  }
  const blocks = await relationships.blocksBy(account.id, page);
  const mutes = await relationships.mutesBy(account.id, page);
  if (blocks.length > 0 || mutes.length > 0) {
    for (const block of blocks) await relationships.unblock(account.id, block.targetAccountId);
    for (const mute of mutes) await relationships.unmute(account.id, mute.targetAccountId);
    return true;
  }
  return false;
}

/** The account an admin may delete (DELETE /api/v1/admin/accounts/:id): the caller needs the
 * delete_user_data permission (else Mastodon's 403), the account must exist and not be
 * deleted already (404), be suspended first (403, as Mastodon's account policy asks), and a
 * staff account is deleted only by a higher role (403, as Mastodon's role overrides). */
export async function accountAnAdminMayDelete(core: Core, by: Account | null, id: string): Promise<{ admin: Account; account: Account }> {
  if (by === null || !can(by.role, 'delete_user_data')) throw forbidden();
  const account = await accountById(core, id);
  if (account.deletedAt !== null) throw notFound();
  if (!isSuspended(account)) throw forbidden();
  if (account.domain === null && account.role !== null && roleOf(account.role).position >= roleOf(by.role).position) throw forbidden();
  return { admin: by, account };
}
