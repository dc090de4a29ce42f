// Featured hashtags (Mastodon's FeaturedTag): at most MAX_FEATURED_TAGS per account, each tag
// once; how often the account used each is counted from its public and unlisted statuses.

import type { Core } from '../context.ts';
import { notFound, unprocessable } from '../errors.ts';
import type { Account, FeaturedTag, Id, Millis } from '../model.ts';
import { isHashtagName, normalizeTag } from '../text/index.ts';
import { MAX_TAG_NAME, type TagName } from './names.ts';

export const MAX_FEATURED_TAGS = 10;
/** How many of an account's most recent hashtag uses its suggestions look at. */
const SUGGESTION_USES = 5_000;
const SUGGESTIONS = 10;

export const featuredTagTexts = {
  blank: "Validation failed: Name can't be blank, Name is invalid",
  invalid: 'Validation failed: Name is invalid',
  taken: 'Validation failed: Name has already been taken',
  limit: 'Validation failed: You have already featured the maximum number of hashtags',
} as const;

/** The visibilities whose statuses count for a featured hashtag (as Mastodon). */
const COUNTED = ['public', 'unlisted'] as const;

export interface FeaturedTagView extends FeaturedTag {
  statusesCount: number;
  lastStatusAt: Millis | null;
}

/** A featured tag's name as a client sent it: surrounding spaces and a leading `#` dropped. */
export function featuredNameOf(raw: string | undefined): TagName {
  const name = (raw ?? '').trim().replace(/^#/, '');
  if (name === '') throw unprocessable(featuredTagTexts.blank);
  const tag = normalizeTag(name);
  if (name.length > MAX_TAG_NAME || !isHashtagName(name) || tag === '') throw unprocessable(featuredTagTexts.invalid);
  return { name, tag };
}

/** Features the tag; featuring it again gives the one there is, except that POST
 * /api/v1/featured_tags (`byName`) refuses the same tag written otherwise, as Mastodon finds an
 * existing one by the name as written. */
export async function featureTag(core: Core, actor: Account, name: TagName, byName = false): Promise<FeaturedTag> {
  const wanted: FeaturedTag = { id: core.ids.next(), accountId: actor.id, tag: name.tag, name: name.name, createdAt: core.clock.now() };
  const { result, featured } = await core.storage.tags.feature(wanted, MAX_FEATURED_TAGS);
  if (result === 'limit' || featured === null) throw unprocessable(featuredTagTexts.limit);
  if (byName && result === 'exists' && featured.name !== name.name) throw unprocessable(featuredTagTexts.taken);
  return featured;
}

/** Unfeatures the actor's featured tag with this id; 404 when they have none. */
export async function unfeatureTagById(core: Core, actor: Account, id: Id): Promise<void> {
  if (!(await core.storage.tags.unfeature(actor.id, id))) throw notFound();
}

/** Unfeatures the tag if the actor features it. */
export async function unfeatureTag(core: Core, actor: Account, name: TagName): Promise<void> {
  const featured = (await core.storage.tags.featuredBy(actor.id)).find((f) => f.tag === name.tag);
  if (featured !== undefined) await core.storage.tags.unfeature(actor.id, featured.id);
}

/** The account's featured tags with their counts, most used first (oldest first among equals). */
export async function featuredTagsOf(core: Core, accountId: Id): Promise<FeaturedTagView[]> {
  const featured = await core.storage.tags.featuredBy(accountId);
  const stats = new Map((await core.storage.tags.statsOf(accountId, featured.map((f) => f.tag), COUNTED)).map((s) => [s.tag, s]));
  const views = featured.map((f) => ({ ...f, statusesCount: stats.get(f.tag)?.count ?? 0, lastStatusAt: stats.get(f.tag)?.lastStatusAt ?? null }));
  return views.sort((a, b) => b.statusesCount - a.statusesCount);
}

/** The hashtags of the actor's recent statuses they do not feature, most used first. */
export async function featuredTagSuggestions(core: Core, actor: Account): Promise<string[]> {
  const [uses, featured] = await Promise.all([
    core.storage.tags.uses({ since: 0, visibilities: ['public', 'unlisted', 'private', 'direct'], accountId: actor.id }, SUGGESTION_USES),
    core.storage.tags.featuredBy(actor.id),
  ]);
  const skip = new Set(featured.map((f) => f.tag));
  const counts = new Map<string, number>();
  for (const use of uses) if (!skip.has(use.tag)) counts.set(use.tag, (counts.get(use.tag) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, SUGGESTIONS)
    .map(([tag]) => tag);
}
