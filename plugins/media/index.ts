// Media attachments (docs/behaviour.md, "Limits"): uploads through
// POST /api/v1/media (processed at once, 200) and /api/v2/media (202, processed by a job; GET
// answers 206 until it is done, then 200, or 422 when it failed, as Mastodon's does),
// GET/PUT /api/v1/media/:id (description, focus), media_ids on publish and edit with Mastodon's
// rules and texts, the attachments inlined on the Status (video and audio taken only when their
// container headers can be read, videos within the stated matrix and frame-rate limits), avatar
// and header images for update_credentials, files through a MediaStore (local disk by default,
// served here with their type and long-lived cache headers), and uploads left unattached
// removed after a day (a delayed job queued with the upload).
//
// Uploads arrive as UploadedFile: a transport that streams bodies keeps them in temporary files
// and stops reading one past the limit of its kind (uploads.ts tells it which), so that no
// upload is ever held whole in memory on its way in.

import {
  checkOptions,
  imagesService,
  isId,
  json,
  option,
  present,
  renderMedia,
  RookeryError,
  str,
  strArray,
  unprocessable,
  type ApiRequest,
  type ApiResponse,
  type Endpoint,
  type Id,
  type MediaAttachment,
  type OptionSpec,
  type Params,
  type RookeryPlugin,
} from 'rookery/plugin-kit';
import { DESCRIPTION_LIMIT, IMAGE_SIZE_LIMIT, mediaTexts, PROFILE_IMAGE_LIMIT, VIDEO_FRAME_RATE_LIMIT, VIDEO_MATRIX_LIMIT, VIDEO_SIZE_LIMIT } from './limits.ts';
import { ImageError, IMAGE_MATRIX_LIMIT, processImage, processPreview, processProfileImage, stillPng, type ImageInput } from './process.ts';
import { probeMedia } from './probe.ts';
import { sniff, SUPPORTED_MIME_TYPES, type SniffedKind } from './sniff.ts';
import { diskMediaStore, isMediaKey, MEDIA_PATH, memoryMediaStore, type MediaStore } from './store.ts';
import { mediaStorage } from './storage/index.ts';
import { fileParam, imageInput, kindOf, putUpload, uploadLimit } from './uploads.ts';

export { mediaStorage, type MediaPatch, type MediaRepository } from './storage/index.ts';
export { diskMediaStore, memoryMediaStore, type MediaStore, type StoredFile } from './store.ts';

export { DESCRIPTION_LIMIT, IMAGE_SIZE_LIMIT, mediaTexts, PROFILE_IMAGE_LIMIT, VIDEO_FRAME_RATE_LIMIT, VIDEO_MATRIX_LIMIT, VIDEO_SIZE_LIMIT } from './limits.ts';
const DAY = 86_400_000;
/** What a custom emoji's picture may be (as Mastodon: PNG, GIF, WebP). */
const EMOJI_FORMATS = new Set(['png', 'gif', 'webp']);

export interface MediaPluginOptions {
  /** Where files go. Default: `directory` on local disk, or memory when no directory is given. */
  store?: MediaStore;
  /** The local directory of the default store (the standalone instance: DATA_DIR/media). */
  directory?: string;
}

const WRITE = ['write', 'write:media'];
/** Tries before a processing job that keeps failing (a store that does not answer) gives up
 * and marks the upload failed. */
const PROCESS_ATTEMPTS = 8;
/** Room for the text fields around the file; each file's own limit by its kind. */
const UPLOAD_PAYLOAD = { maxBytes: VIDEO_SIZE_LIMIT + 1_048_576, fileLimit: (field: string, head: Uint8Array) => (field === 'file' ? uploadLimit(head) : null) };

/** A local upload whose processing failed: kept (so that GET answers why) until the cleanup
 * of unattached uploads removes it, never attachable. */
function failed(row: MediaAttachment): boolean {
  return !row.processed && row.type === 'unknown';
}

/** Mastodon's refusal of an image: its dimensions, its animation, or its bytes. */
function imageRefusal(error: ImageError): RookeryError {
  if (error.problem === 'too large') return unprocessable(mediaTexts.dimensions);
  if (error.problem === 'animation too large') return unprocessable(mediaTexts.animationTooLarge);
  return unprocessable(mediaTexts.notVerified);
}

/** "x,y" with each in −1..1 (clamped); null when absent or unreadable. */
function readFocus(value: string | undefined): { x: number; y: number } | null {
  if (value === undefined || !value.includes(',')) return null;
  const [x, y] = value.split(',').map((n) => Number(n.trim()));
  if (x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  const clamp = (n: number) => Math.max(-1, Math.min(1, n));
  return { x: clamp(x), y: clamp(y) };
}

function readDescription(params: Params): string | null | undefined {
  const value = str(params, 'description');
  if (value === undefined) return undefined;
  if (value.length > DESCRIPTION_LIMIT) throw unprocessable(mediaTexts.descriptionTooLong);
  return value === '' ? null : value;
}

const OPTIONS: OptionSpec = {
  store: option.implementing('a MediaStore (put, get, delete)', ['put', 'get', 'delete']),
  directory: option.nonEmptyString('a directory path'),
};

export function mediaPlugin(options: MediaPluginOptions = {}): RookeryPlugin {
  checkOptions('mediaPlugin', options, OPTIONS);
  return {
    name: 'media',
    register(host) {
      const media = host.storage(mediaStorage);
      const store = options.store ?? (options.directory ? diskMediaStore({ directory: options.directory, baseUrl: host.config.baseUrl }) : memoryMediaStore({ baseUrl: host.config.baseUrl }));

      /** Processes an image into the row's fields (its files stored). */
      const processUpload = async (id: Id, input: ImageInput, kind: SniffedKind): Promise<Partial<MediaAttachment>> => {
        let processed;
        try {
          processed = await processImage(input, kind.ext as 'jpg');
        } catch (error) {
          if (error instanceof ImageError) throw imageRefusal(error);
          throw error;
        }
        const url = await store.put(`${id}-original.${processed.original.ext}`, processed.original.data, processed.original.mime);
        const previewUrl = await store.put(`${id}-small.jpg`, processed.small.data, 'image/jpeg');
        return {
          type: 'image',
          url,
          previewUrl,
          original: processed.original.dimensions,
          small: processed.small.dimensions,
          blurhash: processed.blurhash,
          processed: true,
        };
      };

      // Pictures of other sites (preview cards'), kept beside the uploads.
      const pictureKey = (name: string) => {
        if (!/^[A-Za-z0-9_-]{1,100}$/.test(name)) throw new Error(`not a picture name: ${name}`);
        return `${name}.jpg`;
      };
      host.provide(imagesService, {
        async storePreview(name, data) {
          const key = pictureKey(name);
          let preview;
          try {
            preview = await processPreview(data);
          } catch (error) {
            if (error instanceof ImageError) return null;
            throw error;
          }
          const url = await store.put(key, preview.small.data, 'image/jpeg');
          return { url, ...preview.small.dimensions, blurhash: preview.blurhash };
        },
        removePreview: (name) => store.delete(pictureKey(name)),
        async storeEmoji(name, data) {
          pictureKey(name);
          const kind = sniff(data);
          if (kind === null || !EMOJI_FORMATS.has(kind.ext)) return null;
          let original, still;
          try {
            original = (await processImage(data, kind.ext as 'png')).original;
            still = await stillPng(original.data);
          } catch (error) {
            if (error instanceof ImageError) return null;
            throw error;
          }
          const url = await store.put(`${name}.${original.ext}`, original.data, original.mime);
          const staticUrl = await store.put(`${name}-static.png`, still, 'image/png');
          return { url, staticUrl };
        },
        async removeEmoji(name) {
          pictureKey(name);
          // Whichever format it was kept in.
          for (const key of [...[...EMOJI_FORMATS].map((ext) => `${name}.${ext}`), `${name}-static.png`]) await store.delete(key);
        },
      });

      const processJob = host.handleJob(
        'process',
        async (payload, job) => {
          const { id, key } = payload as { id: Id; key: string };
          const row = await media.get(id);
          if (row === null || row.processed || failed(row)) return;
          const upload = await store.get(key);
          const kind = upload === null ? null : sniff(upload.data);
          let fields: Partial<MediaAttachment> | null = null;
          let problem: unknown = kind === null ? 'the stored upload is gone or not an image' : null;
          if (upload !== null && kind !== null) {
            try {
              fields = await processUpload(id, upload.data, kind);
            } catch (error) {
              // A refusal is for good; anything else (a store failing) is tried again, but
              // never leaves the upload processing for ever.
              if (!(error instanceof RookeryError) && job.attempts + 1 < PROCESS_ATTEMPTS) throw error;
              problem = error;
            }
          }
          if (fields === null) {
            host.logger.warn({ media: id, err: problem }, 'an upload could not be processed');
            await media.update(id, { type: 'unknown' });
          } else {
            await media.update(id, fields);
          }
          await store.delete(key);
          // A large picture on a slow machine may take a while: as long as the job's lease
          // allows (each sharp pipeline has a shorter limit of its own).
        },
        { timeoutMs: 60_000, maxAttempts: PROCESS_ATTEMPTS },
      );
      const expireJob = host.handleJob('expire', async (payload) => {
        const { id } = payload as { id: Id };
        const row = await media.get(id);
        if (row === null || row.statusId !== null) return;
        if (await media.deleteUnattached(id)) await removeFiles(store, row);
      });

      /** An upload of POST /api/v1/media (now) or /api/v2/media (an image later, by a job). */
      const upload = async (request: ApiRequest, async: boolean): Promise<ApiResponse> => {
        const account = request.caller.account;
        if (account === null) throw new Error('the user guard lets no request through without an account');
        const params = { ...request.query, ...request.body };
        const file = fileParam(params, 'file');
        if (file === null || file.size === 0) throw unprocessable(mediaTexts.fileBlank);
        const kind = await kindOf(file);
        if (kind === null) throw unprocessable(mediaTexts.fileType);
        if (kind.kind === 'image' && file.size > IMAGE_SIZE_LIMIT) throw unprocessable(mediaTexts.imageTooBig);
        if (file.size > VIDEO_SIZE_LIMIT) throw unprocessable(mediaTexts.videoTooBig);
        const facts = kind.kind === 'image' ? null : await probeMedia(file, kind.ext);
        if (kind.kind !== 'image') {
          // Taken only when its container says what it holds; a video within the limits the
          // instance states as video_matrix_limit and video_frame_rate_limit (Mastodon's texts).
          if (facts === null) throw unprocessable(mediaTexts.notVerified);
          if (facts.width !== null && facts.height !== null && facts.width * facts.height > VIDEO_MATRIX_LIMIT) throw unprocessable(mediaTexts.videoDimensions(facts.width, facts.height));
          if (facts.frameRate !== null && facts.frameRate > VIDEO_FRAME_RATE_LIMIT) throw unprocessable(mediaTexts.videoFrameRate(facts.frameRate));
        }
        const description = readDescription(params) ?? null;
        const focus = readFocus(str(params, 'focus'));
        const id = host.newId();
        const now = host.clock.now();
        const row: MediaAttachment = {
          id, accountId: account.id, statusId: null, type: facts?.type ?? 'image', url: null, previewUrl: null, remoteUrl: null,
          description, blurhash: null, original: null, small: null, focus, extra: {}, processed: false, createdAt: now,
        };
        const expire = { name: expireJob, payload: { id }, runAt: now + DAY };
        if (async && facts === null) {
          const key = `${id}-upload.${kind.ext}`;
          await putUpload(store, key, file, kind.mime);
          await media.create(row, () => [{ name: processJob, payload: { id, key } }, expire]);
          return json(renderMedia(row), 202);
        }
        let fields: Partial<MediaAttachment>;
        if (facts === null) fields = await processUpload(id, await imageInput(file), kind);
        else {
          const url = await putUpload(store, `${id}-original.${kind.ext}`, file, kind.mime);
          const original = facts.width !== null && facts.height !== null ? { width: facts.width, height: facts.height } : null;
          const extra: Record<string, number> = {};
          if (facts.duration !== null) extra['duration'] = facts.duration;
          if (facts.frameRate !== null) extra['fps'] = facts.frameRate;
          fields = { url, original, extra, processed: true };
        }
        const done = { ...row, ...fields };
        await media.create(done, () => [expire]);
        return json(renderMedia(done));
      };

      const own = async (request: ApiRequest): Promise<MediaAttachment> => {
        const id = request.params['id'] ?? '';
        const row = isId(id) ? await media.get(id) : null;
        if (row === null || row.accountId !== request.caller.account?.id) throw new RookeryError(404, 'Record not found');
        if (failed(row)) throw unprocessable(mediaTexts.processingFailed);
        return row;
      };

      const endpoints: Endpoint[] = [
        { method: 'POST', path: '/api/v1/media', auth: 'user', scopes: WRITE, payload: UPLOAD_PAYLOAD, handle: (request) => upload(request, false) },
        { method: 'POST', path: '/api/v2/media', auth: 'user', scopes: WRITE, payload: UPLOAD_PAYLOAD, handle: (request) => upload(request, true) },
        {
          method: 'GET',
          path: '/api/v1/media/:id',
          auth: 'user',
          scopes: WRITE,
          handle: async (request) => {
            const row = await own(request);
            // Mastodon shows only media not yet attached to a status.
            if (row.statusId !== null) throw new RookeryError(404, 'Record not found');
            return json(renderMedia(row), row.processed ? 200 : 206);
          },
        },
        {
          method: 'PUT',
          path: '/api/v1/media/:id',
          auth: 'user',
          scopes: WRITE,
          handle: async (request) => {
            const row = await own(request);
            const params = { ...request.query, ...request.body };
            const description = readDescription(params);
            const focus = readFocus(str(params, 'focus'));
            const patch: Partial<MediaAttachment> = {};
            if (description !== undefined) patch.description = description;
            if (focus !== null) patch.focus = focus;
            const updated = (await media.update(row.id, patch)) ?? row;
            return json(renderMedia(updated), updated.processed ? 200 : 206);
          },
        },
        {
          method: 'GET',
          path: `${MEDIA_PATH}/:key`,
          auth: 'public',
          scopes: [],
          handle: async (request) => {
            const key = request.params['key'] ?? '';
            const file = isMediaKey(key) ? await store.get(key) : null;
            if (file === null) throw new RookeryError(404, 'Not Found');
            return { status: 200, type: 'binary', body: file.data, headers: { 'content-type': file.contentType, 'cache-control': 'public, max-age=31536000, immutable' } };
          },
        },
      ];
      for (const endpoint of endpoints) host.addEndpoint(endpoint);

      host.onPublish({
        params: ['media_ids'],
        edits: true,
        async prepare(draft) {
          const asked = Object.hasOwn(draft.params, 'media_ids');
          // An edit without media_ids has no media (as editing on Mastodon has it).
          const ids = asked ? (strArray(draft.params, 'media_ids') ?? []) : [];
          if (ids.length === 0) {
            if (draft.editing) draft.mediaIds = [];
            return;
          }
          if (ids.length > host.config.limits.maxMediaAttachments || present(draft.params, 'poll')) throw unprocessable(mediaTexts.tooMany);
          const unique = [...new Set(ids)];
          const found = await media.getMany(unique.filter(isId));
          // Media of a deleted status of the author's are free again: delete and redraft.
          const elsewhere = [...new Set(found.flatMap((m) => (m.statusId !== null && m.statusId !== draft.statusId ? [m.statusId] : [])))];
          const live = new Set((await host.system.statuses.getMany(elsewhere)).map((s) => s.id));
          const released = elsewhere.filter((id) => !live.has(id));
          const usable = new Map(
            found.filter((m) => m.accountId === draft.account.id && (m.statusId === null || m.statusId === draft.statusId || released.includes(m.statusId))).map((m) => [m.id, m]),
          );
          const missing = unique.filter((id) => !usable.has(id));
          if (missing.length > 0) throw unprocessable(mediaTexts.notFound(missing));
          const items = unique.map((id) => usable.get(id) as MediaAttachment);
          if (items.length > 1 && items.some((m) => m.type === 'video' || m.type === 'audio' || m.type === 'gifv')) throw unprocessable(mediaTexts.videoWithImages);
          if (items.some((m) => !m.processed)) throw unprocessable(mediaTexts.notReady);
          if (draft.editing && unique.join() === draft.mediaIds.join()) return;
          draft.mediaIds = unique;
          draft.writes.push(media.attach(draft.account.id, draft.statusId, unique, released));
        },
      });

      host.decorateStatuses<Map<Id, MediaAttachment>>({
        async load(statuses) {
          const ids = [...new Set(statuses.flatMap((s) => s.mediaIds))];
          return ids.length === 0 ? new Map() : new Map((await media.getMany(ids)).map((m) => [m.id, m]));
        },
        render(status, loaded, json) {
          json.media_attachments = status.mediaIds.flatMap((id) => {
            const item = loaded.get(id);
            return item ? [renderMedia(item)] : [];
          });
        },
        searchable(status, loaded) {
          return status.mediaIds.map((id) => loaded.get(id)?.description ?? '');
        },
        async renderEdits(edits, entries) {
          const ids = [...new Set(edits.flatMap((e) => e.mediaIds))];
          if (ids.length === 0) return;
          const byId = new Map((await media.getMany(ids)).map((m) => [m.id, m]));
          edits.forEach((edit, i) => {
            const entry = entries[i];
            if (entry) entry.media_attachments = edit.mediaIds.flatMap((id) => (byId.has(id) ? [renderMedia(byId.get(id) as MediaAttachment)] : []));
          });
        },
      });

      // A replaced avatar or header: its file goes once the edit committed (a job recorded
      // with the profile write), unless the account shows it again by then.
      const removeProfileFile = host.handleJob('remove-profile-file', async (payload) => {
        const { accountId, url } = payload as { accountId: Id; url: string };
        const account = await host.accounts.get(accountId);
        if (account !== null && (account.avatarUrl === url || account.headerUrl === url)) return;
        const key = url.slice(url.lastIndexOf('/') + 1);
        if (isMediaKey(key) && key.startsWith(`${accountId}-`)) await store.delete(key);
      });

      // A deleted account: its uploads (attached or not) and their files go, a batch per run,
      // then its avatar and header files (the event carries the account as it was).
      const purgeJob = host.handleJob('purge-account', async (payload) => {
        const { accountId, images } = payload as { accountId: Id; images: string[] };
        for (let batch = 0; batch < 10; batch += 1) {
          const rows = await media.deleteOfAccount(accountId, 100);
          for (const row of rows) await removeFiles(store, row);
          if (rows.length < 100) {
            for (const url of images) {
              const key = url.slice(url.lastIndexOf('/') + 1);
              if (isMediaKey(key) && key.startsWith(`${accountId}-`)) await store.delete(key);
            }
            return;
          }
        }
        await host.enqueue([{ name: purgeJob, payload, orderingKey: `purge-account:${accountId}` }]);
      });
      host.on('account.deleted', async ({ account }) => {
        const images = [account.avatarUrl, account.headerUrl].filter((url): url is string => url !== null);
        await host.enqueue([{ name: purgeJob, payload: { accountId: account.id, images }, orderingKey: `purge-account:${account.id}` }]);
      });

      host.onProfileUpdate({
        params: ['avatar', 'header'],
        maxBytes: 2 * PROFILE_IMAGE_LIMIT,
        fileLimit: (param) => ({ maxBytes: PROFILE_IMAGE_LIMIT, refusal: profileRefusal(param, 'tooBig') }),
        async prepare(draft) {
          // A removed image: its file goes once the edit committed.
          for (const param of draft.cleared ?? []) {
            const previous = param === 'avatar' ? draft.account.avatarUrl : draft.account.headerUrl;
            if (previous !== null) draft.jobs.push({ name: removeProfileFile, payload: { accountId: draft.account.id, url: previous } });
          }
          for (const [param, width, height] of [['avatar', 400, 400], ['header', 1500, 500]] as const) {
            if (!present(draft.params, param)) continue;
            const file = fileParam(draft.params, param);
            if (file === null) throw profileRefusal(param, 'type');
            if (file.size > PROFILE_IMAGE_LIMIT) throw profileRefusal(param, 'tooBig');
            const kind = await kindOf(file);
            if (kind === null || kind.kind !== 'image') throw profileRefusal(param, 'type');
            let image: Uint8Array;
            try {
              image = await processProfileImage(await imageInput(file), width, height);
            } catch {
              throw profileRefusal(param, 'type');
            }
            const url = await store.put(`${draft.account.id}-${param}-${host.newId()}.png`, image, 'image/png');
            const previous = param === 'avatar' ? draft.account.avatarUrl : draft.account.headerUrl;
            if (param === 'avatar') draft.patch.avatarUrl = url;
            else draft.patch.headerUrl = url;
            if (previous !== null) draft.jobs.push({ name: removeProfileFile, payload: { accountId: draft.account.id, url: previous } });
          }
        },
      });

      host.configureInstance('media_attachments', {
        supported_mime_types: SUPPORTED_MIME_TYPES,
        description_limit: DESCRIPTION_LIMIT,
        image_size_limit: IMAGE_SIZE_LIMIT,
        image_matrix_limit: IMAGE_MATRIX_LIMIT,
        video_size_limit: VIDEO_SIZE_LIMIT,
        video_frame_rate_limit: VIDEO_FRAME_RATE_LIMIT,
        video_matrix_limit: VIDEO_MATRIX_LIMIT,
      });
    },
  };
}

/** What update_credentials refuses an avatar or header with, as Mastodon's
 * ValidationErrorFormatter reports an attachment's validations. */
function profileRefusal(param: string, problem: 'tooBig' | 'type'): RookeryError {
  const field = param === 'avatar' ? 'Avatar' : 'Header';
  const [text, code] = problem === 'tooBig' ? [mediaTexts.profileTooBig(field), 'ERR_LESS_THAN'] : [mediaTexts.profileType(field), 'ERR_INVALID'];
  return new RookeryError(422, text, { details: { [param]: [{ error: code, description: text.slice(`Validation failed: ${field} `.length) }] } });
}

async function removeFiles(store: MediaStore, row: MediaAttachment): Promise<void> {
  for (const url of [row.url, row.previewUrl]) {
    if (url === null) continue;
    const key = url.slice(url.lastIndexOf('/') + 1);
    if (isMediaKey(key)) await store.delete(key);
  }
}

