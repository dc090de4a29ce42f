// `emoji import`: every PNG, GIF and WebP picture of a .tar.gz archive (as tootctl takes them)
// becomes an emoji named after its file (prefix + name without extension + suffix). Bounded: at
// most MAX_ENTRIES entries are looked at, and no picture over the emoji limit is read into memory.

import { basename, extname } from 'node:path';
import { list } from 'tar';
import { addEmoji, EMOJI_BYTES, type EmojiOptions, type EmojiTools } from './manage.ts';

export const MAX_ENTRIES = 10_000;
const PICTURES = new Set(['.png', '.gif', '.webp']);

export interface ImportOptions extends EmojiOptions {
  prefix?: string;
  suffix?: string;
}

export interface ImportResult {
  imported: string[];
  /** Shortcodes that exist already (without `overwrite`). */
  skipped: string[];
  failed: { shortcode: string; reason: string }[];
  /** The archive had more than MAX_ENTRIES entries: those after were not looked at. */
  truncated: boolean;
}

export async function importEmojiArchive(tools: EmojiTools, file: string, options: ImportOptions = {}): Promise<ImportResult> {
  const pictures: { shortcode: string; data: Uint8Array | null }[] = [];
  let entries = 0;
  await list({
    file,
    // A file that is not a tar archive is an error, not a warning and no entries.
    strict: true,
    onReadEntry(entry) {
      const name = basename(entry.path);
      const ext = extname(name).toLowerCase();
      // macOS resource forks (._name.png) are not pictures.
      if (++entries > MAX_ENTRIES || entry.type !== 'File' || !PICTURES.has(ext) || name.startsWith('._')) return;
      const shortcode = `${options.prefix ?? ''}${name.slice(0, -ext.length)}${options.suffix ?? ''}`;
      if ((entry.size ?? 0) > EMOJI_BYTES) {
        pictures.push({ shortcode, data: null });
        return;
      }
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => void chunks.push(chunk));
      entry.on('end', () => void pictures.push({ shortcode, data: Buffer.concat(chunks) }));
    },
  });
  const result: ImportResult = { imported: [], skipped: [], failed: [], truncated: entries > MAX_ENTRIES };
  for (const { shortcode, data } of pictures) {
    if (data === null) {
      result.failed.push({ shortcode, reason: 'Validation failed: Image must be less than 256 KB' });
      continue;
    }
    try {
      const added = await addEmoji(tools, shortcode, data, options);
      (added.outcome === 'exists' ? result.skipped : result.imported).push(shortcode);
    } catch (error) {
      result.failed.push({ shortcode, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}
