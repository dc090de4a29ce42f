// Hashtags as Mastodon 4.x finds them: `#` after a non-word character, then letters, marks,
// digits and the tag separators, with at least one letter or mark.

import type { HashtagEntity } from './entity-types.ts';
import { ALPHA, TAG_SEPARATORS, WORD } from './unicode.ts';

const W = `[${WORD}]`;
const W_OR_SEP = `[${WORD}${TAG_SEPARATORS}]`;
const ALPHA_OR_SEP = `[${ALPHA}${TAG_SEPARATORS}]`;

// Either word chars with a letter or separator somewhere strictly inside (so `12_3` and
// `a·b` are tags), or word chars containing at least one letter. Digits alone never are.
const NAME = `(?:${W}${W_OR_SEP}*${ALPHA_OR_SEP}${W_OR_SEP}*${W}|${W}*[${ALPHA}]${W}*)`;

// Not after '/', ')' or an ASCII word char: Ruby's \w is ASCII-only, so `café#tag` and
// `日本#tag` do start a tag while `foo#bar` and `example.com/#anchor` don't.
const HASHTAG = new RegExp(String.raw`(?<![/)A-Za-z0-9_])#(${NAME})`, 'gu');

const WHOLE_NAME = new RegExp(`^${NAME}$`, 'u');

/** Whether `name` is a hashtag name as a whole (Mastodon's HASHTAG_NAME_RE), without its `#`. */
export function isHashtagName(name: string): boolean {
  return WHOLE_NAME.test(name);
}

// `#foohttps://…` is the tag `foo` written against a URL.
const SCHEME_SUFFIX = /^(.+)(https?)$/;

export function findHashtags(text: string): HashtagEntity[] {
  if (!text.includes('#')) return [];
  const found: HashtagEntity[] = [];
  for (const match of text.matchAll(HASHTAG)) {
    const start = match.index;
    let name = match[1] ?? '';
    if (text.startsWith('://', start + match[0].length)) {
      const glued = SCHEME_SUFFIX.exec(name);
      if (glued?.[1] !== undefined) name = glued[1];
    }
    found.push({ kind: 'hashtag', name, start, end: start + 1 + name.length });
  }
  return found;
}
