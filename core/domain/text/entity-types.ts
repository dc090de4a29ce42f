// The entities Mastodon recognises in plain text. Offsets are JS string indices (UTF-16 code
// units), end exclusive, so text.slice(start, end) is the entity's source text. The finders
// (urls, mentions, hashtags) produce them; entities.ts merges what they find.

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
