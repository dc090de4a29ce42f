// A hashtag named in a request path: Mastodon answers 404 for anything that is not a hashtag name.

import { notFound } from '../errors.ts';
import { isHashtagName, normalizeTag } from '../text/index.ts';

/** Longer names are refused as not found: nothing stores or streams a tag that long. */
export const MAX_TAG_NAME = 256;

export interface TagName {
  /** As the request wrote it (what the Tag entity shows). */
  name: string;
  /** What statuses store and follows match. */
  tag: string;
}

export function tagNameOf(raw: string | undefined): TagName {
  const name = raw ?? '';
  if (name.length > MAX_TAG_NAME || !isHashtagName(name)) throw notFound();
  const tag = normalizeTag(name);
  if (tag === '') throw notFound();
  return { name, tag };
}
