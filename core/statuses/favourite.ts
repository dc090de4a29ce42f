// Operations 7 and 8: favourite and undo favourite (spec part 3). Both idempotent. A boost
// stands for its original. Undo works on a favourited status even if it is no longer
// visible; otherwise visibility decides (404).

import type { Core } from '../core.ts';
import type { Account, Status } from '../model.ts';
import { canView } from '../policy.ts';
import { viewerFacts, factsOf, findLive, findVisible } from '../viewer.ts';
import { notFound } from '../errors.ts';
import { checkFavourite } from '../policy.ts';

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
  const removed = await core.storage.interactions.unfavourite(actor.id, target.id);
  if (!removed) {
    const facts = await viewerFacts(core, actor, [found.accountId, target.accountId]);
    if (!canView(found, factsOf(facts, actor, found.accountId)) || !canView(target, factsOf(facts, actor, target.accountId))) throw notFound();
  }
  return (await core.storage.statuses.get(target.id)) ?? target;
}
