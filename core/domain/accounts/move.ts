// Moving an account, as Mastodon does. An account names the accounts it also is (aliases:
// `alsoKnownAs`); another account may then move to it: the old account shows `moved` (the new
// one) and its followers are moved, each local follower following the new account and leaving
// the old one, in bounded, restart-safe job steps. A local account moves by its owner's choice
// (the federation plugin sends the `Move` to its remote followers' servers, which move them); a
// remote one moves when its server sends the `Move`, checked against the new account's aliases.

import type { Core } from '../context.ts';
import { notFound, RookeryError, unprocessable } from '../errors.ts';
import type { Account, Id } from '../model.ts';
import type { NewJob } from '../ports/queue.ts';
import { resolveAccount } from '../remote/resolve.ts';
import { accountUri } from '../urls.ts';
import { blockAccount } from './block.ts';
import { endFollow, follow } from './follow.ts';

/** Aliases an account may name (Mastodon names no limit; every input here is bounded). */
export const MAX_ALIASES = 20;
export const MOVE_FOLLOWERS_JOB = 'account-move-followers';
const FOLLOWERS_PER_RUN = 100;
const MAX_CARRIED_BLOCKS = 1000;

export const moveTexts = {
  notFound: 'could not be found',
  self: 'cannot be current account',
  notAlias: 'is not an alias of this account',
  alreadyMoved: 'is the same account you have already moved to',
  tooMany: `is one alias too many (at most ${MAX_ALIASES})`,
  already: 'has already been taken',
} as const;

/** A handle (`user`, `@user@domain`, `user@domain`) as an account: a local one, or a remote one
 * fetched (or refreshed) from its server. null when there is none. */
export async function accountOfHandle(core: Core, handle: string): Promise<Account | null> {
  const trimmed = handle.trim().replace(/^@/, '');
  if (trimmed === '' || trimmed.length > 512) return null;
  const [username = '', domain] = trimmed.split('@');
  const local = domain === undefined || domain.toLowerCase() === core.config.domain.toLowerCase();
  // A remote one is asked of its server first (its aliases as they are now), else taken as
  // stored.
  const account = local ? await core.storage.accounts.findByUsername(username, null) : ((await resolveAccount(core, trimmed)) ?? (await core.storage.accounts.findByUsername(username, domain)));
  return account === null || account.deletedAt !== null ? null : account;
}

/** Adds the account a handle names to `account`'s aliases (its ActivityPub id). 422 with
 * Mastodon's texts when it cannot be one; the account as it is now. */
export async function addAlias(core: Core, account: Account, handle: string): Promise<Account> {
  const alias = await accountOfHandle(core, handle);
  if (alias === null) throw unprocessable(`Validation failed: Handle of the old account ${moveTexts.notFound}`);
  if (alias.id === account.id) throw unprocessable(`Validation failed: Handle of the old account ${moveTexts.self}`);
  const uri = accountUri(core.config, alias);
  if (account.alsoKnownAs.includes(uri)) throw unprocessable(`Validation failed: Handle of the old account ${moveTexts.already}`);
  if (account.alsoKnownAs.length >= MAX_ALIASES) throw unprocessable(`Validation failed: Handle of the old account ${moveTexts.tooMany}`);
  return setAliases(core, account, [...account.alsoKnownAs, uri]);
}

/** Takes one alias (an ActivityPub id) away; 404 when it is none of the account's. */
export async function removeAlias(core: Core, account: Account, uri: string): Promise<Account> {
  if (!account.alsoKnownAs.includes(uri)) throw notFound();
  return setAliases(core, account, account.alsoKnownAs.filter((alias) => alias !== uri));
}

async function setAliases(core: Core, account: Account, alsoKnownAs: string[]): Promise<Account> {
  // Other servers read the aliases in the actor: 'account.updated' sends it to them.
  const updated = await core.storage.accounts.update(account.id, { alsoKnownAs }, { outbox: (a) => (a === null ? [] : core.record({ type: 'account.updated', account: a })) });
  if (updated === null) throw notFound();
  return updated;
}

function moveFollowersJob(originId: Id, targetId: Id, maxId: Id | null): NewJob {
  return { name: MOVE_FOLLOWERS_JOB, payload: { originId, targetId, maxId }, orderingKey: `${MOVE_FOLLOWERS_JOB}:${originId}` };
}

/** Marks `origin` moved to `target` and queues the move of its local followers; records
 * 'account.moved' (federation tells a local origin's remote followers). */
async function markMoved(core: Core, origin: Account, target: Account): Promise<Account> {
  const updated = await core.storage.accounts.update(
    origin.id,
    { movedToAccountId: target.id },
    { outbox: (a) => (a === null ? [] : [...core.record({ type: 'account.moved', account: a, target }), moveFollowersJob(origin.id, target.id, null)]) },
  );
  if (updated === null) throw notFound();
  return updated;
}

/** A local account moves to the account a handle names, which must list it among its aliases
 * (Mastodon's AccountMigration). 422 with the reason otherwise. */
export async function moveAccount(core: Core, account: Account, handle: string): Promise<Account> {
  const target = await accountOfHandle(core, handle);
  if (target === null) throw unprocessable(`Validation failed: Handle of the new account ${moveTexts.notFound}`);
  if (target.id === account.id) throw unprocessable(`Validation failed: Handle of the new account ${moveTexts.self}`);
  if (account.movedToAccountId === target.id) throw unprocessable(`Validation failed: Handle of the new account ${moveTexts.alreadyMoved}`);
  if (!target.alsoKnownAs.includes(accountUri(core.config, account))) throw unprocessable(`Validation failed: Handle of the new account ${moveTexts.notAlias}`);
  return markMoved(core, account, target);
}

/** A remote account's server says it moved to `targetId` (its Move, from the origin itself):
 * taken when the target (as its own server states it, refreshed just before) lists the origin
 * among its aliases. false when it is not taken. */
export async function remoteMove(core: Core, originId: Id, targetId: Id): Promise<boolean> {
  const [origin, target] = await Promise.all([core.storage.accounts.get(originId), core.storage.accounts.get(targetId)]);
  if (origin === null || origin.domain === null || origin.uri === null || origin.deletedAt !== null) return false;
  if (target === null || target.id === origin.id || target.deletedAt !== null) return false;
  if (!target.alsoKnownAs.includes(origin.uri)) return false;
  if (origin.movedToAccountId === target.id) return true;
  await markMoved(core, origin, target);
  return true;
}

/** The job that moves an account's local followers, a page at a time: each follows the new
 * account (a request where it must be asked, as a follow does) and leaves the old one; local
 * accounts that blocked the old one block the new one. A step run again finds the ones it
 * moved no longer there (and a block made again is no new block). */
export function registerMoveJob(core: Core): void {
  core.jobs.register(MOVE_FOLLOWERS_JOB, async (payload) => {
    const p = (payload ?? {}) as { originId?: unknown; targetId?: unknown; maxId?: unknown };
    if (typeof p.originId !== 'string' || typeof p.targetId !== 'string') throw new Error('malformed account-move-followers job');
    const origin = await core.storage.accounts.get(p.originId);
    if (origin === null || origin.movedToAccountId !== p.targetId) return;
    const maxId = typeof p.maxId === 'string' ? p.maxId : undefined;
    // First run: who blocked the old account blocks the new one too (Mastodon's MoveWorker
    // carries blocks over), at most MAX_CARRIED_BLOCKS of them.
    if (maxId === undefined) {
      const blockers = await core.storage.accounts.getMany((await core.storage.relationships.hiddenState(origin.id, core.clock.now())).blockedBy.slice(0, MAX_CARRIED_BLOCKS));
      for (const blocker of blockers) {
        if (blocker.domain === null && blocker.deletedAt === null && blocker.id !== p.targetId) await blockAccount(core, blocker.id, p.targetId);
      }
    }
    const page = await core.storage.relationships.followersOf(origin.id, { limit: FOLLOWERS_PER_RUN, ...(maxId === undefined ? {} : { maxId }) });
    const followers = new Map((await core.storage.accounts.getMany(page.map((f) => f.accountId))).map((a) => [a.id, a]));
    for (const row of page) {
      const follower = followers.get(row.accountId);
      // Remote followers are moved by their own servers (the Move).
      if (follower === undefined || follower.domain !== null || follower.deletedAt !== null || follower.id === p.targetId) continue;
      try {
        await follow(core, follower, p.targetId, { reblogs: row.showReblogs, notify: row.notify, languages: row.languages });
      } catch (err) {
        // A block between them, or the target gone: this follower is not moved.
        if (!(err instanceof RookeryError)) throw err;
        continue;
      }
      await endFollow(core, follower.id, origin.id);
    }
    const last = page.at(-1);
    if (page.length === FOLLOWERS_PER_RUN && last !== undefined) await core.enqueue([moveFollowersJob(origin.id, p.targetId, last.id)]);
  });
}
