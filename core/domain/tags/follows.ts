// Followed hashtags (Mastodon's TagFollow): a local account follows a hashtag once; public
// statuses carrying it then reach its home feed (timelines/home.ts) and home stream
// (routing/audience.ts).

import type { Core } from '../context.ts';
import type { Account, TagFollow } from '../model.ts';
import type { Slice } from '../paging.ts';
import type { Page } from '../ports/storage.ts';
import type { TagName } from './names.ts';

/** How many followed hashtags the home feed reads per viewer (the most recently followed). */
export const HOME_TAGS_READ = 1000;

export async function followTag(core: Core, actor: Account, name: TagName): Promise<TagFollow> {
  return core.storage.tags.follow({ id: core.ids.next(), accountId: actor.id, tag: name.tag, name: name.name, createdAt: core.clock.now() });
}

export async function unfollowTag(core: Core, actor: Account, name: TagName): Promise<void> {
  await core.storage.tags.unfollow(actor.id, name.tag);
}

export async function followedTags(core: Core, actor: Account, page: Page): Promise<Slice<TagFollow>> {
  const items = await core.storage.tags.followedBy(actor.id, page);
  const first = items[0];
  const last = items[items.length - 1];
  return { items, next: last !== undefined && items.length >= page.limit ? last.id : null, prev: first?.id ?? null };
}

/** The hashtags whose statuses join the viewer's home feed. */
export async function homeTags(core: Core, viewer: Account): Promise<string[]> {
  return (await core.storage.tags.followedBy(viewer.id, { limit: HOME_TAGS_READ })).map((f) => f.tag);
}
