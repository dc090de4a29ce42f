// Multipart uploads over real sockets, on both transports: each file goes to a temporary file
// as it arrives (a 95 MiB video adds far less than its size to the server's memory), a file
// past the limit of its kind is refused without the rest of the body being read, and the
// temporary files are gone when the request ends: answered, refused, or abandoned by its client.

import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { mediaPlugin } from '../../plugins/media/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { ascii, be32, box, mp4Header, pngHeader } from '../helpers/media-files.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const BOUNDARY = 'rookery-upload-test';
const CHUNK = new Uint8Array(MiB);

interface Upload {
  /** The file's field (default: file) and the request's method (default: POST). */
  field?: string;
  method?: string;
  /** The file's first bytes; zeros follow up to `size`. */
  head: Uint8Array;
  size: number;
  /** Stop sending after this many bytes of the file and wait for the answer. */
  stopAt?: number;
  /** After this many bytes of the file, wait for `beforeAbort`, then drop the connection. */
  abortAt?: number;
  beforeAbort?: () => Promise<void>;
  /** Called as each chunk is handed to the socket. */
  onChunk?: () => void;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: any;
}

/** POSTs a multipart body whose one file part is `upload`, written as the socket takes it;
 * null when it was aborted. */
function send(port: number, path: string, token: string, upload: Upload): Promise<Answer | null> {
  const opening = new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="description"\r\n\r\nbig\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="${upload.field ?? 'file'}"; filename="big"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const closing = new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: upload.method ?? 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(opening.length + upload.size + closing.length) },
    });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
    });
    // A server that answered before the whole body was sent closes the connection.
    req.on('error', (error) => {
      if (!answered && upload.abortAt === undefined) reject(error);
    });
    const write = (bytes: Uint8Array) => new Promise<void>((done) => (req.write(bytes) ? done() : req.once('drain', done)));
    void (async () => {
      await write(opening);
      await write(upload.head);
      for (let sent = upload.head.length; sent < upload.size; ) {
        if (answered) return;
        if (upload.abortAt !== undefined && sent >= upload.abortAt) {
          await upload.beforeAbort?.();
          req.destroy();
          resolve(null);
          return;
        }
        if (upload.stopAt !== undefined && sent >= upload.stopAt) return;
        const length = Math.min(CHUNK.length, upload.size - sent);
        await write(CHUNK.subarray(0, length));
        sent += length;
        upload.onChunk?.();
      }
      await write(closing);
      req.end();
    })();
  });
}

/** Resolves once `test` accepts the names in `dir`, looking again on each change to it. */
function until(dir: string, test: (names: string[]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => void look());
    const look = async () => {
      if (!test(await readdir(dir))) return;
      watcher.close();
      resolve();
    };
    void look();
  });
}

for (const transport of ['hapi', 'node'] as const) {
  t.test(`${transport}: uploads stream to temporary files`, async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'rookery-uploads-'));
    const uploads = join(root, 'uploads');
    const media = join(root, 'media');
    const h: Harness = await harness({ listen: true, transport, uploadDirectory: uploads, plugins: [mediaPlugin({ directory: media })] });
    t.teardown(async () => {
      await h.close();
      await rm(root, { recursive: true, force: true });
    });
    await mkdir(uploads);
    const alice: TestUser = await h.user('alice');
    const port = Number(new URL(h.rookery.core.config.baseUrl).port);
    // An MP4 header whose mdat box holds the zeros that follow it, up to `size` bytes in all.
    const video = (size: number) => ({ head: mp4Header(640, 360, 30, 1, 'isom', size - mp4Header(640, 360, 30, 1).length), size });
    const left = async () => readdir(uploads).catch(() => []);

    t.test('a 95 MiB video: memory stays bounded, and its temporary file is gone', async (t) => {
      const warmUp = await send(port, '/api/v1/media', alice.token, video(MiB));
      t.equal(warmUp?.status, 200, 'a first upload');
      // Collected as the upload goes (every 4 MiB), so that what is measured is what the server
      // holds, not the socket's spent chunks waiting for a collection.
      let chunks = 0;
      const sample = () => {
        if (++chunks % 4 === 0) gc();
        peak = Math.max(peak, process.memoryUsage().rss);
      };
      gc();
      const before = process.memoryUsage().rss;
      let peak = before;
      const size = 95 * MiB;
      const res = await send(port, '/api/v1/media', alice.token, { ...video(size), onChunk: sample });
      sample();
      t.same([res?.status, res?.json?.type, res?.json?.description, res?.json?.meta?.original], [200, 'video', 'big', { width: 640, height: 360, size: '640x360', aspect: 640 / 360 }]);
      const growth = (peak - before) / MiB;
      t.ok(growth < 40, `the server's memory grew by ${growth.toFixed(1)} MiB for a 95 MiB upload`);
      t.equal((await stat(join(media, new URL(res?.json.url).pathname.split('/').pop() ?? ''))).size, size, 'stored whole');
      t.same(await left(), [], 'no temporary file left');
    });

    t.test('an image past 16 MB is refused before the rest of its body is sent', async (t) => {
      const res = await send(port, '/api/v1/media', alice.token, { head: pngHeader(8, 8), size: 20 * MiB, stopAt: 17 * MiB });
      t.same([res?.status, res?.json], [422, { error: 'Validation failed: File file size must be less than 16 MB' }], 'answered with 3 MiB still unsent');
      t.equal(res?.headers['connection'], 'close', 'the unread rest is not read on');
      t.same(await left(), [], 'no temporary file left');
    });

    t.test('an avatar past 8 MB is refused before the rest of its body is sent', async (t) => {
      const res = await send(port, '/api/v1/accounts/update_credentials', alice.token, { method: 'PATCH', field: 'avatar', head: pngHeader(8, 8), size: 10 * MiB, stopAt: 9 * MiB });
      t.same([res?.status, res?.json], [
        422,
        { error: 'Validation failed: Avatar file size must be less than 8 MB', details: { avatar: [{ error: 'ERR_LESS_THAN', description: 'file size must be less than 8 MB' }] } },
      ]);
      t.same(await left(), [], 'no temporary file left');
    });

    t.test('the parts of a streamed body are bounded, and a broken one is a 400', async (t) => {
      const post = async (body: string) => {
        const res = await fetch(`${h.rookery.core.config.baseUrl}/api/v1/statuses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${alice.token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          body,
        });
        return [res.status, (await res.json()) as any];
      };
      const field = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const file = (name: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="f"\r\n\r\nx\r\n`;
      const end = `--${BOUNDARY}--\r\n`;
      const [status, posted] = await post(field('status', 'streamed') + file('ignored') + end);
      t.same([status, posted.content], [200, '<p>streamed</p>'], 'a well-formed body: its fields read, its file kept for the request only')
      t.same(await post(Array.from({ length: 1001 }, (_, i) => field(`p${i}`, 'x')).join('') + end), [400, { error: 'Too many parameters (at most 1000)' }]);
      t.same(await post(Array.from({ length: 9 }, (_, i) => file(`f${i}`)).join('') + end), [400, { error: 'Too many files (at most 8)' }]);
      t.same(await post(field('status', 'x'.repeat(1024 * 1024 + 1)) + end), [413, { error: 'Payload content length greater than maximum allowed: 1048576' }], 'text fields: 1 MiB in all');
      t.same(await post(field('status', 'no closing delimiter')), [400, { error: 'Invalid multipart payload format' }]);
      t.same(await left(), [], 'no temporary file left');
    });

    t.test('temporary files are removed after success, refusal and a client gone', async (t) => {
      const ok = await send(port, '/api/v1/media', alice.token, video(2 * MiB));
      t.equal(ok?.status, 200);
      t.same(await left(), [], 'after success');
      const ftyp = new Uint8Array([...box('ftyp', ascii('isom'), be32(512), ascii('isom')), ...ascii('only words after the box')]);
      const refused = await send(port, '/api/v1/media', alice.token, { head: ftyp, size: 3 * MiB });
      t.same([refused?.status, refused?.json], [422, { error: 'File type of uploaded media could not be verified' }], 'a fake ftyp body is refused');
      t.same(await left(), [], 'after a refusal');
      const anonymous = await send(port, '/api/v1/media', 'no-such-token', video(MiB));
      t.equal(anonymous?.status, 401);
      t.same(await left(), [], 'after an unauthenticated upload');
      const aborted = await send(port, '/api/v1/media', alice.token, {
        ...video(8 * MiB),
        abortAt: 2 * MiB,
        // The server is writing the file when its client goes away.
        beforeAbort: () => until(uploads, (names) => names.length > 0),
      });
      t.equal(aborted, null);
      await until(uploads, (names) => names.length === 0);
      t.pass('after the client went away mid-upload');
    });
  });
}
