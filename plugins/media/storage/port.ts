// The media plugin's repository: uploads (MediaAttachment), attached to statuses atomically with
// the status write. Contract: media/storage/contract.ts, run on every engine it supports.

import type { Id, MediaAttachment, Millis, Outbox, StorageWrite } from 'rookery/plugin-kit';

export type MediaPatch = Partial<Pick<MediaAttachment, 'description' | 'focus' | 'url' | 'previewUrl' | 'blurhash' | 'original' | 'small' | 'extra' | 'processed' | 'type'>>;

export interface MediaRepository {
  /** Inserts an upload (StorageConflict 'id' when the id is taken), with its outbox's jobs. */
  create(media: MediaAttachment, outbox?: Outbox<void>): Promise<void>;
  get(id: Id): Promise<MediaAttachment | null>;
  /** In the order of `ids`; missing ids skipped. */
  getMany(ids: readonly Id[]): Promise<MediaAttachment[]>;
  update(id: Id, patch: MediaPatch): Promise<MediaAttachment | null>;
  /** Unattached only; true when deleted. */
  deleteUnattached(id: Id): Promise<boolean>;
  /** Deletes at most `limit` media of the account, attached or not (the account was deleted),
   * and returns them, so that their files can go too. */
  deleteOfAccount(accountId: Id, limit: number): Promise<MediaAttachment[]>;
  /** Unattached uploads created before `before`, oldest first, at most `limit`. */
  unattachedBefore(before: Millis, limit: number): Promise<MediaAttachment[]>;
  /** A write for statuses.create/update: its check refuses (StorageConflict 'media', nothing
   * written) unless every media exists, belongs to `accountId` and is unattached or attached to
   * `statusId` or to one of `released` (deleted statuses, whose media a redraft reuses); its
   * apply attaches them to `statusId`. */
  attach(accountId: Id, statusId: Id, mediaIds: readonly Id[], released?: readonly Id[]): StorageWrite;
}
