// An upload before anything of it is kept: what it is (told by its first bytes, never by its
// declared type), the limit of its kind (also told to the transport, which stops reading a
// file past it), and how it is handed to sharp or a store without holding it when the
// transport kept it in a temporary file.

import { FILE_HEAD_BYTES, unprocessable, type FileLimit, type Params, type UploadedFile } from 'rookery/plugin-kit';
import { IMAGE_SIZE_LIMIT, mediaTexts, VIDEO_SIZE_LIMIT } from './limits.ts';
import type { ImageInput } from './process.ts';
import { sniff, type SniffedKind } from './sniff.ts';
import type { MediaStore } from './store.ts';

export function isUploadedFile(value: unknown): value is UploadedFile {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Partial<UploadedFile>;
  return typeof file.size === 'number' && typeof file.read === 'function' && typeof file.bytes === 'function';
}

export function fileParam(params: Params, name: string): UploadedFile | null {
  const value = params[name];
  return isUploadedFile(value) ? value : null;
}

/** What the file is, from its first bytes; null when it is none of the supported kinds. */
export async function kindOf(file: UploadedFile): Promise<SniffedKind | null> {
  return sniff(await file.read(0, FILE_HEAD_BYTES));
}

/** The limit of a media upload, by the kind its first bytes show: an unsupported kind is
 * refused at its first byte, as it would be once read. */
export function uploadLimit(head: Uint8Array): FileLimit {
  const kind = sniff(head);
  if (kind === null) return { maxBytes: 0, refusal: unprocessable(mediaTexts.fileType) };
  if (kind.kind === 'image') return { maxBytes: IMAGE_SIZE_LIMIT, refusal: unprocessable(mediaTexts.imageTooBig) };
  return { maxBytes: VIDEO_SIZE_LIMIT, refusal: unprocessable(mediaTexts.videoTooBig) };
}

/** What sharp reads: the temporary file when there is one (libvips reads it itself), else the bytes. */
export async function imageInput(file: UploadedFile): Promise<ImageInput> {
  return file.path ?? (await file.bytes());
}

/** Stores an upload as it is, copied from its temporary file when the store can. */
export async function putUpload(store: MediaStore, key: string, file: UploadedFile, contentType: string): Promise<string> {
  if (file.path !== null && store.putFile) return store.putFile(key, file.path, contentType);
  return store.put(key, await file.bytes(), contentType);
}
