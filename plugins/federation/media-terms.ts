// Mastodon's two extensions of an attachment, toot:blurhash and toot:focalPoint, are not in
// Fedify's vocabulary, and Fedify drops what its vocabulary does not name when it serialises.
// MediaDocument puts them back into its expanded form. Compaction then writes them under
// prefixed names ("toot:blurhash"), while Mastodon reads them by their plain keys
// ("blurhash", "focalPoint": [x, y]). So the objects we send or serve at the top (Create,
// Update, Note; a poll carries no media) rename them after compaction and add the two term
// definitions to their @context: the JSON-LD says the same, and Mastodon finds its keys.
// Signatures stay valid: the proof and the HTTP/LD signatures are all made over this output.

import { Create, Document, Note, Update } from '@fedify/fedify/vocab';

const TOOT = 'http://joinmastodon.org/ns#';
const TERMS = { toot: TOOT, blurhash: 'toot:blurhash', focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' } } as const;

type DocumentValues = ConstructorParameters<typeof Document>[0];
type JsonLdOptions = Parameters<Document['toJsonLd']>[0];

export interface MediaExtras {
  blurhash: string | null;
  /** Mastodon's focal point: x and y from -1 to 1. */
  focus: readonly [number, number] | null;
}

const NONE: MediaExtras = { blurhash: null, focus: null };

export class MediaDocument extends Document {
  #extras: MediaExtras = NONE;

  static of(values: DocumentValues, extras: MediaExtras): MediaDocument {
    const document = new MediaDocument(values);
    document.#extras = extras;
    return document;
  }

  override clone(values: DocumentValues = {}, options?: Parameters<Document['clone']>[1]): MediaDocument {
    const copy = super.clone(values, options) as MediaDocument;
    copy.#extras = this.#extras;
    return copy;
  }

  // Compacted on its own, a document would lose the extras: it is always expanded and
  // compacted by the object it belongs to.
  override isCompactable(): boolean {
    return false;
  }

  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    const result = await super.toJsonLd(options);
    const node = options?.format === 'expand' && Array.isArray(result) ? (result[0] as Record<string, unknown> | undefined) : undefined;
    if (node === undefined) return result;
    const { blurhash, focus } = this.#extras;
    if (blurhash !== null) node[`${TOOT}blurhash`] = [{ '@value': blurhash }];
    if (focus !== null) node[`${TOOT}focalPoint`] = [{ '@list': focus.map((value) => ({ '@value': value })) }];
    return result;
  }
}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Renames the prefixed extras of the attachments of `node`; true when any was there. */
function renameIn(node: unknown): boolean {
  if (!isJson(node)) return false;
  const list = node['attachment'];
  let renamed = false;
  for (const item of Array.isArray(list) ? list : [list]) {
    if (!isJson(item)) continue;
    if ('toot:blurhash' in item) {
      item['blurhash'] = item['toot:blurhash'];
      delete item['toot:blurhash'];
      renamed = true;
    }
    const point = item['toot:focalPoint'];
    if (isJson(point) && Array.isArray(point['@list'])) {
      item['focalPoint'] = point['@list'];
      delete item['toot:focalPoint'];
      renamed = true;
    }
  }
  return renamed;
}

/** The compacted JSON of a Note, or of an activity carrying one, with Mastodon's
 * keys for the attachment extras. */
function withMediaTerms(json: unknown, options: JsonLdOptions): unknown {
  if (options?.format === 'expand' || !isJson(json)) return json;
  const renamed = [renameIn(json), renameIn(json['object'])].some(Boolean);
  if (!renamed) return json;
  const context = json['@context'];
  json['@context'] = [...(Array.isArray(context) ? context : context === undefined ? [] : [context]), TERMS];
  return json;
}

export class NoteWithMedia extends Note {
  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    return withMediaTerms(await super.toJsonLd(options), options);
  }
}

export class CreateWithMedia extends Create {
  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    return withMediaTerms(await super.toJsonLd(options), options);
  }
}

export class UpdateWithMedia extends Update {
  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    return withMediaTerms(await super.toJsonLd(options), options);
  }
}
