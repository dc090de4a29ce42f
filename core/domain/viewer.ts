// Gathers the facts the policy needs about a viewer and the authors of some statuses, in one
// read, and applies the policy to statuses: the bridge between storage and policy.ts.

import type { Core } from './context.ts';
import { notFound } from './errors.ts';
import { isId } from './ids.ts';
import type { Account, Id, Millis, Status } from './model.ts';
import { activeMute, anonymousFacts, canView, isSilenced, isSuspended, showsSilencedAuthor, type ViewerFacts } from './policy.ts';

/** The authors among `ids` that moderators suspended or silenced (most are neither). */
async function moderatedAuthors(core: Core, ids: readonly Id[]): Promise<Map<Id, Pick<ViewerFacts, 'authorSuspended' | 'authorSilenced'>>> {
  const moderated = new Map<Id, Pick<ViewerFacts, 'authorSuspended' | 'authorSilenced'>>();
  if (ids.length === 0) return moderated;
  for (const author of await core.storage.accounts.getMany(ids)) {
    const suspended = isSuspended(author);
    const silenced = isSilenced(author);
    if (suspended || silenced) moderated.set(author.id, { authorSuspended: suspended, authorSilenced: silenced });
  }
  return moderated;
}

export async function viewerFacts(core: Core, viewer: Account | null, authorIds: readonly Id[]): Promise<Map<Id, ViewerFacts>> {
  const facts = new Map<Id, ViewerFacts>();
  const wanted = [...new Set(authorIds)];
  const others = viewer === null ? [] : wanted.filter((id) => id !== viewer.id);
  const [moderated, relationships] = await Promise.all([
    moderatedAuthors(core, wanted),
    viewer === null || others.length === 0 ? [] : core.storage.relationships.relationships(viewer.id, others),
  ]);
  if (viewer === null) {
    for (const id of wanted) facts.set(id, anonymousFacts);
  } else {
    facts.set(viewer.id, { viewerId: viewer.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false });
    for (const rel of relationships) {
      facts.set(rel.targetId, {
        viewerId: viewer.id,
        followsAuthor: rel.following !== null,
        blockedByAuthor: rel.blockedBy,
        blocksAuthor: rel.blocking,
        mutesAuthor: activeMute(rel.muting, core.clock.now()) !== null,
        blocksDomain: rel.domainBlocking,
      });
    }
  }
  for (const [id, state] of moderated) facts.set(id, { ...factsOf(facts, viewer, id), ...state });
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

export interface VisibleOptions {
  /** Also leave out silenced authors the viewer does not follow (public and hashtag timelines,
   * threads). */
  hideSilenced?: boolean;
}

/** Keeps the statuses the viewer may see, in order; boosts need their original visible too. */
export async function filterVisible(core: Core, viewer: Account | null, statuses: readonly Status[], options: VisibleOptions = {}): Promise<Status[]> {
  const originalIds = statuses.flatMap((s) => (s.reblogOfId === null ? [] : [s.reblogOfId]));
  const originals = new Map((await core.storage.statuses.getMany(originalIds)).map((s) => [s.id, s]));
  const authors = [...statuses.map((s) => s.accountId), ...[...originals.values()].map((s) => s.accountId)];
  const facts = await viewerFacts(core, viewer, authors);
  const shown = (status: Status): boolean => {
    const of = factsOf(facts, viewer, status.accountId);
    return canView(status, of) && (options.hideSilenced !== true || showsSilencedAuthor(status, of));
  };
  return statuses.filter((status) => {
    if (!shown(status)) return false;
    if (status.reblogOfId === null) return true;
    const original = originals.get(status.reblogOfId);
    return original !== undefined && shown(original);
  });
}

/** How many of a viewer's domain blocks the timelines apply (a bound on one read; Mastodon has
 * no limit, and few people block more). */
const DOMAIN_BLOCKS_READ = 1000;

/** Of `accountIds`, those on a domain the viewer blocks (Mastodon's domain_blocking?: the exact
 * domain). One read of the viewer's blocks; the accounts are read only when there are some. */
async function onBlockedDomains(core: Core, viewerId: Id, accountIds: readonly Id[]): Promise<Set<Id>> {
  if (accountIds.length === 0) return new Set();
  const blocks = await core.storage.relationships.domainBlocksBy(viewerId, { limit: DOMAIN_BLOCKS_READ });
  if (blocks.length === 0) return new Set();
  const domains = new Set(blocks.map((b) => b.domain));
  const accounts = await core.storage.accounts.getMany(accountIds);
  return new Set(accounts.filter((a) => a.domain !== null && domains.has(a.domain.toLowerCase())).map((a) => a.id));
}

/** Drops statuses by (or boosting, or boosted from) accounts the viewer blocks or mutes or is
 * blocked by, or on a domain the viewer blocks: what timelines and thread views hide beyond
 * visibility. */
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
  const [byAccount, byDomain] = await Promise.all([
    core.storage.relationships.hiddenFrom(viewer.id, [...involved], core.clock.now()),
    onBlockedDomains(core, viewer.id, [...involved]),
  ]);
  const hidden = byDomain.size === 0 ? byAccount : new Set([...byAccount, ...byDomain]);
  if (hidden.size === 0) return [...statuses];
  return statuses.filter((s) => {
    if (hidden.has(s.accountId)) return false;
    const original = s.reblogOfId === null ? undefined : originals.get(s.reblogOfId);
    return !(original && hidden.has(original.accountId));
  });
}

/** When what `accountId` is shown next changes with nothing written: the earliest end of one of
 * their mutes or filters after now (Infinity: never). Answers kept for them live until then. */
export async function viewerChangesAt(core: Core, accountId: Id): Promise<Millis> {
  const now = core.clock.now();
  const [muteEnd, filters] = await Promise.all([core.storage.relationships.nextMuteEnd(accountId, now), core.storage.filters.listBy(accountId)]);
  let at = muteEnd ?? Infinity;
  for (const filter of filters) if (filter.expiresAt !== null && filter.expiresAt > now && filter.expiresAt < at) at = filter.expiresAt;
  return at;
}
