// Mentions as Mastodon 4.x finds them: `@user` or `@user@domain` not preceded by a word
// character, and not followed by what would make it part of something else (another `@`,
// or `://`).

import type { MentionEntity } from './entity-types.ts';
import { WORD } from './unicode.ts';

// Usernames start and end with [a-z0-9_]; dots and dashes only inside. ASCII spelled out:
// with the `i` flag JS would also accept 'ſ' and the Kelvin sign.
const USERNAME = String.raw`[A-Za-z0-9_]+(?:[.\-]+[A-Za-z0-9_]+)*`;
const DOMAIN = String.raw`[${WORD}]+(?:[.\-]+[${WORD}]+)*`;

// Not after a word character, '/' (URL paths) or '=' (query strings): foo@bar.com is no mention.
// A domain may carry a port (`@alice@localhost:3000`): an instance's domain is its host and
// port when it has one, as two instances on one machine have.
const MENTION = new RegExp(String.raw`(?<![=/${WORD}])@(${USERNAME})(?:@(${DOMAIN}(?::\d{1,5}(?![\d${WORD}]))?))?`, 'gu');

// A match followed by another at sign, a Latin letter with accent (the username would be
// cut short) or '://' is not a mention at all.
const BAD_FOLLOWER =
  /^(?:[@＠\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0253\u0254\u0256\u0257\u0259\u025B\u0263\u0268\u026F\u0272\u0289\u028B\u02BB\u0300-\u036F\u1E00-\u1EFF]|:\/\/)/u;

// Mastodon skips mentions whose domain could not be a DNS name.
const MAX_DOMAIN_LENGTH = 253;

export function findMentions(text: string): MentionEntity[] {
  if (!text.includes('@')) return [];
  const found: MentionEntity[] = [];
  for (const match of text.matchAll(MENTION)) {
    const start = match.index;
    const end = start + match[0].length;
    const username = match[1] ?? '';
    const domain = match[2] ?? null;
    if (BAD_FOLLOWER.test(text.slice(end, end + 3))) continue;
    if (domain !== null && domain.length > MAX_DOMAIN_LENGTH) continue;
    found.push({ kind: 'mention', username, domain, start, end });
  }
  return found;
}
