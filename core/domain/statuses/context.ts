// Operation 4: a status's context. Ancestors: the nearest ones, listed from the thread's first
// status down to the direct parent. Descendants: depth-first pre-order with siblings oldest
// first, then the author's own continuations (self-replies) moved to the front. Both are cut
// at the limits of docs/behaviour.md, "Limits" (smaller for anonymous callers), then filtered for the viewer.

import type { Core } from '../context.ts';
import type { Account, Id, Status } from '../model.ts';
import { filterVisible, findVisible, withoutHiddenAccounts } from '../viewer.ts';

const ANONYMOUS = { ancestors: 40, descendants: 60, depth: 20 };
const SIGNED_IN = { ancestors: 4096, descendants: 4096, depth: Number.POSITIVE_INFINITY };
/** A bound on the rows read for one thread, whatever its shape. */
const MAX_READ = 20_000;

export interface Context {
  ancestors: Status[];
  descendants: Status[];
}

export async function statusContext(core: Core, viewer: Account | null, id: string): Promise<Context> {
  const { status } = await findVisible(core, viewer, id);
  const limits = viewer === null ? ANONYMOUS : SIGNED_IN;
  const ancestors = await nearestAncestors(core, status, limits.ancestors);
  const descendants = promoteSelfReplies(await descendantsOf(core, status, limits.descendants, limits.depth));
  return {
    ancestors: await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, ancestors, { hideSilenced: true })),
    descendants: await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, descendants, { hideSilenced: true })),
  };
}

async function nearestAncestors(core: Core, status: Status, limit: number): Promise<Status[]> {
  const chain: Status[] = [];
  const seen = new Set<Id>([status.id]);
  let parentId = status.inReplyToId;
  while (parentId !== null && chain.length < limit && !seen.has(parentId)) {
    seen.add(parentId);
    const parent = await core.storage.statuses.get(parentId);
    if (parent === null) break;
    chain.push(parent);
    parentId = parent.inReplyToId;
  }
  return chain.reverse();
}

async function descendantsOf(core: Core, root: Status, limit: number, maxDepth: number): Promise<Status[]> {
  const children = new Map<Id, Status[]>();
  let frontier: Id[] = [root.id];
  let read = 0;
  for (let depth = 0; frontier.length > 0 && depth < maxDepth && read < MAX_READ; depth++) {
    const replies = await core.storage.statuses.replies(frontier);
    read += replies.length;
    frontier = [];
    for (const reply of replies) {
      if (reply.inReplyToId === null) continue;
      const siblings = children.get(reply.inReplyToId) ?? [];
      siblings.push(reply);
      children.set(reply.inReplyToId, siblings);
      frontier.push(reply.id);
    }
  }
  const ordered: Status[] = [];
  const visit = (id: Id): void => {
    for (const child of children.get(id) ?? []) {
      if (ordered.length >= limit) return;
      ordered.push(child);
      visit(child.id);
    }
  };
  visit(root.id);
  return ordered;
}

/** Mastodon lists the author's own thread continuations first, keeping each group's order. */
function promoteSelfReplies(statuses: Status[]): Status[] {
  const own = statuses.filter((s) => s.inReplyToAccountId === s.accountId);
  const others = statuses.filter((s) => s.inReplyToAccountId !== s.accountId);
  return [...own, ...others];
}
