// The media-store port: where uploaded files live. The default keeps them on local disk (under
// the instance's DATA_DIR) and the plugin serves them itself; an embedder can put them anywhere
// (an object store, a CDN) by implementing put/get/delete and returning its own URLs.

import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredFile {
  data: Uint8Array;
  contentType: string;
}

export interface MediaStore {
  /** Stores a file under `key` (letters, digits, '-', '_' and '.') and returns its public URL. */
  put(key: string, data: Uint8Array, contentType: string): Promise<string>;
  /** Stores the local file at `path` (an upload's temporary file) as put does, reading it as a
   * stream. Optional: without it, an upload kept as it is (a video of up to 99 MB) is read into
   * memory and handed to put. */
  putFile?(key: string, path: string, contentType: string): Promise<string>;
  /** The file, or null; a store whose files are served elsewhere may always answer null. */
  get(key: string): Promise<StoredFile | null>;
  delete(key: string): Promise<void>;
}

/** Where the plugin serves the files of a store that has no URLs of its own. */
export const MEDIA_PATH = '/system/media';

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}$/;

export function isMediaKey(key: string): boolean {
  return KEY.test(key) && !key.includes('..');
}

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/wav', flac: 'audio/flac', bin: 'application/octet-stream',
};

export function contentTypeOfKey(key: string): string {
  return TYPES[key.slice(key.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

/** Files in a directory, served by the plugin at `${baseUrl}/system/media/<key>`. */
export function diskMediaStore(options: { directory: string; baseUrl: string }): MediaStore {
  const ready = mkdir(options.directory, { recursive: true });
  const pathOf = (key: string) => {
    if (!isMediaKey(key)) throw new Error(`not a media key: ${key}`);
    return join(options.directory, key);
  };
  return {
    async put(key, data) {
      await ready;
      await writeFile(pathOf(key), data);
      return `${options.baseUrl}${MEDIA_PATH}/${key}`;
    },
    async putFile(key, path) {
      await ready;
      await copyFile(path, pathOf(key));
      return `${options.baseUrl}${MEDIA_PATH}/${key}`;
    },
    async get(key) {
      if (!isMediaKey(key)) return null;
      try {
        return { data: new Uint8Array(await readFile(pathOf(key))), contentType: contentTypeOfKey(key) };
      } catch {
        return null;
      }
    },
    async delete(key) {
      if (isMediaKey(key)) await rm(pathOf(key), { force: true });
    },
  };
}

/** Files in memory (tests, demos), served by the plugin like the disk store's. */
export function memoryMediaStore(options: { baseUrl: string }): MediaStore & { readonly files: Map<string, StoredFile> } {
  const files = new Map<string, StoredFile>();
  return {
    files,
    async put(key, data, contentType) {
      files.set(key, { data: new Uint8Array(data), contentType });
      return `${options.baseUrl}${MEDIA_PATH}/${key}`;
    },
    async get(key) {
      return files.get(key) ?? null;
    },
    async delete(key) {
      files.delete(key);
    },
  };
}
