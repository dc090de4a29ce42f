// Relationship: how the viewer and another account stand.

import type { AppCore } from '../context.ts';
import type { Id, Millis } from '../../domain/model.ts';
import { activeMute } from '../../domain/policy.ts';
import type { RelationshipFacts } from '../../domain/ports/storage.ts';
import { isoOrNull } from '../entities/time.ts';

export interface RelationshipJson {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}


/** The options of a follow, or of a pending request when there is no follow yet (as Mastodon).
 * `endorsed`: the viewer features the account on their profile (only while following it);
 * `note`: what the viewer wrote for itself about the account. */
export function renderRelationship(facts: RelationshipFacts, now: Millis, endorsed = false, note = ''): RelationshipJson {
  const options = facts.following ?? facts.requested;
  const mute = activeMute(facts.muting, now);
  return {
    id: facts.targetId,
    following: facts.following !== null,
    showing_reblogs: options?.showReblogs ?? false,
    notifying: options?.notify ?? false,
    languages: options?.languages ?? null,
    followed_by: facts.followedBy,
    blocking: facts.blocking,
    blocked_by: facts.blockedBy,
    muting: mute !== null,
    muting_notifications: mute?.notifications ?? false,
    muting_expires_at: isoOrNull(mute?.expiresAt ?? null),
    requested: facts.following === null && facts.requested !== null,
    requested_by: facts.requestedBy,
    domain_blocking: facts.domainBlocking,
    endorsed: endorsed && facts.following !== null,
    note,
  };
}

export async function presentRelationships(core: AppCore, viewerId: Id, targetIds: readonly Id[]): Promise<RelationshipJson[]> {
  if (targetIds.length === 0) return [];
  const [facts, endorsed, notes] = await Promise.all([
    core.storage.relationships.relationships(viewerId, targetIds),
    core.storage.endorsements.endorsedAmong(viewerId, targetIds),
    core.storage.accountNotes.about(viewerId, targetIds),
  ]);
  const now = core.clock.now();
  const endorsedIds = new Set(endorsed);
  return facts.map((f) => renderRelationship(f, now, endorsedIds.has(f.targetId), notes.get(f.targetId) ?? ''));
}

export async function presentRelationship(core: AppCore, viewerId: Id, targetId: Id): Promise<RelationshipJson> {
  const [json] = await presentRelationships(core, viewerId, [targetId]);
  if (json === undefined) throw new Error('relationships() must answer one row per target');
  return json;
}
