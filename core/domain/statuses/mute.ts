// Operations 13 and 14: mute and unmute the conversation a status belongs to. Both
// idempotent; the status must be visible. While muted, the thread notifies the user of
// nothing (notifications.ts checks the mute).

import type { Core } from '../context.ts';
import type { Account, Status } from '../model.ts';
import { checkMute } from '../policy.ts';
import { findVisible } from '../viewer.ts';

async function visibleTarget(core: Core, actor: Account, id: string): Promise<Status> {
  const found = await findVisible(core, actor, id);
  const target = found.original ?? found.status;
  const refusal = checkMute(target, found.targetFacts);
  if (refusal) throw refusal;
  return target;
}

export async function muteConversation(core: Core, actor: Account, id: string): Promise<Status> {
  const target = await visibleTarget(core, actor, id);
  await core.storage.interactions.muteConversation(actor.id, target.conversationId);
  return target;
}

export async function unmuteConversation(core: Core, actor: Account, id: string): Promise<Status> {
  const target = await visibleTarget(core, actor, id);
  await core.storage.interactions.unmuteConversation(actor.id, target.conversationId);
  return target;
}
