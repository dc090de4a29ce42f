// The HTML Mastodon writes for each entity (TextFormatter). Every value is escaped here.

import { escapeHtml } from './escape.ts';

// Case-sensitive, like Mastodon's URL_PREFIX_REGEX: an "HTTPS://" URL shows its scheme.
const HIDDEN_PREFIX = /^(?:https?:\/\/(?:www\.)?|xmpp:)/;
const VISIBLE_LENGTH = 30;

/**
 * A shortened link: the scheme (and www.) hidden, 30 characters shown, the rest hidden
 * behind an ellipsis. A single leftover character is shown rather than elided.
 * Lengths are code points, as in Ruby.
 */
export function urlLink(url: string, rel: string): string {
  const prefix = HIDDEN_PREFIX.exec(url)?.[0] ?? '';
  const rest = Array.from(url.slice(prefix.length));
  let shown = rest.slice(0, VISIBLE_LENGTH).join('');
  let hidden = rest.slice(VISIBLE_LENGTH).join('');
  if (rest.length === VISIBLE_LENGTH + 1) {
    shown += hidden;
    hidden = '';
  }
  const shownClass = hidden === '' ? '' : 'ellipsis';
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${shownClass}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

export function hashtagLink(name: string, href: string): string {
  return `<a href="${escapeHtml(href)}" class="mention hashtag" rel="tag">#<span>${escapeHtml(name)}</span></a>`;
}

export function mentionLink(href: string, display: string): string {
  return (
    `<span class="h-card" translate="no"><a href="${escapeHtml(href)}" class="u-url mention">` +
    `@<span>${escapeHtml(display)}</span></a></span>`
  );
}
