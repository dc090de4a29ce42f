// Following: follow (a request when the target is locked), unfollow, and answering requests.
// Operations are idempotent; only a new follow or a new request records 'account.followed'
// (which notifies the target), with the write itself.

import { isSuspended } from '../policy.ts';
import type { Core } from '../context.ts';
import { forbidden, notFound, unprocessable } from '../errors.ts';
import { normalizeLanguage } from '../languages.ts';
import type { Account, Follow, Id } from '../model.ts';
import { findAccount } from './find.ts';

export interface FollowOptions {
  /** undefined: keep what an existing follow has, else Mastodon's default. */
  reblogs?: boolean | undefined;
  notify?: boolean | undefined;
  languages?: string[] | null | undefined;
}

/** The languages to see from a followed account: known codes, each once (a region is dropped,
 * as for statuses); anything else is a 422, so the list stays as short as the known codes. */
function followLanguages(languages: readonly string[] | null | undefined): string[] | null | undefined {
  if (languages === undefined || languages === null) return languages;
  const codes = new Set<string>();
  for (const language of languages) {
    const code = normalizeLanguage(language);
    if (code === null) throw unprocessable('Validation failed: Languages is invalid');
    codes.add(code);
  }
  return [...codes];
}

/** Follows `targetId` (or asks to, when the target is locked or on another server: a remote
 * follow holds only once that server accepted it). Refused for oneself and between accounts
 * where one blocks the other. Returns the target. */
export async function follow(core: Core, actor: Account, targetId: string, options: FollowOptions = {}): Promise<Account> {
  const languages = followLanguages(options.languages);
  const target = await findAccount(core, targetId);
  if (target.id === actor.id) throw forbidden();
  // A suspended account cannot be followed (Mastodon: not found).
  if (isSuspended(target)) throw notFound();
  const [facts] = await core.storage.relationships.relationships(actor.id, [target.id]);
  if (facts === undefined) throw new Error('relationships() must answer one row per target');
  if (facts.blocking || facts.blockedBy) throw forbidden();
  const existing = facts.following ?? facts.requested;
  const row: Follow = {
    id: core.ids.next(),
    accountId: actor.id,
    targetAccountId: target.id,
    showReblogs: options.reblogs ?? existing?.showReblogs ?? true,
    notify: options.notify ?? existing?.notify ?? false,
    languages: languages === undefined ? (existing?.languages ?? null) : languages,
    createdAt: core.clock.now(),
  };
  if (facts.following === null && (target.locked || target.domain !== null)) {
    await core.storage.relationships.requestFollow(row, (outcome) =>
      outcome === 'created' ? core.record({ type: 'account.followed', follow: row, requested: true }) : [],
    );
    return target;
  }
  await core.storage.relationships.follow(row, (outcome) =>
    outcome === 'created' ? core.record({ type: 'account.followed', follow: row, requested: false }) : [],
  );
  return target;
}

/** Ends a follow or withdraws a pending request; the target leaves the actor's lists, whose
 * members must be followed. */
export async function unfollow(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await endFollow(core, actor.id, target.id);
  return target;
}

/** Ends the follow of `followerId` (or withdraws its request), recording 'account.unfollowed'
 * with the write when there was one, and takes the target out of the follower's lists. */
export async function endFollow(core: Core, followerId: Id, targetId: Id): Promise<void> {
  const [facts] = await core.storage.relationships.relationships(followerId, [targetId]);
  const unfollowed = (row: Follow | null) => (removed: boolean) => (removed && row !== null ? core.record({ type: 'account.unfollowed', follow: row }) : []);
  await core.storage.relationships.unfollow(followerId, targetId, unfollowed(facts?.following ?? null));
  await core.storage.relationships.cancelFollowRequest(followerId, targetId, unfollowed(facts?.requested ?? null));
  await removeFromListsOf(core, followerId, targetId);
}

/** What rests on `ownerId` following `memberId`, undone when the follow ends: `memberId`
 * leaves every list of `ownerId`, and `ownerId` no longer endorses it (as Mastodon's Follow
 * removes the AccountPin with it). */
export async function removeFromListsOf(core: Core, ownerId: Id, memberId: Id): Promise<void> {
  for (const list of await core.storage.lists.listsContaining(memberId)) {
    if (list.accountId === ownerId) await core.storage.lists.removeMembers(list.id, [memberId]);
  }
  await core.storage.endorsements.unendorse(ownerId, memberId);
}

/** Accepts the pending request of `requesterId` to follow the actor, keeping its options.
 * No notification: Mastodon tells nobody that a request was accepted. */
export async function authorizeFollowRequest(core: Core, actor: Account, requesterId: string): Promise<Account> {
  const requester = await findAccount(core, requesterId);
  const [facts] = await core.storage.relationships.relationships(requester.id, [actor.id]);
  const request = facts?.requested ?? null;
  if (request === null) throw notFound();
  await acceptRequest(core, request);
  return requester;
}

/** Turns a pending request into a follow (its options kept), recording
 * 'follow_request.authorized' with it. */
export async function acceptRequest(core: Core, request: Follow): Promise<void> {
  const row: Follow = { ...request, id: core.ids.next(), createdAt: core.clock.now() };
  await core.storage.relationships.follow(row, (outcome) => (outcome === 'created' ? core.record({ type: 'follow_request.authorized', follow: row }) : []));
}

/** Drops the request of `requesterId` to follow `targetId`; false when there was none. */
export async function dropRequest(core: Core, requesterId: Id, targetId: Id): Promise<boolean> {
  return core.storage.relationships.cancelFollowRequest(requesterId, targetId, (removed) =>
    removed ? core.record({ type: 'follow_request.rejected', accountId: requesterId, targetAccountId: targetId }) : [],
  );
}

/** Ends the follow of the actor by `followerId` (Mastodon's remove_from_followers). The
 * follower's server, when it is another, hears it as a Reject of its Follow, as for a request
 * turned down (recorded as 'follow_request.rejected'); nothing else changes, as on Mastodon. */
export async function removeFromFollowers(core: Core, actor: Account, followerId: string): Promise<Account> {
  const follower = await findAccount(core, followerId);
  await core.storage.relationships.unfollow(follower.id, actor.id, (removed) =>
    removed ? core.record({ type: 'follow_request.rejected', accountId: follower.id, targetAccountId: actor.id }) : [],
  );
  return follower;
}

export async function rejectFollowRequest(core: Core, actor: Account, requesterId: string): Promise<Account> {
  const requester = await findAccount(core, requesterId);
  if (!(await dropRequest(core, requester.id, actor.id))) throw notFound();
  return requester;
}
