// Gathers the facts the policy needs about a viewer and the authors of some statuses, in one
// read, and applies the policy to statuses: the bridge between storage and policy.ts.

import type { Core } from './context.ts';
import { notFound } from './errors.ts';
import { isId } from './ids.ts';
import type { Account, Id, Status } from './model.ts';
import { activeMute, anonymousFacts, canView, type ViewerFacts } from './policy.ts';

export async function viewerFacts(core: Core, viewer: Account | null, authorIds: readonly Id[]): Promise<Map<Id, ViewerFacts>> {
  const facts = new Map<Id, ViewerFacts>();
  if (viewer === null) {
    for (const id of authorIds) facts.set(id, anonymousFacts);
    return facts;
  }
  const others = [...new Set(authorIds)].filter((id) => id !== viewer.id);
  facts.set(viewer.id, { viewerId: viewer.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false });
  if (others.length === 0) return facts;
  for (const rel of await core.storage.relationships.relationships(viewer.id, others)) {
    facts.set(rel.targetId, {
      viewerId: viewer.id,
      followsAuthor: rel.following !== null,
      blockedByAuthor: rel.blockedBy,
      blocksAuthor: rel.blocking,
      mutesAuthor: activeMute(rel.muting, core.clock.now()) !== null,
      blocksDomain: rel.domainBlocking,
    });
  }
  return facts;
}

export function factsOf(facts: Map<Id, ViewerFacts>, viewer: Account | null, authorId: Id): ViewerFacts {
  return facts.get(authorId) ?? (viewer === null ? anonymousFacts : { viewerId: viewer.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false });
}

export interface VisibleStatus {
  status: Status;
  /** The boosted status when `status` is a boost. */
  original: Status | null;
  /** Facts about the author of `status`. */
  facts: ViewerFacts;
  /** Facts about the author of the status that operations act on (the original of a boost). */
  targetFacts: ViewerFacts;
}

/** Loads a live status the viewer may see (a boost only when its original is visible too);
 * anything else, including a malformed id, is the same 404. */
export async function findVisible(core: Core, viewer: Account | null, id: string): Promise<VisibleStatus> {
  const found = await findLive(core, id);
  const original = found.reblogOfId === null ? null : await core.storage.statuses.get(found.reblogOfId);
  if (found.reblogOfId !== null && original === null) throw notFound();
  const facts = await viewerFacts(core, viewer, original ? [found.accountId, original.accountId] : [found.accountId]);
  const statusFacts = factsOf(facts, viewer, found.accountId);
  const targetFacts = original ? factsOf(facts, viewer, original.accountId) : statusFacts;
  if (!canView(found, statusFacts) || (original !== null && !canView(original, targetFacts))) throw notFound();
  return { status: found, original, facts: statusFacts, targetFacts };
}

/** A live status, visible or not; 404 otherwise. */
export async function findLive(core: Core, id: string): Promise<Status> {
  if (!isId(id)) throw notFound();
  const status = await core.storage.statuses.get(id);
  if (status === null) throw notFound();
  return status;
}

/** Keeps the statuses the viewer may see, in order; boosts need their original visible too. */
export async function filterVisible(core: Core, viewer: Account | null, statuses: readonly Status[]): Promise<Status[]> {
  const originalIds = statuses.flatMap((s) => (s.reblogOfId === null ? [] : [s.reblogOfId]));
  const originals = new Map((await core.storage.statuses.getMany(originalIds)).map((s) => [s.id, s]));
  const authors = [...statuses.map((s) => s.accountId), ...[...originals.values()].map((s) => s.accountId)];
  const facts = await viewerFacts(core, viewer, authors);
  return statuses.filter((status) => {
    if (!canView(status, factsOf(facts, viewer, status.accountId))) return false;
    if (status.reblogOfId === null) return true;
    const original = originals.get(status.reblogOfId);
    return original !== undefined && canView(original, factsOf(facts, viewer, original.accountId));
  });
}

/** Drops statuses by (or boosting, or boosted from) accounts the viewer blocks or mutes or is
 * blocked by: what timelines and thread views hide beyond visibility. */
export async function withoutHiddenAccounts(core: Core, viewer: Account | null, statuses: readonly Status[]): Promise<Status[]> {
  if (viewer === null || statuses.length === 0) return [...statuses];
  const originalIds = statuses.flatMap((s) => (s.reblogOfId === null ? [] : [s.reblogOfId]));
  const originals = new Map((await core.storage.statuses.getMany(originalIds)).map((s) => [s.id, s]));
  const involved = new Set<Id>();
  for (const s of statuses) {
    involved.add(s.accountId);
    const original = s.reblogOfId === null ? undefined : originals.get(s.reblogOfId);
    if (original) involved.add(original.accountId);
  }
  involved.delete(viewer.id);
  const hidden = await core.storage.relationships.hiddenFrom(viewer.id, [...involved], core.clock.now());
  if (hidden.size === 0) return [...statuses];
  return statuses.filter((s) => {
    if (hidden.has(s.accountId)) return false;
    const original = s.reblogOfId === null ? undefined : originals.get(s.reblogOfId);
    return !(original && hidden.has(original.accountId));
  });
}
