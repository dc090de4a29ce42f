// The media of remote statuses: what a Note's attachments say (the file stays on its server),
// kept in the plugin's KV store under the status's id and shown in the status's
// media_attachments by a status decorator of the plugin's own. Bounded: at most 4 attachments,
// http(s) URLs only, descriptions cut at 1500 characters.

import { type Id, type MediaAttachment, type MediaType, renderMedia, type Status, type StatusDecorator } from 'rookery/plugin-kit';
import type { KvStore } from '@fedify/fedify';
import { Audio, Document, Image, Link, Video, type Object as APObject } from '@fedify/fedify/vocab';

export const MAX_REMOTE_MEDIA = 4;
const MAX_DESCRIPTION = 1500;
const MAX_URL = 2048;

export interface RemoteMedia {
  id: Id;
  type: MediaType;
  url: string;
  description: string | null;
  width: number | null;
  height: number | null;
  blurhash?: string | null;
  focus?: { x: number; y: number } | null;
}

const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,100}$/;

/** Mastodon's extensions of an attachment (toot:blurhash, toot:focalPoint), which Fedify's
 * vocabulary does not name: read as Mastodon reads them, by their keys in the JSON as it was
 * received (`raw`: the object's own document). */
function extrasOf(raw: unknown, url: string): { blurhash: string | null; focus: { x: number; y: number } | null } {
  const list = (raw as { attachment?: unknown } | null)?.attachment;
  const items = Array.isArray(list) ? list : list === undefined ? [] : [list];
  const item = items.find((entry) => {
    const href = (entry as { url?: unknown })?.url;
    return href === url || (typeof href === 'object' && href !== null && (href as { href?: unknown }).href === url);
  }) as { blurhash?: unknown; focalPoint?: unknown } | undefined;
  const blurhash = typeof item?.blurhash === 'string' && BLURHASH.test(item.blurhash) ? item.blurhash : null;
  const point = item?.focalPoint;
  const inRange = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= -1 && n <= 1;
  const focus = Array.isArray(point) && point.length === 2 && inRange(point[0]) && inRange(point[1]) ? { x: point[0], y: point[1] } : null;
  return { blurhash, focus };
}

/** The document an object was received as. An object embedded in an activity keeps no document
 * of its own (Fedify parses it from the expanded form), so it is read from the activity's as
 * it arrived (`received`, see receivedActivity in incoming.ts). */
async function receivedJson(object: APObject, received: unknown): Promise<unknown> {
  const embedded = (received as { object?: unknown } | null)?.object;
  if (typeof embedded === 'object' && embedded !== null && (embedded as { id?: unknown }).id === object.id?.href) return embedded;
  return object.toJsonLd().catch(() => null);
}

const key = (uri: string) => ['rookery', 'remote-media', uri] as const;

function httpUrl(value: unknown): string | null {
  const href = value instanceof URL ? value.href : value instanceof Link ? (value.href?.href ?? null) : null;
  if (href === null || href.length > MAX_URL || !/^https?:\/\//i.test(href)) return null;
  return href;
}

function typeOf(attachment: APObject, mediaType: string | null): MediaType {
  if (attachment instanceof Image || mediaType?.startsWith('image/')) return 'image';
  if (attachment instanceof Video || mediaType?.startsWith('video/')) return 'video';
  if (attachment instanceof Audio || mediaType?.startsWith('audio/')) return 'audio';
  return 'unknown';
}

function dimension(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 100_000 ? value : null;
}

/** The attachments of a remote Note, as far as they are usable; `received`: the JSON of the
 * activity that carried it, as it arrived. */
export async function remoteMediaOf(newId: () => Id, object: APObject, received: unknown = null): Promise<RemoteMedia[]> {
  const found: RemoteMedia[] = [];
  const json = await receivedJson(object, received);
  let seen = 0;
  for await (const attachment of object.getAttachments({ suppressError: true })) {
    if (found.length >= MAX_REMOTE_MEDIA || ++seen > 8 * MAX_REMOTE_MEDIA) break;
    if (!(attachment instanceof Document || attachment instanceof Image || attachment instanceof Video || attachment instanceof Audio)) continue;
    const url = httpUrl(attachment.url);
    if (url === null) continue;
    const mediaType = attachment.mediaType ?? null;
    const name = attachment.name === null ? null : String(attachment.name).slice(0, MAX_DESCRIPTION);
    const sized = attachment as { width?: unknown; height?: unknown };
    found.push({ id: newId(), type: typeOf(attachment, mediaType), url, description: name, width: dimension(sized.width), height: dimension(sized.height), ...extrasOf(json, url) });
  }
  return found;
}

/** Kept under the status's uri before the status is stored, so that its first rendering (the
 * streams') already shows them. */
export async function keepRemoteMedia(kv: KvStore, uri: string, media: readonly RemoteMedia[]): Promise<void> {
  if (media.length === 0) await kv.delete(key(uri));
  else await kv.set(key(uri), media);
}

function asAttachment(status: Status, media: RemoteMedia): MediaAttachment {
  const original = media.width !== null && media.height !== null ? { width: media.width, height: media.height } : null;
  return {
    id: media.id,
    accountId: status.accountId,
    statusId: status.id,
    type: media.type,
    url: media.url,
    previewUrl: media.type === 'image' ? media.url : null,
    remoteUrl: media.url,
    description: media.description,
    blurhash: media.blurhash ?? null,
    original,
    small: null,
    focus: media.focus ?? null,
    extra: {},
    processed: true,
    createdAt: status.createdAt,
  };
}

export function remoteMediaDecorator(kv: KvStore): StatusDecorator<Map<Id, RemoteMedia[]>> {
  return {
    async load(statuses) {
      const loaded = new Map<Id, RemoteMedia[]>();
      await Promise.all(
        statuses
          .filter((status) => !status.local && status.uri !== null)
          .map(async (status) => {
            const media = await kv.get<RemoteMedia[]>(key(status.uri ?? ''));
            if (Array.isArray(media) && media.length > 0) loaded.set(status.id, media);
          }),
      );
      return loaded;
    },
    render(status, loaded, json) {
      const media = loaded.get(status.id);
      if (media !== undefined) json.media_attachments = media.map((item) => renderMedia(asAttachment(status, item)));
    },
    searchable(status, loaded) {
      return (loaded.get(status.id) ?? []).map((item) => item.description ?? '');
    },
  };
}
