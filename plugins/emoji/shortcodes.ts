// Which :shortcodes: a text uses, as Mastodon reads them: letters, digits and '_' between two
// colons, not glued to a letter, a digit or another colon on either side.

/** The longest shortcode the plugin takes (Mastodon's form allows any length; 64 bounds it). */
export const MAX_SHORTCODE = 64;
export const SHORTCODE = /^[a-zA-Z0-9_]{2,64}$/;
/** At most this many different shortcodes are looked up for one presentation call. */
const MAX_LOOKED_UP = 500;

const USE = /(?<![\p{L}\p{N}:]):([a-zA-Z0-9_]{2,64}):(?![\p{L}\p{N}:])/gu;

/** Adds the shortcodes `text` uses to `into` (bounded: a flood of candidates stops there). */
export function collectShortcodes(text: string, into: Set<string>): void {
  if (!text.includes(':')) return;
  for (const match of text.matchAll(USE)) {
    if (into.size >= MAX_LOOKED_UP) return;
    into.add(match[1] as string);
  }
}

export function shortcodesIn(texts: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const text of texts) collectShortcodes(text, found);
  return found;
}
