// Pure text handling: entity extraction, `content` HTML, hashtag names, status length.

export { escapeHtml } from './escape.ts';
export { extractEntities } from './entities.ts';
export type { HashtagEntity, MentionEntity, TextEntity, UrlEntity } from './entities.ts';
export { normalizeTag } from './tags.ts';
export { findHashtags, isHashtagName } from './hashtags.ts';
export { formatPlain, formatText } from './format.ts';
export type { FormatOptions, MentionLink, PlainFormatOptions } from './format.ts';
export { countCharacters, countGraphemes, countStatusCharacters } from './length.ts';
