// Uploads that cannot be processed, over real sockets on both transports: each ends as a 422
// with Mastodon's text, never as "processing" for ever. POST /api/v1/media refuses it at once;
// POST /api/v2/media takes it (202), its processing job fails, and from then on
// GET and PUT /api/v1/media/:id answer 422 "Error processing thumbnail for uploaded media", it
// cannot be attached, and its files are gone. A body that only starts like a video or audio
// container is refused at upload.

import sharp from 'sharp';
import t from 'tap';
import { mediaPlugin, memoryMediaStore } from '../../plugins/media/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { ascii, be32, box, mp4, pngHeader } from '../helpers/media-files.ts';

const PROCESSING_FAILED = { error: 'Error processing thumbnail for uploaded media' };
const NOT_VERIFIED = { error: 'File type of uploaded media could not be verified' };

const noise = (width: number, height: number) => {
  const pixels = new Uint8Array(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
};
const half = (data: Uint8Array) => data.subarray(0, Math.floor(data.length / 2));

/** A GIF of `frames` 10×10 frames, each unlike the one before (so none is merged away). */
async function manyFrames(frames: number): Promise<Uint8Array> {
  const pixels = new Uint8Array(10 * 10 * 3 * frames);
  for (let f = 0; f < frames; f++) pixels.fill(f % 2 === 0 ? 20 : 230, f * 300, (f + 1) * 300);
  return sharp(pixels, { raw: { width: 10, height: 10 * frames, channels: 3, pageHeight: 10 } }).gif().toBuffer();
}

const hostile: [string, Uint8Array, { error: string }][] = [
  ['a PNG of a few bytes declaring 50000×50000', pngHeader(50_000, 50_000), { error: 'Validation failed: File dimensions are too large (at most 33177600 pixels)' }],
  ['a truncated PNG', half(await noise(300, 300).png().toBuffer()), NOT_VERIFIED],
  ['a truncated GIF', half(await noise(300, 300).gif().toBuffer()), NOT_VERIFIED],
  ['a truncated JPEG', half(await noise(300, 300).jpeg().toBuffer()), NOT_VERIFIED],
  ['a GIF of 10,000 frames', await manyFrames(10_000), { error: 'Validation failed: File animation is too large (at most 1000 frames and 100000000 pixels in all)' }],
];

for (const transport of ['hapi', 'node'] as const) {
  t.test(`${transport}: hostile uploads`, async (t) => {
    const store = memoryMediaStore({ baseUrl: 'https://rookery.test' });
    const h: Harness = await harness({ listen: true, transport, plugins: [mediaPlugin({ store })] });
    t.teardown(() => h.close());
    const alice: TestUser = await h.user('alice');
    const base = h.rookery.core.config.baseUrl;
    const auth = { authorization: `Bearer ${alice.token}` };
    const upload = async (path: string, data: Uint8Array, type = 'application/octet-stream') => {
      const form = new FormData();
      form.append('file', new Blob([data], { type }), 'upload');
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: auth, body: form });
      return { status: res.status, json: (await res.json()) as any };
    };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, json: (await res.json()) as any };
    };

    for (const [label, data, refusal] of hostile) {
      t.test(label, async (t) => {
        t.same(await upload('/api/v1/media', data), { status: 422, json: refusal }, 'v1: refused at once');
        const taken = await upload('/api/v2/media', data);
        t.same([taken.status, taken.json.url], [202, null], 'v2: taken, to be processed');
        await h.rookery.drain();
        const id = taken.json.id as string;
        t.same(await call('GET', `/api/v1/media/${id}`), { status: 422, json: PROCESSING_FAILED }, 'its processing failed: 422, not 206');
        t.same(await call('PUT', `/api/v1/media/${id}`, { description: 'x' }), { status: 422, json: PROCESSING_FAILED }, 'PUT too');
        const post = await call('POST', '/api/v1/statuses', { status: 'with it', media_ids: [id] });
        t.same(post, { status: 422, json: { error: 'Cannot attach files that have not finished processing. Try again in a moment!' } }, 'never attached');
        t.same([...store.files.keys()].filter((key) => key.startsWith(`${id}-`)), [], 'its files are gone');
      });
    }

    t.test('a body that only starts like a container is refused at upload', async (t) => {
      const ftyp = new Uint8Array([...box('ftyp', ascii('isom'), be32(512), ascii('isom')), ...ascii('not a video, only words after the box')]);
      t.same(await upload('/api/v1/media', ftyp, 'video/mp4'), { status: 422, json: NOT_VERIFIED }, 'v1');
      t.same(await upload('/api/v2/media', ftyp, 'video/mp4'), { status: 422, json: NOT_VERIFIED }, 'v2 too: nothing to process later');
      const real = await upload('/api/v1/media', mp4(640, 360, 30, 2), 'video/mp4');
      t.same([real.status, real.json.type, real.json.meta], [200, 'video', { duration: 2, fps: 15, original: { width: 640, height: 360, size: '640x360', aspect: 640 / 360 } }], 'a real one: its facts in meta');
    });
  });
}
