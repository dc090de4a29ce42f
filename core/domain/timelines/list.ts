// A list's timeline: statuses of its members, under the home feed's rules and the list's
// replies policy. Only the list's owner may read it.

import type { Core } from '../context.ts';
import { ownList, showsInList } from '../lists.ts';
import type { Account, Id, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import { filterVisible, withoutHiddenAccounts } from '../viewer.ts';
import { followsAmong, HOME_VISIBILITIES, showsInHome } from './home.ts';

export async function listTimeline(core: Core, viewer: Account, listId: string, page: Page): Promise<Slice<Status>> {
  const list = await ownList(core, viewer, listId);
  const members = new Set<Id>((await core.storage.lists.members(list.id, { limit: 0 })).map((m) => m.accountId));
  const keep = async (rows: Status[]): Promise<Status[]> => {
    const shown = await withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, rows));
    const follows = await followsAmong(core, viewer, shown);
    const followed = new Set(follows.keys());
    return shown.filter((s) => showsInHome(s, viewer.id, follows) && showsInList(s, list, members, followed));
  };
  return fillPage(page, (s) => s.id, (p) => core.storage.statuses.query({ visibilities: HOME_VISIBILITIES, listId: list.id }, p), keep);
}
