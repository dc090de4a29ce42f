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

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_63 = (1n << 63n) - 1n;

/** The id a Tag entity shows: Rookery keeps no table of tags, so it is derived from the
 * normalized name (FNV-1a, 64 bits, kept positive and below 2^63): the same for every spelling
 * of a tag and on every process of an instance. */
export function tagIdOf(tag: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(tag)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * FNV_PRIME);
  return String((hash & MASK_63) || 1n);
}
