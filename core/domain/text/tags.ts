// Hashtag normalisation (docs/behaviour.md, "Streaming"): the form tags are stored, compared and
// streamed under.

import { foldAccents } from './ascii-fold.ts';
import { ALNUM, TAG_SEPARATORS } from './unicode.ts';

// Invalid in a normalised tag: anything but letters, marks (Indic vowel signs are marks),
// decimal digits and the tag separators.
const INVALID = new RegExp(`[^${ALNUM}${TAG_SEPARATORS}]`, 'gu');

/** NFKC (full-width → ASCII), lowercase, fold accented Latin letters, drop invalid chars. */
export function normalizeTag(name: string): string {
  return foldAccents(name.normalize('NFKC').toLowerCase()).replace(INVALID, '');
}
