// The custom emoji plugin's repository: this instance's own emoji, one per shortcode.
// Contract: emoji/storage/contract.ts.

import type { Id, Millis } from 'rookery/plugin-kit';

export interface LocalEmoji {
  id: Id;
  /** Letters, digits and '_', 2 to 64 of them; case counts. */
  shortcode: string;
  /** The picture as the operator gave it (PNG, GIF or WebP; it may move). */
  url: string;
  /** A still PNG of its first frame. */
  staticUrl: string;
  category: string | null;
  visibleInPicker: boolean;
  createdAt: Millis;
}

export interface EmojiRepository {
  /** Stores `emoji` under its shortcode, replacing the one that had it; returns that one. */
  save(emoji: LocalEmoji): Promise<LocalEmoji | null>;
  /** Removes the emoji with this shortcode and returns it (null: there was none). */
  remove(shortcode: string): Promise<LocalEmoji | null>;
  /** Every emoji, by shortcode. */
  list(): Promise<LocalEmoji[]>;
  /** Those of `shortcodes` that exist (an unknown one is left out), by shortcode. */
  byShortcodes(shortcodes: readonly string[]): Promise<LocalEmoji[]>;
}
