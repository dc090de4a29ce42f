// Local accounts and statuses as ActivityStreams objects: the actor document (Person, or
// Service for bots) and a status as a Note (a Question when it carries a poll), with the
// audience of its visibility, its mentions and hashtags as tags and its media as attachments.
// Rendered from what the client API renders (presentAccounts/presentStatus, plugins' parts
// included), so that both say the same thing.

import { accountUri, statusUri, statusUrl, type Account, type CustomEmojiJson, type PluginHost, type Status, type StatusJson } from 'rookery/plugin-kit';
import { Temporal } from '@js-temporal/polyfill';
import type { Context } from '@fedify/fedify';
import {
  Collection,
  Emoji,
  Endpoints,
  Hashtag,
  Image,
  Mention,
  Note,
  Person,
  PropertyValue,
  PUBLIC_COLLECTION,
  Question,
  Service,
} from '@fedify/fedify/vocab';
import { MediaDocument, NoteWithMedia } from './media-terms.ts';
import { noteQuoteValues } from './quote-objects.ts';

export function instant(ms: number): globalThis.Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(ms) as unknown as globalThis.Temporal.Instant;
}

function isoInstant(iso: string): globalThis.Temporal.Instant {
  return instant(Date.parse(iso));
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif' };
const OTHER_TYPES: Record<string, string> = { mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg', ogg: 'audio/ogg', m4a: 'audio/mp4', wav: 'audio/wav' };

function mediaTypeOf(url: string): string | null {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return IMAGE_TYPES[ext] ?? OTHER_TYPES[ext] ?? null;
}

/** This instance's custom emoji a text uses, as Mastodon sends them: Emoji tags named
 * :shortcode:, with their picture as icon. The id names the shortcode; a replaced emoji has a
 * new picture URL, which receivers take as the change. */
function emojiTags(host: PluginHost, emojis: readonly CustomEmojiJson[]): Emoji[] {
  return emojis.map((emoji) => {
    const mediaType = mediaTypeOf(emoji.url);
    return new Emoji({
      id: new URL(`${host.config.baseUrl}/emojis/${emoji.shortcode}`),
      name: `:${emoji.shortcode}:`,
      icon: new Image({ url: new URL(emoji.url), ...(mediaType ? { mediaType } : {}) }),
    });
  });
}

export async function actorOf(ctx: Context<PluginHost>, host: PluginHost, account: Account, keys: readonly { cryptographicKey: unknown; multikey: unknown }[]) {
  const [json] = await host.present.accounts([account.id]);
  if (json === undefined) return null;
  const identifier = account.username;
  // Where it moved (Mastodon's movedTo) and the accounts it also is (alsoKnownAs: what a Move
  // to it is checked against).
  const movedTo = account.movedToAccountId === null ? null : await host.system.accounts.get(account.movedToAccountId);
  const image = (url: string) => {
    const mediaType = mediaTypeOf(url);
    return new Image({ url: new URL(url), ...(mediaType ? { mediaType } : {}) });
  };
  const values = {
    id: ctx.getActorUri(identifier),
    preferredUsername: account.username,
    name: json.suspended === true ? '' : account.displayName,
    summary: json.note,
    url: new URL(json.url),
    published: isoInstant(json.created_at),
    manuallyApprovesFollowers: account.locked,
    discoverable: account.discoverable,
    inbox: ctx.getInboxUri(identifier),
    outbox: ctx.getOutboxUri(identifier),
    followers: ctx.getFollowersUri(identifier),
    following: ctx.getFollowingUri(identifier),
    featured: ctx.getFeaturedUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    icon: image(json.avatar),
    image: image(json.header),
    attachments: json.fields.map((field) => new PropertyValue({ name: field.name, value: field.value })),
    tags: emojiTags(host, json.emojis),
    publicKey: keys[0]?.cryptographicKey as never,
    assertionMethods: keys.map((key) => key.multikey) as never,
    // A suspended account's actor says so (toot:suspended), and other servers suspend it too;
    // its rendering (json) is blanked already.
    ...(json.suspended === true ? { suspended: true, manuallyApprovesFollowers: false, discoverable: false } : {}),
    aliases: account.alsoKnownAs.flatMap((uri) => (URL.canParse(uri) ? [new URL(uri)] : [])),
    ...(movedTo === null ? {} : { successor: new URL(accountUri(host.config, movedTo)) }),
  };
  return account.bot ? new Service(values) : new Person(values);
}

/** The addressing of a status of this visibility (Mastodon's): who it is to and who is cc'd. */
export function audienceOf(ctx: Context<PluginHost>, author: Account, visibility: Status['visibility'], mentioned: readonly URL[]): { tos: URL[]; ccs: URL[] } {
  const followers = ctx.getFollowersUri(author.username);
  switch (visibility) {
    case 'public':
      return { tos: [PUBLIC_COLLECTION], ccs: [followers, ...mentioned] };
    case 'unlisted':
      return { tos: [followers], ccs: [PUBLIC_COLLECTION, ...mentioned] };
    case 'private':
      return { tos: [followers], ccs: [...mentioned] };
    case 'direct':
      return { tos: [...mentioned], ccs: [] };
  }
}

export interface RenderedNote {
  object: Note | Question;
  /** The remote accounts the status mentions (who must get it besides followers). */
  mentioned: Account[];
}

/** A local status (not a boost) as a Note, or a Question with its poll. */
export async function noteOf(ctx: Context<PluginHost>, host: PluginHost, status: Status, author: Account, json?: StatusJson): Promise<RenderedNote> {
  const shown = json ?? (await host.present.status(status, author));
  const mentioned = await host.system.accounts.getMany(status.mentionIds);
  const mentionUris = mentioned.map((account) => new URL(accountUri(host.config, account)));
  const { tos, ccs } = audienceOf(ctx, author, status.visibility, mentionUris);
  let replyTarget: URL | null = null;
  if (status.inReplyToId !== null) {
    const parent = await host.system.statuses.get(status.inReplyToId);
    const parentAuthor = parent === null ? null : await host.system.accounts.get(parent.accountId);
    if (parent !== null && parentAuthor !== null) replyTarget = new URL(statusUri(host.config, parent, parentAuthor));
  }
  const tags = [
    ...mentioned.map((account, i) => new Mention({ href: mentionUris[i] ?? null, name: `@${account.username}@${account.domain ?? host.config.domain}` })),
    ...shown.tags.map((tag) => new Hashtag({ href: new URL(tag.url), name: `#${tag.name}` })),
    ...emojiTags(host, shown.emojis),
  ];
  const attachments = shown.media_attachments.flatMap((media) => {
    if (media.url === null) return [];
    const meta = media.meta as { original?: { width?: number; height?: number }; focus?: { x?: unknown; y?: unknown } };
    const original = meta.original;
    const { x, y } = meta.focus ?? {};
    const mediaType = mediaTypeOf(media.url);
    const values = {
      url: new URL(media.url),
      ...(mediaType ? { mediaType } : {}),
      ...(media.description ? { name: media.description } : {}),
      ...(original?.width ? { width: original.width } : {}),
      ...(original?.height ? { height: original.height } : {}),
    };
    const focus = typeof x === 'number' && typeof y === 'number' ? ([x, y] as const) : null;
    return [MediaDocument.of(values, { blurhash: media.blurhash || null, focus })];
  });
  const values = {
    id: new URL(statusUri(host.config, status, author)),
    attribution: ctx.getActorUri(author.username),
    url: new URL(statusUrl(host.config, status, author)),
    content: status.content,
    summary: status.spoilerText === '' ? null : status.spoilerText,
    sensitive: status.sensitive,
    published: instant(status.createdAt),
    ...(status.editedAt !== null ? { updated: instant(status.editedAt) } : {}),
    replyTarget,
    tos,
    ccs,
    tags,
    attachments,
    ...(await noteQuoteValues(ctx, host, status, author)),
  };
  const poll = shown.poll as null | { expires_at: string | null; expired: boolean; multiple: boolean; voters_count: number | null; options: { title: string; votes_count: number | null }[] };
  if (poll === null) return { object: new NoteWithMedia(values), mentioned: mentioned.filter((account) => account.domain !== null) };
  const options = poll.options.map((option) => new Note({ name: option.title, replies: new Collection({ totalItems: option.votes_count ?? 0 }) }));
  const question = new Question({
    ...values,
    ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    ...(poll.expires_at ? { endTime: isoInstant(poll.expires_at) } : {}),
    // An ended poll says when it closed (Mastodon's), so that a server that missed its end sees it.
    ...(poll.expired && poll.expires_at ? { closed: isoInstant(poll.expires_at) } : {}),
    ...(poll.voters_count !== null ? { voters: poll.voters_count } : {}),
  });
  return { object: question, mentioned: mentioned.filter((account) => account.domain !== null) };
}
