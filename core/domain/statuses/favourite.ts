// Favourite and undo favourite (docs/behaviour.md, "Statuses and their transitions"). Both idempotent. A boost
// stands for its original. Undoing takes the caller's own mark back whatever the status has
// become, but a status the caller cannot see is never rendered to them: then the answer is
// the same 404 as for any status they cannot see (docs/behaviour.md, "Visibility on every read").

import type { Core } from '../context.ts';
import { notFound } from '../errors.ts';
import type { Account, Status } from '../model.ts';
import { checkFavourite } from '../policy.ts';
import { filterVisible, findLive, findVisible } from '../viewer.ts';

export async function favourite(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findVisible(core, actor, id);
  const target = found.original ?? found.status;
  const refusal = checkFavourite(target, found.targetFacts);
  if (refusal) throw refusal;
  const mark = { id: core.ids.next(), accountId: actor.id, statusId: target.id, createdAt: core.clock.now() };
  await core.storage.interactions.favourite(mark, (added) => (added ? core.record({ type: 'status.favourited', status: target, by: actor }) : []));
  return (await core.storage.statuses.get(target.id)) ?? target;
}

export async function unfavourite(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findLive(core, id);
  const target = found.reblogOfId === null ? found : await findLive(core, found.reblogOfId);
  await core.storage.interactions.unfavourite(actor.id, target.id, (removed) => (removed ? core.record({ type: 'status.unfavourited', status: target, by: actor }) : []));
  if ((await filterVisible(core, actor, [found])).length === 0) throw notFound();
  return (await core.storage.statuses.get(target.id)) ?? target;
}
