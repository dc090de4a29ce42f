import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import { type Id, type MediaAttachment, StorageConflict } from 'rookery/plugin-kit';
import type { MediaPatch, MediaRepository } from './port.ts';

export const MEDIA_COLLECTION = 'media_attachments';

/** Attachment by status, and the unattached ones (statusId null) by age. */
export const MEDIA_INDEXES: readonly IndexDefinition[] = [{ collection: MEDIA_COLLECTION, name: 'media_attachments_status', key: { statusId: 1, createdAt: 1, num: 1 } }];

const PATCH_FIELDS = ['description', 'focus', 'url', 'previewUrl', 'blurhash', 'original', 'small', 'extra', 'processed', 'type'] as const satisfies readonly (keyof MediaPatch)[];

export function mediaDoc(m: MediaAttachment, num: (id: Id) => unknown): MongoDoc {
  return {
    _id: m.id,
    num: num(m.id),
    accountId: m.accountId,
    statusId: m.statusId,
    type: m.type,
    url: m.url,
    previewUrl: m.previewUrl,
    remoteUrl: m.remoteUrl,
    description: m.description,
    blurhash: m.blurhash,
    original: m.original,
    small: m.small,
    focus: m.focus,
    extra: m.extra,
    processed: m.processed,
    createdAt: m.createdAt,
  };
}

export function mediaFromDoc(d: MongoDoc): MediaAttachment {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    statusId: d['statusId'] as Id | null,
    type: d['type'] as MediaAttachment['type'],
    url: d['url'] as string | null,
    previewUrl: d['previewUrl'] as string | null,
    remoteUrl: d['remoteUrl'] as string | null,
    description: d['description'] as string | null,
    blurhash: d['blurhash'] as string | null,
    original: d['original'] as MediaAttachment['original'],
    small: d['small'] as MediaAttachment['small'],
    focus: d['focus'] as MediaAttachment['focus'],
    extra: d['extra'] as MediaAttachment['extra'],
    processed: d['processed'] as boolean,
    createdAt: d['createdAt'] as number,
  };
}

/** The media a status may take: these, the account's, unattached or already on this status or on
 * a released (deleted) one. The check counts them: all or the write is refused. */
export function attachableFilter(ids: readonly Id[], accountId: Id, statusId: Id, released: readonly Id[]): MongoDoc {
  return { _id: { $in: ids }, accountId, statusId: { $in: [null, statusId, ...released] } };
}

export function mongoMediaRepository(context: MongoExtensionContext): MediaRepository {
  const { values: v } = context;
  const media = context.collection(MEDIA_COLLECTION);
  const ready = context.setup({ indexes: MEDIA_INDEXES, carriesJobs: [MEDIA_COLLECTION] });
  return {
    async create(m, outbox) {
      await ready;
      await context.insertWithJobs(MEDIA_COLLECTION, mediaDoc(m, v.num), outbox === undefined ? [] : outbox(undefined));
    },
    async get(mediaId) {
      await ready;
      const id = v.lookupId(mediaId);
      const d = id === null ? null : await media.findOne({ _id: id });
      return d ? mediaFromDoc(d) : null;
    },
    async getMany(ids) {
      await ready;
      const wanted = v.validIds(ids);
      if (wanted.length === 0) return [];
      return v.inOrder(ids, (await media.find({ _id: { $in: wanted } }).toArray()).map(mediaFromDoc), (m) => m.id);
    },
    async update(mediaId, patch) {
      await ready;
      const id = v.lookupId(mediaId);
      if (id === null) return null;
      const set = v.setFields(patch, PATCH_FIELDS);
      const d = Object.keys(set).length === 0 ? await media.findOne({ _id: id }) : await media.findOneAndUpdate({ _id: id }, v.bump({ $set: set }), { returnDocument: 'after' });
      return d ? mediaFromDoc(d) : null;
    },
    async deleteUnattached(mediaId) {
      await ready;
      const id = v.lookupId(mediaId);
      if (id === null) return false;
      return (await media.deleteOne({ _id: id, statusId: null })).deletedCount === 1;
    },
    async deleteOfAccount(accountId, limit) {
      await ready;
      const n = Math.max(0, Math.trunc(limit));
      if (v.lookupId(accountId) === null || n === 0) return [];
      const found = (await media.find({ accountId }).limit(n).toArray()).map(mediaFromDoc);
      if (found.length > 0) await media.deleteMany({ _id: { $in: found.map((m) => m.id) } });
      return found;
    },
    async unattachedBefore(before, limit) {
      await ready;
      const n = Math.max(0, Math.trunc(limit));
      if (n === 0) return [];
      return (await media.find({ statusId: null, createdAt: { $lt: before } }).sort({ createdAt: 1, num: 1 }).limit(n).toArray()).map(mediaFromDoc);
    },
    attach(accountId, statusId, mediaIds, released = []) {
      const unique = [...new Set(mediaIds)];
      return context.prepare({
        async check(tx) {
          await ready;
          if (unique.length === 0) return;
          const n = await tx.collection(MEDIA_COLLECTION).countDocuments(attachableFilter(unique, accountId, statusId, released), { session: tx.session });
          if (n !== unique.length) throw new StorageConflict('media');
        },
        async apply(tx) {
          if (unique.length === 0) return;
          await tx.collection(MEDIA_COLLECTION).updateMany({ _id: { $in: unique } }, v.bump({ $set: { statusId } }), { session: tx.session });
        },
      });
    },
  };
}
