// Blocking and muting accounts. A block also ends the follows and requests both ways (the
// store does that) and so the list memberships that rested on them.

import type { Core } from '../core.ts';
import { forbidden } from '../errors.ts';
import type { Account } from '../model.ts';
import { findAccount } from './find.ts';
import { removeFromListsOf } from './follow.ts';

async function otherAccount(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  if (target.id === actor.id) throw forbidden();
  return target;
}

export async function block(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await otherAccount(core, actor, targetId);
  await core.storage.relationships.block({ id: core.ids.next(), accountId: actor.id, targetAccountId: target.id, createdAt: core.clock.now() });
  await removeFromListsOf(core, actor.id, target.id);
  await removeFromListsOf(core, target.id, actor.id);
  return target;
}

export async function unblock(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await core.storage.relationships.unblock(actor.id, target.id);
  return target;
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
  });
  return target;
}

export async function unmute(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await core.storage.relationships.unmute(actor.id, target.id);
  return target;
}
