// The viewer's bookmarks and favourites: statuses, newest mark first, paged by the mark's own
// id (clients can only follow the Link header). Statuses the viewer can no longer see are
// left out.

import type { Core } from '../context.ts';
import type { Account, Id, Status, StatusMark } from '../model.ts';
import { fillPage } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { filterVisible } from '../viewer.ts';

export interface MarkedStatuses {
  statuses: Status[];
  /** Cursors are mark ids. */
  next: Id | null;
  prev: Id | null;
}

async function marked(core: Core, viewer: Account, page: Page, read: (page: Page) => Promise<StatusMark[]>): Promise<MarkedStatuses> {
  const statusOf = new Map<Id, Status>();
  const keep = async (marks: StatusMark[]): Promise<StatusMark[]> => {
    const statuses = await filterVisible(core, viewer, await core.storage.statuses.getMany(marks.map((m) => m.statusId)));
    for (const s of statuses) statusOf.set(s.id, s);
    return marks.filter((m) => statusOf.has(m.statusId));
  };
  const slice = await fillPage(page, (m) => m.id, read, keep);
  return {
    statuses: slice.items.flatMap((m) => {
      const status = statusOf.get(m.statusId);
      return status === undefined ? [] : [status];
    }),
    next: slice.next,
    prev: slice.prev,
  };
}

export function bookmarkedStatuses(core: Core, viewer: Account, page: Page): Promise<MarkedStatuses> {
  return marked(core, viewer, page, (p) => core.storage.interactions.bookmarksBy(viewer.id, p));
}

export function favouritedStatuses(core: Core, viewer: Account, page: Page): Promise<MarkedStatuses> {
  return marked(core, viewer, page, (p) => core.storage.interactions.favouritesBy(viewer.id, p));
}
