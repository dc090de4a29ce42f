// Operations 2 and 17: view a status, and its preview card. Whether anonymous callers may view
// at all (limited-federation mode) is the endpoint's auth rule, not this function's.

import type { Core } from '../core.ts';
import type { Account, PreviewCard, Status } from '../model.ts';
import { findVisible } from '../viewer.ts';

export async function viewStatus(core: Core, viewer: Account | null, id: string): Promise<Status> {
  return (await findVisible(core, viewer, id)).status;
}

/** The card of a visible status, or null when it has none. */
export async function statusCard(core: Core, viewer: Account | null, id: string): Promise<PreviewCard | null> {
  const found = await findVisible(core, viewer, id);
  const target = found.original ?? found.status;
  return (await core.storage.cards.forStatuses([target.id])).get(target.id) ?? null;
}
