// Multipart bodies read as they stream in (busboy parses them): text fields kept within the
// front's budget, each file written to a temporary file as its bytes arrive and checked against
// its limit on the way, so that what a request holds in memory is a few chunks whatever its
// size. The files live as long as the request: the caller removes them (TempFiles.removeAll)
// however the request ends.

import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import Busboy from 'busboy';
import { FILE_HEAD_BYTES, type FileLimit, type UploadedFile } from '../../core/mastodon/endpoint/types.ts';
import { multipartTexts } from '../../core/mastodon/http/multipart.ts';
import { rackTexts } from '../../core/mastodon/http/rack.ts';
import type { FormRules, StreamedForm } from '../../core/mastodon/http/types.ts';

/** Part names longer than this are malformed rather than cut short. */
const MAX_NAME_BYTES = 8 * 1024;
/** Header lines of one part (Content-Disposition, Content-Type and a few more). */
const MAX_PART_HEADERS = 32;

export type FormOutcome =
  | { kind: 'form'; form: StreamedForm }
  /** The body, or its text fields, passed their limit: `limit` is the one it passed. */
  | { kind: 'too large'; limit: number }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'aborted' };

/** The temporary files of one request. */
export class TempFiles {
  readonly #directory: string;
  readonly #paths: string[] = [];
  #ready: Promise<unknown> | null = null;

  constructor(directory: string) {
    this.#directory = directory;
  }

  /** A new file's path, created empty (only this process can read it), and recorded for removal. */
  async create(): Promise<string> {
    this.#ready ??= mkdir(this.#directory, { recursive: true });
    await this.#ready;
    const path = join(this.#directory, `rookery-upload-${randomUUID()}`);
    this.#paths.push(path);
    return path;
  }

  async removeAll(): Promise<void> {
    const paths = this.#paths.splice(0);
    await Promise.all(paths.map((path) => rm(path, { force: true })));
  }
}

/** A file in a temporary file. A class, not a plain object, so that Rack nesting never takes it
 * for a hash. */
class TempUpload implements UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly path: string;
  constructor(filename: string, contentType: string, size: number, path: string) {
    this.filename = filename;
    this.contentType = contentType;
    this.size = size;
    this.path = path;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    const wanted = Math.max(0, Math.min(length, this.size - offset));
    if (wanted === 0) return new Uint8Array(0);
    const handle = await open(this.path, 'r');
    try {
      const buffer = new Uint8Array(wanted);
      const { bytesRead } = await handle.read(buffer, 0, wanted, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }
  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await readFile(this.path));
  }
}

/** What stopped the reading, when something did before the body's end. */
type Stop = Exclude<FormOutcome, { kind: 'form' }> | { kind: 'overflow'; refusal: unknown };

/** Reads a multipart body from `source` by `rules`. Settles once every file it started is
 * closed, so that `files.removeAll()` afterwards leaves nothing behind. */
export function readForm(source: Readable, contentType: string, rules: FormRules, files: TempFiles): Promise<FormOutcome> {
  return new Promise((resolve) => {
    let parser: Busboy.Busboy;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: {
          fieldNameSize: MAX_NAME_BYTES,
          fieldSize: rules.maxFieldBytes,
          files: rules.maxFiles,
          parts: rules.maxParts + 1,
          headerPairs: MAX_PART_HEADERS,
        },
      });
    } catch {
      resolve({ kind: 'refused', status: 400, message: multipartTexts.malformed });
      return;
    }
    /** One per part, in order: its name and value, or null for a part that was not kept. */
    const parts: Promise<[string, string | UploadedFile] | null>[] = [];
    let stop: Stop | null = null;
    let settled = false;
    let received = 0;
    let fieldBytes = 0;
    let ended = false;

    /** Resolves once every part started is done with its file: a file's last bytes may still
     * find it over its limit after the parser finished. */
    const settle = () => {
      if (settled) return;
      settled = true;
      void Promise.all(parts).then((done) => {
        const kept = done.filter((part) => part !== null);
        const why = stop as Stop | null;
        if (why === null) resolve({ kind: 'form', form: { parts: kept } });
        else if (why.kind === 'overflow') resolve({ kind: 'form', form: { parts: kept, refusal: why.refusal } });
        else resolve(why);
      });
    };
    const detach = () => source.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
    /** Stops reading: the rest of the body stays unread (the transport closes the connection). */
    const halt = (why: Stop) => {
      if (stop !== null) return;
      stop = why;
      detach();
      source.unpipe(parser);
      source.pause();
      parser.destroy();
      settle();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > rules.maxBytes) halt({ kind: 'too large', limit: rules.maxBytes });
    };
    const onEnd = () => void (ended = true);
    const onAbort = () => halt({ kind: 'aborted' });
    const onClose = () => {
      if (!ended) halt({ kind: 'aborted' });
    };
    const malformed = () => halt({ kind: 'refused', status: 400, message: multipartTexts.malformed });
    /** Counts text bytes; false (and reading stopped) past the budget. */
    const withinTextBudget = (bytes: number) => {
      fieldBytes += bytes;
      if (fieldBytes <= rules.maxFieldBytes) return true;
      halt({ kind: 'too large', limit: rules.maxFieldBytes });
      return false;
    };

    parser.on('field', (name: string | undefined, value: string, info: Busboy.FieldInfo) => {
      if (name === undefined || info.nameTruncated) return malformed();
      if (info.valueTruncated) return halt({ kind: 'too large', limit: rules.maxFieldBytes });
      if (withinTextBudget(Buffer.byteLength(value))) parts.push(Promise.resolve([name, value]));
    });
    parser.on('file', (name: string | undefined, stream: Readable, info: Busboy.FileInfo) => {
      if (name === undefined) return malformed();
      // A file input left empty sends filename="" and no data: a plain field, as Rack has it.
      const filename = info.filename ?? '';
      parts.push(filename === '' ? readText(name, stream) : writeFile(name, filename, info.mimeType, stream));
    });
    parser.on('partsLimit', () => halt({ kind: 'refused', status: 400, message: rackTexts.tooMany }));
    parser.on('filesLimit', () => halt({ kind: 'refused', status: 400, message: multipartTexts.tooManyFiles }));
    parser.on('error', malformed);
    parser.on('finish', () => {
      detach();
      settle();
    });

    async function readText(name: string, stream: Readable): Promise<[string, string] | null> {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (!withinTextBudget(chunk.length)) return null;
          chunks.push(chunk);
        }
      } catch {
        return null;
      }
      return [name, Buffer.concat(chunks).toString('utf8')];
    }

    async function writeFile(name: string, filename: string, type: string, stream: Readable): Promise<[string, UploadedFile] | null> {
      let path: string;
      let handle;
      try {
        path = await files.create();
        handle = await open(path, 'wx', 0o600);
      } catch (error) {
        stream.resume();
        halt({ kind: 'refused', status: 500, message: `could not keep an upload: ${(error as Error).message}` });
        return null;
      }
      let size = 0;
      let head: Buffer[] | null = [];
      let limit: FileLimit | null = null;
      const decide = () => {
        if (head === null) return;
        limit = rules.fileLimit(name, Buffer.concat(head).subarray(0, FILE_HEAD_BYTES));
        head = null;
      };
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (head !== null) {
            head.push(chunk);
            if (size >= FILE_HEAD_BYTES) decide();
          }
          if (limit !== null && size > (limit as FileLimit).maxBytes) {
            halt({ kind: 'overflow', refusal: (limit as FileLimit).refusal });
            return null;
          }
          try {
            for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
          } catch (error) {
            // A full disk, say: the upload cannot be kept, and the request is not the client's fault.
            halt({ kind: 'refused', status: 500, message: `could not keep an upload: ${(error as Error).message}` });
            return null;
          }
        }
        decide();
        if (limit !== null && size > (limit as FileLimit).maxBytes) {
          halt({ kind: 'overflow', refusal: (limit as FileLimit).refusal });
          return null;
        }
      } catch {
        // The parser stopped (a malformed body, the client gone): halt says why.
        return null;
      } finally {
        await handle.close().catch(() => undefined);
      }
      return [name, new TempUpload(filename, type, size, path)];
    }

    source.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
    source.pipe(parser);
  });
}
