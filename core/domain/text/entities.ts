// Every link Mastodon recognises in plain text, merged from the finders in one pass.

import { findHashtags } from './hashtags.ts';
import { findMentions } from './mentions.ts';
import { findUrls } from './urls.ts';
import type { TextEntity } from './entity-types.ts';

export type { HashtagEntity, MentionEntity, TextEntity, UrlEntity } from './entity-types.ts';

/**
 * Every entity in `text`, sorted by start and non-overlapping: of two that overlap, the one
 * that starts first wins, so a mention or hashtag inside a URL is part of the URL.
 */
export function extractEntities(text: string): TextEntity[] {
  const candidates: TextEntity[] = [...findUrls(text), ...findMentions(text), ...findHashtags(text)];
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: TextEntity[] = [];
  let taken = 0;
  for (const entity of candidates) {
    if (entity.start < taken) continue;
    kept.push(entity);
    taken = entity.end;
  }
  return kept;
}
