// Operations 15 and 16: pin to and unpin from the profile. Only the user's own public
// statuses that are not boosts (docs/behaviour.md, "Statuses and their transitions"); pinning a pinned status is 200 and keeps
// it pinned; at most limits.maxPinnedStatuses pins.

import type { Core } from '../context.ts';
import { texts, unprocessable } from '../errors.ts';
import type { Account, Status } from '../model.ts';
import { checkPin } from '../policy.ts';
import { findVisible } from '../viewer.ts';

export async function pin(core: Core, actor: Account, id: string): Promise<Status> {
  const { status, facts } = await findVisible(core, actor, id);
  const refusal = checkPin(status, facts);
  if (refusal) throw refusal;
  const mark = { id: core.ids.next(), accountId: actor.id, statusId: status.id, createdAt: core.clock.now() };
  const outcome = await core.storage.interactions.pin(mark, core.config.limits.maxPinnedStatuses);
  if (outcome === 'limit') throw unprocessable(texts.pinLimit);
  return status;
}

export async function unpin(core: Core, actor: Account, id: string): Promise<Status> {
  const { status } = await findVisible(core, actor, id);
  await core.storage.interactions.unpin(actor.id, status.id);
  return status;
}
