// Character-class bodies (no brackets) shared by the entity patterns. Mastodon's regexes
// use Onigmo's POSIX classes, which are Unicode-aware on UTF-8 text:
//   [[:word:]]  = Letter | Mark | Decimal_Number | Connector_Punctuation
//   [[:alpha:]] = Letter | Mark
//   [[:alnum:]] = Letter | Mark | Decimal_Number
// These are their spellings for JS regexes with the `u` flag.

export const WORD = String.raw`\p{L}\p{M}\p{Nd}\p{Pc}`;
export const ALPHA = String.raw`\p{L}\p{M}`;
export const ALNUM = String.raw`\p{L}\p{M}\p{Nd}`;

/** What may join the words of a hashtag: underscore, middle dot, katakana middle dot,
 * zero-width non-joiner. */
export const TAG_SEPARATORS = String.raw`_\u00B7\u30FB\u200C`;
