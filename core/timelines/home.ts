// The home timeline: the viewer's statuses and those of the accounts they follow, with
// Mastodon's home feed rules (FeedManager#filter_from_home) applied when read.

import type { Core } from '../core.ts';
import { showsInHome as showsInHomeFeed } from '../feeds.ts';
import type { Account, Follow, Id, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { filterVisible, withoutHiddenAccounts } from '../viewer.ts';

/** Direct messages live in conversations, not in home feeds. */
export const HOME_VISIBILITIES = ['public', 'unlisted', 'private'] as const;

/** The home feed rule (feeds.ts) for one viewer, with their follows keyed by followed account. */
export function showsInHome(status: Status, viewerId: Id, follows: ReadonlyMap<Id, Follow>): boolean {
  const target = status.inReplyToAccountId;
  return showsInHomeFeed(status, viewerId, follows.get(status.accountId) ?? null, target !== null && follows.has(target));
}

/** The viewer's follows of the authors and reply targets of these statuses. */
export async function followsAmong(core: Core, viewer: Account, statuses: readonly Status[]): Promise<Map<Id, Follow>> {
  const ids = new Set<Id>();
  for (const s of statuses) {
    ids.add(s.accountId);
    if (s.inReplyToAccountId !== null) ids.add(s.inReplyToAccountId);
  }
  ids.delete(viewer.id);
  const follows = new Map<Id, Follow>();
  if (ids.size === 0) return follows;
  for (const facts of await core.storage.relationships.relationships(viewer.id, [...ids])) {
    if (facts.following !== null) follows.set(facts.targetId, facts.following);
  }
  return follows;
}

/** Members of the viewer's exclusive lists: their statuses show in those lists only. */
async function exclusiveMembers(core: Core, viewer: Account): Promise<Set<Id>> {
  const members = new Set<Id>();
  for (const list of await core.storage.lists.listBy(viewer.id)) {
    if (!list.exclusive) continue;
    for (const m of await core.storage.lists.members(list.id, { limit: 0 })) members.add(m.accountId);
  }
  return members;
}

export async function homeTimeline(core: Core, viewer: Account, page: Page): Promise<Slice<Status>> {
  const exclusive = await exclusiveMembers(core, viewer);
  const keep = async (rows: Status[]): Promise<Status[]> => {
    const shown = await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, rows));
    const follows = await followsAmong(core, viewer, shown);
    return shown.filter(
      (s) => showsInHome(s, viewer.id, follows) && (s.accountId === viewer.id || !exclusive.has(s.accountId)),
    );
  };
  return fillPage(page, (s) => s.id, (p) => core.storage.statuses.query({ visibilities: HOME_VISIBILITIES, homeOf: viewer.id }, p), keep);
}
