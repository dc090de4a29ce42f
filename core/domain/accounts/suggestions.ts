// Follow suggestions (GET /api/v1|v2/suggestions): accounts followed by those the viewer
// follows, then the instance's most followed local accounts (storage ranks them), without what
// the viewer must not see (blocked, muted, blocking it, of a blocked domain, not yet confirmed)
// and without what it dismissed (DELETE /api/v1/suggestions/:id, kept for good, as Mastodon's
// follow recommendation mutes).

import type { Core } from '../context.ts';
import { isId } from '../ids.ts';
import type { Account } from '../model.ts';
import type { Suggestion } from '../ports/storage.ts';
import { findAccountOrNull } from './find.ts';

/** Mastodon's default and largest `limit`; `offset` (v2) stops here. */
export const SUGGESTION_LIMITS = { limit: 40, maxLimit: 80, maxOffset: 120 } as const;

/** A few more than asked are ranked, since some are then left out here. */
const SLACK = 20;

export async function suggestionsFor(core: Core, viewer: Account, limit: number, offset = 0): Promise<Suggestion[]> {
  const skip = Math.min(Math.max(0, Math.trunc(offset)), SUGGESTION_LIMITS.maxOffset);
  const ranked = await core.storage.relationships.suggestions(viewer.id, skip + limit + SLACK);
  const ids = ranked.map((s) => s.accountId);
  const [hidden, facts, accounts] = await Promise.all([
    core.storage.relationships.hiddenFrom(viewer.id, ids, core.clock.now()),
    core.storage.relationships.relationships(viewer.id, ids),
    Promise.all(ids.map((id) => findAccountOrNull(core, id))),
  ]);
  const domainBlocked = new Set(facts.filter((f) => f.domainBlocking).map((f) => f.targetId));
  const usable = new Set(accounts.flatMap((a) => (a === null ? [] : [a.id])));
  return ranked.filter((s) => usable.has(s.accountId) && !hidden.has(s.accountId) && !domainBlocked.has(s.accountId)).slice(skip, skip + limit);
}

/** Never suggests the account again. An id that names no account changes nothing (Mastodon
 * answers the same empty object). */
export async function dismissSuggestion(core: Core, viewer: Account, id: string): Promise<void> {
  if (!isId(id) || id === viewer.id || (await core.storage.accounts.get(id)) === null) return;
  await core.storage.relationships.dismissSuggestion(viewer.id, id, core.clock.now());
}
