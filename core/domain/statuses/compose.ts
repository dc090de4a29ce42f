// What publish and edit share: reading the text parameters, resolving mentions and hashtags,
// rendering the HTML, and the validations of publishing
// (docs/behaviour.md, "Statuses and their transitions").

import type { Core } from '../context.ts';
import { resolveAccount } from '../remote/resolve.ts';
import { texts, unprocessable } from '../errors.ts';
import { tooLong } from '../lengths.ts';
import type { Account, Id } from '../model.ts';
import { bool, present, str, type Params } from '../params.ts';
import type { PublishDraft } from '../hooks.ts';
import { countStatusCharacters, extractEntities, formatText, normalizeTag, type MentionLink } from '../text/index.ts';
import { accountUrl, tagUrl } from '../urls.ts';

/** Publish parameters that only plugins handle, with the text used while none does. */
const PLUGIN_PARAMS: Record<string, string> = {
  media_ids: 'Validation failed: Media attachments are not supported by this server',
  poll: 'Validation failed: Polls are not supported by this server',
  scheduled_at: 'Validation failed: Scheduled posts are not supported by this server',
};

/** Refuses, with a clear 422, parameters that no plugin takes over: never ignored silently. */
export function refuseUnhandledParams(core: Core, params: Params, names: readonly string[]): void {
  for (const name of names) {
    if (present(params, name) && core.hooks.hookFor(name) === undefined) {
      throw unprocessable(PLUGIN_PARAMS[name] ?? `Validation failed: ${name} is not supported by this server`);
    }
  }
}

/** Runs the hooks that took over parameters present in the request, and on an edit every hook
 * that handles edits (it keeps, replaces or drops its part); returns a diversion. */
export async function runPublishHooks(core: Core, draft: PublishDraft, names: readonly string[]): Promise<{ divert: unknown } | null> {
  // In the order of `names` (a hook that diverts, scheduled_at, comes after those that validate).
  const rank = (params: readonly string[]) => Math.min(...params.map((p) => (names.includes(p) ? names.indexOf(p) : names.length)));
  const hooks = [...core.hooks.publishHooks].sort((a, b) => rank(a.params) - rank(b.params));
  for (const hook of hooks) {
    const asked = hook.params.some((name) => names.includes(name) && present(draft.params, name));
    if (!asked && !(draft.editing && hook.edits)) continue;
    const outcome = await hook.prepare(draft);
    if (outcome && 'divert' in outcome) return outcome;
  }
  return null;
}

export interface TextParts {
  text: string;
  spoilerText: string;
  sensitive: boolean;
}

/** status / spoiler_text / sensitive as Mastodon reads them: both texts trimmed; a warning makes
 * the post sensitive. A content warning never stands in for a blank status (Mastodon makes it
 * the text; the founding spec, which wins, requires `status` unless media are attached). */
export function readText(params: Params, defaultSensitive: boolean, current?: TextParts): TextParts {
  const text = (str(params, 'status') ?? current?.text ?? '').trim();
  const spoilerText = (str(params, 'spoiler_text') ?? current?.spoilerText ?? '').trim();
  let sensitive = bool(params, 'sensitive') ?? current?.sensitive ?? defaultSensitive;
  if (spoilerText !== '') sensitive = true;
  return { text, spoilerText, sensitive };
}

/** 422 when text and warning together are longer than limits.maxRawCharacters, however few
 * characters they count (every URL counts 23): checked as soon as they are read, before any
 * work is done on them, and again by validateText. */
export function checkRawLength(core: Core, parts: TextParts): void {
  const max = core.config.limits.maxRawCharacters;
  if (parts.text.length + parts.spoilerText.length > max) throw tooLong('Text', max);
}

/** 422s of the text: blank without media, too long raw, or over the character limit. */
export function validateText(core: Core, parts: TextParts, hasMedia: boolean): void {
  if (parts.text === '' && !hasMedia) throw unprocessable(texts.textBlank);
  checkRawLength(core, parts);
  const max = core.config.limits.maxCharacters;
  if (countStatusCharacters(parts.spoilerText, parts.text) > max) throw unprocessable(texts.textTooLong(max));
}

export interface Rendered {
  content: string;
  mentionIds: Id[];
  tags: string[];
}

/** Resolves @mentions to known accounts (local ones by username, remote ones by
 * username@domain), collects hashtags, and renders the HTML. */
/** Remote handles of one status looked up on their servers when not known here; they are
 * asked at once, so the whole takes at most one resolver timeout. */
export const MAX_MENTION_RESOLUTIONS = 5;

export async function renderText(core: Core, text: string): Promise<Rendered> {
  const entities = extractEntities(text);
  const resolved = new Map<string, Account>();
  const unknown = new Map<string, string>();
  for (const entity of entities) {
    if (entity.kind !== 'mention') continue;
    const domain = entity.domain === null || entity.domain.toLowerCase() === core.config.domain.toLowerCase() ? null : entity.domain;
    const key = `${entity.username}@${domain ?? ''}`.toLowerCase();
    if (resolved.has(key)) continue;
    const account = await core.storage.accounts.findByUsername(entity.username, domain);
    if (account) resolved.set(key, account);
    else if (domain !== null && core.hooks.resolver !== null && unknown.size < MAX_MENTION_RESOLUTIONS) unknown.set(key, `${entity.username}@${domain}`);
  }
  const found = await Promise.all([...unknown].map(async ([key, handle]) => [key, await resolveAccount(core, handle)] as const));
  for (const [key, account] of found) {
    if (account !== null && account.domain !== null) resolved.set(key, account);
  }
  const accounts = [...new Map([...resolved.values()].map((a) => [a.id, a])).values()];
  // The bare username is shown unless two mentioned accounts share it.
  const usernameCount = new Map<string, number>();
  for (const a of accounts) usernameCount.set(a.username.toLowerCase(), (usernameCount.get(a.username.toLowerCase()) ?? 0) + 1);
  const resolveMention = (username: string, domain: string | null): MentionLink | null => {
    const local = domain === null || domain.toLowerCase() === core.config.domain.toLowerCase();
    const account = resolved.get(`${username}@${local ? '' : domain}`.toLowerCase());
    if (!account) return null;
    const shared = (usernameCount.get(account.username.toLowerCase()) ?? 0) > 1;
    const display = shared && account.domain !== null ? `${account.username}@${account.domain}` : account.username;
    return { url: accountUrl(core.config, account), display };
  };
  const tags: string[] = [];
  for (const entity of entities) {
    if (entity.kind !== 'hashtag') continue;
    const name = normalizeTag(entity.name);
    if (name !== '' && !tags.includes(name)) tags.push(name);
  }
  const mentionIds: Id[] = [];
  for (const entity of entities) {
    if (entity.kind !== 'mention') continue;
    const link = resolveMention(entity.username, entity.domain);
    if (!link) continue;
    const domain = entity.domain === null || entity.domain.toLowerCase() === core.config.domain.toLowerCase() ? '' : entity.domain;
    const account = resolved.get(`${entity.username}@${domain}`.toLowerCase());
    if (account && !mentionIds.includes(account.id)) mentionIds.push(account.id);
  }
  // The link keeps the hashtag as typed (as Mastodon's do); `tags` holds normalized names.
  const content = formatText(text, { resolveMention, tagUrl: (name) => tagUrl(core.config, name) });
  return { content, mentionIds, tags };
}
