// Endorsements (Mastodon's AccountPin, "featured profiles" in 4.4): an account recommends
// accounts it follows on its profile. Ending the follow ends the endorsement (follow.ts).

import type { Core } from '../context.ts';
import { unprocessable } from '../errors.ts';
import type { Account, Endorsement, Id } from '../model.ts';
import type { Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { findAccount } from './find.ts';

export const endorseTexts = {
  notFollowing: 'Validation failed: You must be already following the person you want to endorse',
} as const;

/** Endorses `targetId`, which the actor must follow; idempotent. Returns the target. */
export async function endorse(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  const follow = target.id === actor.id ? null : await core.storage.relationships.getFollow(actor.id, target.id);
  if (follow === null) throw unprocessable(endorseTexts.notFollowing);
  await core.storage.endorsements.endorse({ id: core.ids.next(), accountId: actor.id, targetId: target.id, createdAt: core.clock.now() });
  return target;
}

export async function unendorse(core: Core, actor: Account, targetId: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  await core.storage.endorsements.unendorse(actor.id, target.id);
  return target;
}

/** An account's endorsements, newest first. */
export async function endorsementsOf(core: Core, accountId: Id, page: Page): Promise<Slice<Endorsement>> {
  const items = await core.storage.endorsements.endorsedBy(accountId, page);
  const first = items[0];
  const last = items[items.length - 1];
  return { items, next: last !== undefined && items.length >= page.limit ? last.id : null, prev: first?.id ?? null };
}
