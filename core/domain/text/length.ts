// Status length as Mastodon measures it (docs/behaviour.md, "Statuses and their transitions"): grapheme clusters, where
// a URL counts as 23 and `@user@domain` as `@user`. The text is rewritten first and then
// segmented, as Mastodon does, so a combining mark after a URL joins its last character.

import { extractEntities } from './entities.ts';
import { isShortenedForLength } from './urls.ts';

const URL_PLACEHOLDER = 'x'.repeat(23);
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function countGraphemes(s: string): number {
  // ASCII but CR (which joins a following LF): one grapheme per character, no segmenter.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7e || c === 0x0d) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.length;
  let count = 0;
  for (const _ of graphemes.segment(s)) count++;
  return count;
}

/** The text with URLs replaced by 23 characters and remote mentions by `@user`. */
function countableText(text: string): string {
  let out = '';
  let at = 0;
  for (const entity of extractEntities(text)) {
    let replacement: string;
    if (entity.kind === 'url' && isShortenedForLength(entity.url)) replacement = URL_PLACEHOLDER;
    else if (entity.kind === 'mention') replacement = `@${entity.username}`;
    else continue;
    out += text.slice(at, entity.start) + replacement;
    at = entity.end;
  }
  return out + text.slice(at);
}

/**
 * Countable length of one text. Pass it the stored (stripped) text: Mastodon strips text
 * and spoiler before validating, and this function counts whitespace like anything else.
 */
export function countCharacters(text: string): number {
  return countGraphemes(countableText(text));
}

/**
 * Mastodon's exact rule for a status: the spoiler counts raw (its URLs and mentions are
 * not shortened), joined to the countable text. Compare against the 500 limit.
 */
export function countStatusCharacters(spoilerText: string, text: string): number {
  return countGraphemes(spoilerText + countableText(text));
}
