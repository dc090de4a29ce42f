// The links Mastodon recognises in plain text. Offsets are JS string indices (UTF-16 code
// units), end exclusive, so text.slice(start, end) is the entity's source text.

import { findHashtags } from './hashtags.ts';
import { findMentions } from './mentions.ts';
import { findUrls } from './urls.ts';

export interface UrlEntity {
  kind: 'url';
  url: string;
  start: number;
  end: number;
}

export interface MentionEntity {
  kind: 'mention';
  /** As typed, without the '@'. */
  username: string;
  /** As typed; null for `@user`. */
  domain: string | null;
  /** start/end cover the whole `@user@domain`. */
  start: number;
  end: number;
}

export interface HashtagEntity {
  kind: 'hashtag';
  /** As typed, without the '#'. */
  name: string;
  start: number;
  end: number;
}

export type TextEntity = UrlEntity | MentionEntity | HashtagEntity;

/**
 * Every entity in `text`, sorted by start and non-overlapping. Like twitter-text's
 * remove_overlapping_entities, the entity that starts first wins, so a mention or hashtag
 * inside a URL is part of the URL.
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
