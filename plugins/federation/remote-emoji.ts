// The custom emoji of remote statuses and accounts: what the Emoji tags of a Note, Question or
// actor say (the picture stays on its server, like remote media), kept in the plugin's own
// repository under the object's uri and shown in the `emojis` of the status or account by a
// status decorator and an account decorator. Bounded: at most MAX_REMOTE_EMOJIS an object,
// shortcodes of letters, digits and _ (2 to 100), http(s) icon URLs of at most 2048
// characters, and only those whose :shortcode: the object's text uses. Nothing is fetched here:
// an Emoji that is only a link, or whose icon is, is skipped.

import type { Account, AccountDecorator, CustomEmojiJson, Id, Millis, PluginSystem, Status, StatusDecorator, StatusEdit } from 'rookery/plugin-kit';
import { Emoji, Image, Link, Question, type Object as APObject } from '@fedify/fedify/vocab';
import type { RemoteAccountInput } from './remote-api.ts';
import type { FederationRepository, KvKeyParts } from './storage/index.ts';

export const MAX_REMOTE_EMOJIS = 50;
const MAX_SHORTCODE = 100;
const MAX_URL = 2048;
const SHORTCODE = /^[a-zA-Z0-9_]{2,}$/;
/** Tags looked at, whatever their kind (mentions and hashtags share the list). */
const MAX_TAGS_SEEN = 4 * 64;
const MAX_OPTIONS_SEEN = 80;

export interface RemoteEmoji {
  shortcode: string;
  url: string;
}

/** The part of the plugin's repository the emojis live in. */
export type EmojiRepository = Pick<FederationRepository, 'kvGetMany' | 'kvSet' | 'kvDelete'>;

/** Handed to Fedify's getters so that they return embedded values only and never fetch. */
async function refuseFetch(url: string): Promise<never> {
  throw new Error(`remote emoji: not fetched: ${url}`);
}
const EMBEDDED_ONLY = { documentLoader: refuseFetch, suppressError: true } as const;

function httpUrl(value: unknown): string | null {
  const href = value instanceof URL ? value.href : value instanceof Link ? (value.href?.href ?? null) : null;
  if (href === null || href.length > MAX_URL || !/^https?:\/\//i.test(href)) return null;
  return href;
}

function shortcodeOf(name: unknown): string | null {
  const code = String(name ?? '').replace(/^:/, '').replace(/:$/, '');
  return code.length <= MAX_SHORTCODE && SHORTCODE.test(code) ? code : null;
}

/** The usable Emoji tags of `object` whose :shortcode: occurs in one of `texts`, each
 * shortcode once (the first tag naming it wins). */
export async function remoteEmojisOf(object: APObject, texts: readonly string[]): Promise<RemoteEmoji[]> {
  const found: RemoteEmoji[] = [];
  let seen = 0;
  for await (const tag of object.getTags(EMBEDDED_ONLY)) {
    if (found.length >= MAX_REMOTE_EMOJIS || ++seen > MAX_TAGS_SEEN) break;
    if (!(tag instanceof Emoji)) continue;
    const shortcode = shortcodeOf(tag.name);
    if (shortcode === null || found.some((emoji) => emoji.shortcode === shortcode)) continue;
    if (!texts.some((text) => text.includes(`:${shortcode}:`))) continue;
    const icon = await tag.getIcon(EMBEDDED_ONLY).catch(() => null);
    const url = icon instanceof Image ? httpUrl(icon.url) : null;
    if (url !== null) found.push({ shortcode, url });
  }
  return found;
}

/** What a Note's or Question's emojis may be used in: its content, its content warning and
 * (a Question) its options' names, as received. */
export async function statusTexts(object: APObject): Promise<string[]> {
  const texts = [String(object.content ?? ''), String(object.summary ?? '')];
  if (object instanceof Question) {
    const question = object;
    let seen = 0;
    for (const options of [question.getExclusiveOptions(EMBEDDED_ONLY), question.getInclusiveOptions(EMBEDDED_ONLY)]) {
      for await (const option of options) {
        if (++seen > MAX_OPTIONS_SEEN) break;
        if (option.name !== null) texts.push(String(option.name));
      }
    }
  }
  return texts;
}

/** What an actor's emojis may be used in: its name, bio and profile fields (as actorInput read
 * them). */
export function accountTexts(input: RemoteAccountInput): string[] {
  return [input.displayName, input.noteHtml, ...input.fields.flatMap((field) => [field.name, field.valueHtml])];
}

const statusKey = (uri: string): KvKeyParts => ['rookery', 'remote-emoji', 'status', uri];
const accountKey = (uri: string): KvKeyParts => ['rookery', 'remote-emoji', 'account', uri];

async function keep(repo: EmojiRepository, key: KvKeyParts, emojis: readonly RemoteEmoji[]): Promise<void> {
  if (emojis.length === 0) await repo.kvDelete(key);
  else await repo.kvSet(key, emojis, null);
}

/** Kept under the status's uri before the status is stored, so that its first rendering (the
 * streams') already shows them; an edit replaces them. */
export function keepStatusEmojis(repo: EmojiRepository, uri: string, emojis: readonly RemoteEmoji[]): Promise<void> {
  return keep(repo, statusKey(uri), emojis);
}

/** Kept under the actor's uri each time the actor is stored or updated. */
export function keepAccountEmojis(repo: EmojiRepository, uri: string, emojis: readonly RemoteEmoji[]): Promise<void> {
  return keep(repo, accountKey(uri), emojis);
}

/** A remote picture is never proxied or stilled here: the static URL is the same one. Not in
 * any picker of this instance. */
function asCustomEmoji(emoji: RemoteEmoji): CustomEmojiJson {
  return { shortcode: emoji.shortcode, url: emoji.url, static_url: emoji.url, visible_in_picker: false, category: null };
}

/** Values read back from the store: only well-formed ones are shown. */
function storedEmojis(value: unknown): RemoteEmoji[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  return value.filter((item): item is RemoteEmoji => typeof item?.shortcode === 'string' && typeof item?.url === 'string');
}

/** One read for the remote ones among `items` (none at all when every one is local). */
async function loadByUri<T>(repo: EmojiRepository, clock: { now(): Millis }, items: readonly T[], uriOf: (item: T) => string | null, keyOf: (uri: string) => KvKeyParts, idOf: (item: T) => Id): Promise<Map<Id, RemoteEmoji[]>> {
  const loaded = new Map<Id, RemoteEmoji[]>();
  const remote = items.filter((item) => uriOf(item) !== null);
  if (remote.length === 0) return loaded;
  const values = await repo.kvGetMany(remote.map((item) => keyOf(uriOf(item) ?? '')), clock.now());
  remote.forEach((item, i) => {
    const emojis = storedEmojis(values[i]);
    if (emojis !== null) loaded.set(idOf(item), emojis);
  });
  return loaded;
}

const usedIn = (emoji: RemoteEmoji, texts: readonly string[]) => texts.some((text) => text.includes(`:${emoji.shortcode}:`));

export function remoteStatusEmojiDecorator(repo: EmojiRepository, clock: { now(): Millis }, statuses: Pick<PluginSystem['statuses'], 'get'>): StatusDecorator<Map<Id, RemoteEmoji[]>> {
  const uriOf = (status: Status) => (status.local ? null : status.uri);
  return {
    load: (statuses) => loadByUri(repo, clock, statuses, uriOf, statusKey, (status) => status.id),
    render(status, loaded, json) {
      const emojis = loaded.get(status.id);
      if (emojis !== undefined) json.emojis = emojis.map(asCustomEmoji);
    },
    /** An edit lists the status's current emojis that its own text uses (the emojis of older
     * revisions are not kept). */
    async renderEdits(edits: readonly StatusEdit[], json) {
      const first = edits[0];
      if (first === undefined) return;
      const status = await statuses.get(first.statusId);
      if (status === null) return;
      const emojis = (await loadByUri(repo, clock, [status], uriOf, statusKey, (s) => s.id)).get(status.id);
      if (emojis === undefined) return;
      edits.forEach((edit, i) => {
        const entry = json[i];
        const texts = [edit.content, edit.spoilerText, ...(edit.pollOptions ?? [])];
        if (entry !== undefined) entry.emojis = emojis.filter((emoji) => usedIn(emoji, texts)).map(asCustomEmoji);
      });
    },
  };
}

export function remoteAccountEmojiDecorator(repo: EmojiRepository, clock: { now(): Millis }): AccountDecorator<Map<Id, RemoteEmoji[]>> {
  const uriOf = (account: Account) => (account.domain === null ? null : account.uri);
  return {
    covers: (account) => uriOf(account) !== null,
    load: (accounts) => loadByUri(repo, clock, accounts, uriOf, accountKey, (account) => account.id),
    render(account, loaded, json) {
      const emojis = loaded.get(account.id);
      if (emojis !== undefined) json.emojis = emojis.map(asCustomEmoji);
    },
  };
}
