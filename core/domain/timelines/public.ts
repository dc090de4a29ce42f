// The public (federated and local) and hashtag timelines.

import type { Core } from '../context.ts';
import { compareIds } from '../ids.ts';
import type { Account, Status } from '../model.ts';
import { fillPage, type Slice } from '../paging.ts';
import { isHashtagTimelineStatus, isPublicTimelineStatus } from '../policy.ts';
import type { Page, StatusQuery } from '../ports/storage.ts';
import { normalizeTag } from '../text/index.ts';
import { filterVisible, withoutHiddenAccounts } from '../viewer.ts';

export interface PublicOptions {
  /** true: local statuses only; false: remote only; undefined: both. */
  local?: boolean | undefined;
  onlyMedia?: boolean | undefined;
}

/** What the viewer may see, without accounts they block or mute (or that block them), nor
 * silenced accounts they do not follow. */
async function shownTo(core: Core, viewer: Account | null, rows: Status[]): Promise<Status[]> {
  return withoutHiddenAccounts(core, viewer, await filterVisible(core, viewer, rows, { hideSilenced: true }));
}

/** Public statuses that are neither boosts nor replies to someone else. */
export async function publicTimeline(core: Core, viewer: Account | null, page: Page, options: PublicOptions): Promise<Slice<Status>> {
  const query: StatusQuery = {
    visibilities: ['public'],
    excludeReblogs: true,
    excludeRepliesToOthers: true,
    local: options.local,
    onlyMedia: options.onlyMedia,
  };
  return fillPage(page, (s) => s.id, (p) => core.storage.statuses.query(query, p), async (rows) =>
    shownTo(core, viewer, rows.filter(isPublicTimelineStatus)),
  );
}

export interface TagOptions extends PublicOptions {
  tag: string;
  /** Also statuses with any of these tags. */
  any?: readonly string[] | undefined;
  /** Only statuses that also have all of these. */
  all?: readonly string[] | undefined;
  /** Not statuses with any of these. */
  none?: readonly string[] | undefined;
}

function normalized(tags: readonly string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => normalizeTag(t.replace(/^#/, ''))).filter((t) => t !== ''))];
}

/** Statuses with any of several tags: one query per tag, merged into one page that keeps the
 * storage Page contract (the `limit` rows nearest the cursor, newest first). */
async function anyOfTags(core: Core, base: Omit<StatusQuery, 'tag'>, tags: readonly string[], page: Page): Promise<Status[]> {
  const pages = await Promise.all(tags.map((tag) => core.storage.statuses.query({ ...base, tag }, page)));
  const byId = new Map<string, Status>();
  for (const rows of pages) for (const s of rows) byId.set(s.id, s);
  const merged = [...byId.values()].sort((a, b) => compareIds(b.id, a.id));
  return page.minId !== undefined ? merged.slice(-page.limit) : merged.slice(0, page.limit);
}

/** Public statuses with a hashtag, replies included; boosts never. */
export async function tagTimeline(core: Core, viewer: Account | null, page: Page, options: TagOptions): Promise<Slice<Status>> {
  const tags = normalized([options.tag, ...(options.any ?? [])]);
  if (tags.length === 0) return { items: [], next: null, prev: null };
  const all = normalized(options.all);
  const none = normalized(options.none);
  const base = { visibilities: ['public'] as const, excludeReblogs: true, local: options.local, onlyMedia: options.onlyMedia };
  const keep = (rows: Status[]) =>
    shownTo(
      core,
      viewer,
      rows.filter((s) => isHashtagTimelineStatus(s) && all.every((t) => s.tags.includes(t)) && !none.some((t) => s.tags.includes(t))),
    );
  return fillPage(page, (s) => s.id, (p) => anyOfTags(core, base, tags, p), keep);
}
