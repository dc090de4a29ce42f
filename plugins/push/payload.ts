// What a Web Push message says: the JSON Mastodon clients decrypt and read (their service
// worker or notification extension) — which account it is for (the access token it was
// subscribed with), which notification, and a title and body to show before they fetch it.

import type { NotificationJson } from 'rookery/plugin-kit';

export interface PushPayload {
  access_token: string;
  preferred_locale: string;
  /** A string: Rookery's ids exceed what a JavaScript number holds exactly, and web clients
   * fetch /api/v1/notifications/<notification_id> with it (docs/behaviour.md, "Web Push"). */
  notification_id: string;
  notification_type: string;
  icon: string;
  title: string;
  body: string;
}

/** How many characters of the text the body keeps. */
export const BODY_LENGTH = 140;

const TITLES: Record<string, (name: string) => string> = {
  mention: (name) => `${name} mentioned you`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  follow: (name) => `${name} followed you`,
  follow_request: (name) => `${name} asked to follow you`,
  favourite: (name) => `${name} favourited your post`,
  poll: (name) => `A poll by ${name} has ended`,
  update: (name) => `${name} edited a post`,
  quote: (name) => `${name} quoted your post`,
  quoted_update: (name) => `${name} edited a post you quoted`,
  'admin.sign_up': (name) => `${name} signed up`,
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of an HTML fragment as a person reads it: breaks and paragraphs become spaces,
 * tags go, entities are decoded. Not HTML any more: clients show it as plain text. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>\s*<p>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

export function truncate(text: string, length = BODY_LENGTH): string {
  const chars = Array.from(text);
  return chars.length <= length ? text : `${chars.slice(0, length - 1).join('')}…`;
}

/** The payload for one rendered notification (as its recipient sees it). The body is the
 * status's content warning, else its text, else (follows) the sender's bio. */
export function pushPayload(notification: NotificationJson, accessToken: string, locale: string): PushPayload {
  const sender = notification.account;
  const name = sender.display_name.trim() === '' ? sender.username : sender.display_name;
  const status = notification.status;
  const source = status === undefined ? sender.note : status.spoiler_text !== '' ? status.spoiler_text : (status.content ?? '');
  return {
    access_token: accessToken,
    preferred_locale: locale,
    notification_id: notification.id,
    notification_type: notification.type,
    icon: sender.avatar_static,
    title: (TITLES[notification.type] ?? ((n: string) => `${n}: ${notification.type}`))(name),
    body: truncate(plainText(source)),
  };
}
