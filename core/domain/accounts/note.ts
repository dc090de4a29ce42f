// A private note about another account (Mastodon's account notes): only its writer sees it,
// in the Relationship's `note`.

import type { Core } from '../context.ts';
import { unprocessable } from '../errors.ts';
import type { Account } from '../model.ts';
import { findAccount } from './find.ts';

/** Mastodon's limit, in characters. */
export const NOTE_LIMIT = 2000;

/** Sets the actor's note about `targetId`; an empty comment removes it. */
export async function setAccountNote(core: Core, actor: Account, targetId: string, comment: string): Promise<Account> {
  const target = await findAccount(core, targetId);
  if ([...comment].length > NOTE_LIMIT) throw unprocessable(`Validation failed: Comment is too long (maximum is ${NOTE_LIMIT} characters)`);
  await core.storage.accountNotes.set(actor.id, target.id, comment, core.clock.now());
  return target;
}
