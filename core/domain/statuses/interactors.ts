// Operations 5 and 6: who boosted and who favourited a status, newest first, paged by the
// boost's id / the favourite's id (so clients page through the Link header). Only public and
// unlisted boosts are listed; suspended accounts, and accounts the viewer blocks, mutes or is
// blocked by, are left out.

import type { Core } from '../context.ts';
import type { Account, Id } from '../model.ts';
import type { Page } from '../ports/storage.ts';
import { isSuspended } from '../policy.ts';
import { findVisible } from '../viewer.ts';

export interface PagedAccounts {
  accountIds: Id[];
  /** Cursors of the first and last rows of the page as stored (before filtering). */
  newest: Id | null;
  oldest: Id | null;
  /** The page was full: there may be more. */
  full: boolean;
}

async function withoutHidden(core: Core, viewer: Account | null, ids: Id[]): Promise<Id[]> {
  // Suspended accounts are left out for everyone.
  const suspended = new Set((await core.storage.accounts.getMany(ids)).filter(isSuspended).map((a) => a.id));
  const shown = suspended.size === 0 ? ids : ids.filter((id) => !suspended.has(id));
  if (viewer === null) return shown;
  const hidden = await core.storage.relationships.hiddenFrom(viewer.id, shown.filter((id) => id !== viewer.id), core.clock.now());
  return shown.filter((id) => !hidden.has(id));
}

function paged(rows: { id: Id; accountId: Id }[], page: Page, accountIds: Id[]): PagedAccounts {
  return {
    accountIds,
    newest: rows[0]?.id ?? null,
    oldest: rows[rows.length - 1]?.id ?? null,
    full: page.limit > 0 && rows.length >= page.limit,
  };
}

export async function rebloggedBy(core: Core, viewer: Account | null, id: string, page: Page): Promise<PagedAccounts> {
  const found = await findVisible(core, viewer, id);
  const target = found.original ?? found.status;
  const boosts = await core.storage.statuses.reblogs(target.id, ['public', 'unlisted'], page);
  return paged(boosts, page, await withoutHidden(core, viewer, boosts.map((b) => b.accountId)));
}

export async function favouritedBy(core: Core, viewer: Account | null, id: string, page: Page): Promise<PagedAccounts> {
  const found = await findVisible(core, viewer, id);
  const target = found.original ?? found.status;
  const favourites = await core.storage.interactions.favouritesOf(target.id, page);
  return paged(favourites, page, await withoutHidden(core, viewer, favourites.map((f) => f.accountId)));
}
