// Adding and removing the instance's emoji: the operator's tools (the standalone CLI) call
// these with the plugin's repository and the media plugin's imagesService.

import { RookeryError, type Id, type ImagesService, type Millis } from 'rookery/plugin-kit';
import { SHORTCODE } from './shortcodes.ts';
import type { EmojiRepository, LocalEmoji } from './storage/index.ts';

/** The largest picture an emoji may have (Mastodon's limit). */
export const EMOJI_BYTES = 256 * 1024;
const MAX_CATEGORY = 100;

export interface EmojiOptions {
  category?: string | null;
  /** Shown in clients' pickers (default true). */
  visibleInPicker?: boolean;
  /** Replace an emoji that has the shortcode (default: keep it, and say so). */
  overwrite?: boolean;
}

export type AddedEmoji = { outcome: 'added' | 'replaced'; emoji: LocalEmoji } | { outcome: 'exists'; emoji: LocalEmoji };

export interface EmojiTools {
  repo: EmojiRepository;
  images: ImagesService | null;
  newId(): Id;
  now: Millis;
}

const invalid = (text: string) => new RookeryError(422, `Validation failed: ${text}`);

export async function addEmoji(tools: EmojiTools, shortcode: string, data: Uint8Array, options: EmojiOptions = {}): Promise<AddedEmoji> {
  if (shortcode.length < 2) throw invalid('Shortcode is too short (minimum is 2 characters)');
  if (!SHORTCODE.test(shortcode)) throw invalid('Shortcode is invalid');
  const category = options.category?.trim() || null;
  if (category !== null && category.length > MAX_CATEGORY) throw invalid(`Category is too long (maximum is ${MAX_CATEGORY} characters)`);
  const [existing] = await tools.repo.byShortcodes([shortcode]);
  if (existing !== undefined && options.overwrite !== true) return { outcome: 'exists', emoji: existing };
  if (tools.images === null) throw new RookeryError(422, 'Custom emoji need the media plugin, which keeps their pictures');
  if (data.byteLength > EMOJI_BYTES) throw invalid('Image must be less than 256 KB');
  const id = tools.newId();
  const stored = await tools.images.storeEmoji(`emoji-${id}`, data);
  if (stored === null) throw invalid('Image is not a PNG, GIF or WebP picture');
  const emoji: LocalEmoji = { id, shortcode, url: stored.url, staticUrl: stored.staticUrl, category, visibleInPicker: options.visibleInPicker ?? true, createdAt: tools.now };
  const replaced = await tools.repo.save(emoji);
  if (replaced !== null) await tools.images.removeEmoji(`emoji-${replaced.id}`);
  return { outcome: replaced === null ? 'added' : 'replaced', emoji };
}

/** Removes the emoji and its pictures; false when there was none. */
export async function removeEmoji(tools: Pick<EmojiTools, 'repo' | 'images'>, shortcode: string): Promise<boolean> {
  const removed = await tools.repo.remove(shortcode);
  if (removed === null) return false;
  await tools.images?.removeEmoji(`emoji-${removed.id}`);
  return true;
}
