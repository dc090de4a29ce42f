// Bookmark and undo bookmark (docs/behaviour.md, "Statuses and their transitions"). Bookmarking is
// idempotent; undoing one that does not exist is 404. Undoing an existing one takes the caller's mark back
// whatever the status has become, but a status the caller cannot see is never rendered to them:
// then the answer is 404 as well (docs/behaviour.md, "Visibility on every read").

import type { Core } from '../context.ts';
import { notFound } from '../errors.ts';
import type { Account, Status } from '../model.ts';
import { checkBookmark } from '../policy.ts';
import { filterVisible, findLive, findVisible } from '../viewer.ts';

export async function bookmark(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findVisible(core, actor, id);
  const target = found.original ?? found.status;
  const refusal = checkBookmark(target, found.targetFacts);
  if (refusal) throw refusal;
  await core.storage.interactions.bookmark({ id: core.ids.next(), accountId: actor.id, statusId: target.id, createdAt: core.clock.now() });
  return target;
}

export async function unbookmark(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findLive(core, id);
  const target = found.reblogOfId === null ? found : await findLive(core, found.reblogOfId);
  if (!(await core.storage.interactions.unbookmark(actor.id, target.id))) throw notFound();
  if ((await filterVisible(core, actor, [found])).length === 0) throw notFound();
  return target;
}
