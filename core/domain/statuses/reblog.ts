// Operations 9 and 10: boost and undo boost. A boost of a boost boosts the original; an
// existing boost is returned rather than duplicated; undoing a boost that does not exist is
// 404 (docs/behaviour.md, "Statuses and their transitions").

import type { Core } from '../context.ts';
import { notFound } from '../errors.ts';
import type { Account, Millis, Status, User } from '../model.ts';
import { str, type Params } from '../params.ts';
import { boostVisibility, checkBoost } from '../policy.ts';
import { filterVisible, findLive, findVisible } from '../viewer.ts';
import { counterEffects } from './delete.ts';
import { newStatus } from './new-status.ts';

/** `origin`: a boost made on another server, with its ActivityPub id and its time. */
export async function reblog(
  core: Core,
  actor: Account,
  user: User | null,
  id: string,
  params: Params,
  applicationId: string | null,
  origin?: { uri: string; createdAt: Millis },
): Promise<Status> {
  const found = await findVisible(core, actor, id);
  const original = found.original ?? found.status;
  const refusal = checkBoost(original, found.targetFacts);
  if (refusal) throw refusal;
  const existing = await core.storage.statuses.findReblog(actor.id, original.id);
  if (existing) return existing;
  const visibility = boostVisibility(original, str(params, 'visibility'), user?.settings.defaultVisibility ?? 'public');
  if (typeof visibility !== 'string') throw visibility;
  const boost = newStatus(core, actor, {
    id: core.ids.next(),
    visibility,
    reblogOfId: original.id,
    conversationId: original.conversationId,
    applicationId,
    ...(origin === undefined ? {} : { uri: origin.uri, createdAt: origin.createdAt }),
  });
  const result = await core.storage.statuses.reblog(boost, (outcome) =>
    outcome.created ? core.record({ type: 'status.reblogged', boost: outcome.status, original }) : [],
  );
  return result.status;
}

/** Returns the original, no longer boosted by the actor. The boost is the actor's own to undo
 * whatever the original has become; but an original the actor can no longer see is never
 * rendered to them, so then the answer is 404 (docs/behaviour.md, "Visibility on every read"). */
export async function unreblog(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findLive(core, id);
  const original = found.reblogOfId === null ? found : await findLive(core, found.reblogOfId);
  const boost = await core.storage.statuses.findReblog(actor.id, original.id);
  if (boost === null) throw notFound();
  await core.storage.statuses.delete(boost.id, core.clock.now(), counterEffects(boost), (removed) =>
    removed === null ? [] : core.record({ type: 'status.unreblogged', boost: removed.status, original }),
  );
  const now = (await core.storage.statuses.get(original.id)) ?? original;
  if ((await filterVisible(core, actor, [now])).length === 0) throw notFound();
  return now;
}
