// Plain text of a local post (or bio, or profile field) → Mastodon's `content` HTML,
// as docs/behaviour.md, "Text" says.

import { extractEntities } from './entities.ts';
import type { TextEntity } from './entities.ts';
import { escapeHtml } from './escape.ts';
import { hashtagLink, mentionLink, urlLink } from './links.ts';
import { toParagraphs } from './paragraphs.ts';

export interface MentionLink {
  url: string;
  /** What follows '@' inside the link: `bob`, or `bob@remote.example` when ambiguous. */
  display: string;
}

export interface FormatOptions {
  /** The account a mention points at, or null to leave the mention as plain text. */
  resolveMention(username: string, domain: string | null): MentionLink | null;
  tagUrl(name: string): string;
}

export interface PlainFormatOptions {
  /** Profile field links: rel="nofollow noopener me". */
  relMe?: boolean;
  /**
   * Default true: paragraphs and line breaks. Mastodon formats profile field values
   * with multiline off: no <p>, newlines left as they are.
   */
  multiline?: boolean;
}

const REL = 'nofollow noopener';
const REL_ME = 'nofollow noopener me';

/** Newlines unified and the ends stripped (ASCII whitespace and NUL, as Mastodon strips them). */
function prepare(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/^[ \t\n\v\f\0]+|[ \t\n\v\f\0]+$/g, '');
}

/** Escaped text with each entity replaced by its HTML (or left as escaped text if null). */
function rewrite(text: string, entities: readonly TextEntity[], render: (entity: TextEntity) => string | null): string {
  let html = '';
  let at = 0;
  for (const entity of entities) {
    const source = text.slice(entity.start, entity.end);
    html += escapeHtml(text.slice(at, entity.start)) + (render(entity) ?? escapeHtml(source));
    at = entity.end;
  }
  return html + escapeHtml(text.slice(at));
}

/** A local post's text with URLs, hashtags and resolvable mentions linked. */
export function formatText(text: string, options: FormatOptions): string {
  const source = prepare(text);
  if (/^\s*$/u.test(source)) return '';
  const html = rewrite(source, extractEntities(source), (entity) => {
    switch (entity.kind) {
      case 'url':
        return urlLink(entity.url, REL);
      case 'hashtag':
        return hashtagLink(entity.name, options.tagUrl(entity.name));
      case 'mention': {
        const link = options.resolveMention(entity.username, entity.domain);
        return link === null ? null : mentionLink(link.url, link.display);
      }
    }
  });
  return toParagraphs(html);
}

/** Text with only URLs linked: profile field values and simple notes. */
export function formatPlain(text: string, options: PlainFormatOptions = {}): string {
  const source = prepare(text);
  if (/^\s*$/u.test(source)) return '';
  const rel = options.relMe === true ? REL_ME : REL;
  const urls = extractEntities(source).filter((entity) => entity.kind === 'url');
  const html = rewrite(source, urls, (entity) => (entity.kind === 'url' ? urlLink(entity.url, rel) : null));
  return options.multiline === false ? html : toParagraphs(html);
}
