// Blocking and muting accounts. A block also ends the follows and requests both ways (the
// store does that) and so the list memberships that rested on them. Every change records
// 'relationship.changed', so that live streams stop (or start) showing what it concerns.

import type { Core } from '../context.ts';
import { forbidden } from '../errors.ts';
import type { Account, Id } from '../model.ts';
import { findAccount } from './find.ts';
import { removeFromListsOf } from './follow.ts';

/** The outbox of a block or mute change: recorded only when something changed. */
function changed(core: Core, accountId: Id, targetAccountId: Id) {
  return (didChange: boolean) => (didChange ? core.record({ type: 'relationship.changed', accountId, targetAccountId }) : []);
}

async function otherAccount(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  if (target.id === actor.id) throw forbidden();
  return target;
}

export async function block(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await otherAccount(core, actor, targetId);
  await blockAccount(core, actor.id, target.id);
  return target;
}

/** The block itself, whoever makes it: 'relationship.changed' and 'account.blocked' are
 * recorded with it when it is new; lists resting on the follows it ended lose their members. */
export async function blockAccount(core: Core, accountId: Id, targetAccountId: Id): Promise<void> {
  await core.storage.relationships.block({ id: core.ids.next(), accountId, targetAccountId, createdAt: core.clock.now() }, (added) =>
    added ? [...core.record({ type: 'relationship.changed', accountId, targetAccountId }), ...core.record({ type: 'account.blocked', accountId, targetAccountId })] : [],
  );
  await removeFromListsOf(core, accountId, targetAccountId);
  await removeFromListsOf(core, targetAccountId, accountId);
}

export async function unblock(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await unblockAccount(core, actor.id, target.id);
  return target;
}

export async function unblockAccount(core: Core, accountId: Id, targetAccountId: Id): Promise<void> {
  await core.storage.relationships.unblock(accountId, targetAccountId, (removed) =>
    removed ? [...core.record({ type: 'relationship.changed', accountId, targetAccountId }), ...core.record({ type: 'account.unblocked', accountId, targetAccountId })] : [],
  );
}

export interface MuteOptions {
  /** Also hide notifications from the account (Mastodon's default: true). */
  notifications: boolean;
  /** Seconds until the mute ends; 0 = forever. */
  durationSeconds: number;
}

/** Mutes, or updates the options of an existing mute. */
export async function mute(core: Core, actor: Account, targetId: string, options: MuteOptions): Promise<Account> {
  const target = await otherAccount(core, actor, targetId);
  const now = core.clock.now();
  await core.storage.relationships.mute({
    id: core.ids.next(),
    accountId: actor.id,
    targetAccountId: target.id,
    notifications: options.notifications,
    expiresAt: options.durationSeconds > 0 ? now + options.durationSeconds * 1000 : null,
    createdAt: now,
  }, () => core.record({ type: 'relationship.changed', accountId: actor.id, targetAccountId: target.id }));
  return target;
}

export async function unmute(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await core.storage.relationships.unmute(actor.id, target.id, changed(core, actor.id, target.id));
  return target;
}
