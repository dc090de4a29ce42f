// An account's statuses as a given viewer may see them (profile pages), and its pins.

import type { Core } from '../context.ts';
import { compareIds } from '../ids.ts';
import type { Account, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page, StatusQuery } from '../ports/storage.ts';
import { normalizeTag } from '../text/index.ts';
import { readableVisibilities } from '../policy.ts';
import { factsOf, filterVisible, viewerFacts } from '../viewer.ts';

export interface AccountStatusesOptions {
  onlyMedia?: boolean | undefined;
  /** Drop replies to others; self-replies (threads) stay. */
  excludeReplies?: boolean | undefined;
  excludeReblogs?: boolean | undefined;
  tagged?: string | undefined;
}

export async function accountStatuses(core: Core, viewer: Account | null, author: Account, page: Page, options: AccountStatusesOptions): Promise<Slice<Status>> {
  const facts = factsOf(await viewerFacts(core, viewer, [author.id]), viewer, author.id);
  const visibilities = readableVisibilities(facts, author.id);
  if (visibilities.length === 0) return { items: [], next: null, prev: null };
  const tagged = options.tagged === undefined ? undefined : normalizeTag(options.tagged.replace(/^#/, ''));
  const query: StatusQuery = {
    visibilities,
    // A mentioned viewer may read a private or direct status whatever they follow.
    orMentioning: viewer !== null && viewer.id !== author.id ? viewer.id : undefined,
    authorId: author.id,
    onlyMedia: options.onlyMedia,
    excludeReblogs: options.excludeReblogs,
    excludeRepliesToOthers: options.excludeReplies,
    tag: tagged === '' ? undefined : tagged,
  };
  return fillPage(page, (s) => s.id, (p) => core.storage.statuses.query(query, p), (rows) => filterVisible(core, viewer, rows));
}

/** The account's pinned statuses the viewer may see, most recently pinned first. The cursors,
 * when given, select by status id; no more than `limit`. */
export async function pinnedStatuses(core: Core, viewer: Account | null, author: Account, page: Page): Promise<Status[]> {
  const pins = await core.storage.interactions.pinsBy(author.id);
  const byId = new Map((await core.storage.statuses.getMany(pins.map((p) => p.statusId))).map((s) => [s.id, s]));
  const pinned = pins.flatMap((p) => {
    const status = byId.get(p.statusId);
    return status === undefined ? [] : [status];
  });
  const inRange = pinned.filter(
    (s) =>
      (page.maxId === undefined || compareIds(s.id, page.maxId) < 0) &&
      (page.sinceId === undefined || compareIds(s.id, page.sinceId) > 0) &&
      (page.minId === undefined || compareIds(s.id, page.minId) > 0),
  );
  return (await filterVisible(core, viewer, inRange)).slice(0, Math.max(0, page.limit));
}
