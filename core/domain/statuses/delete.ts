// Operation 3: delete. Own statuses only (anything else is 404, as is a second delete); the
// response is the status as it was, with its source text for redrafting; its boosts go with
// it, and a `delete` event reaches every stream that could show it.

import type { Core } from '../context.ts';
import { notFound } from '../errors.ts';
import type { Account, Status } from '../model.ts';
import { countsAsReply, countsForAuthor } from '../policy.ts';
import { findLive } from '../viewer.ts';

/** What creating the status counted, so that deleting it can take it back. A boost always
 * counted for its author (StatusRepository.reblog). */
export function counterEffects(status: Status) {
  if (status.reblogOfId !== null) return { countForAuthor: true, countReplyOf: null };
  return { countForAuthor: countsForAuthor(status), countReplyOf: countsAsReply(status) ? status.inReplyToId : null };
}

export async function deleteStatus(core: Core, actor: Account, id: string): Promise<Status> {
  const status = await findLive(core, id);
  if (status.accountId !== actor.id) throw notFound();
  const removed = await core.storage.statuses.delete(status.id, core.clock.now(), counterEffects(status), (deleted) =>
    deleted === null ? [] : core.record({ type: 'status.deleted', status: deleted.status, boosts: deleted.boosts }),
  );
  if (removed === null) throw notFound();
  return removed.status;
}
