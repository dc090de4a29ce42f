// What the instance states is what the plugins enforce: every value of
// configuration.media_attachments, statuses.max_media_attachments and configuration.polls is
// read from /api/v2/instance and tried at its edge through the API (the value accepted, one past
// it refused with Mastodon's text), and every listed MIME type is really accepted.

import sharp from 'sharp';
import t from 'tap';
import { crc32 } from 'node:zlib';
import { mediaPlugin, memoryMediaStore, pollsPlugin } from '../../plugins/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { multipart } from '../helpers/multipart.ts';

const h: Harness = await harness({ plugins: [mediaPlugin({ store: memoryMediaStore({ baseUrl: 'https://rookery.test' }) }), pollsPlugin()] });
t.teardown(() => h.close());
const alice: TestUser = await h.user('alice');
const config = (await h.request('GET', '/api/v2/instance')).json.configuration;
const media = config.media_attachments;

const upload = (data: Uint8Array, fields: Record<string, string> = {}) => {
  const body = multipart([{ name: 'file', value: { filename: 'upload', contentType: 'application/octet-stream', data } }, ...Object.entries(fields).map(([name, value]) => ({ name, value }))]);
  return h.request('POST', '/api/v1/media', { token: alice.token, payload: body.payload, headers: body.headers });
};

// ---- files made by hand: only their headers matter here ------------------------------------

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const box = (type: string, ...parts: number[][]) => {
  const body = parts.flat();
  return [...be32(body.length + 8), ...ascii(type), ...body];
};

/** An MP4 whose one video track is width×height and `frames` frames over `seconds`. */
function mp4(width: number, height: number, frames: number, seconds: number): Uint8Array {
  const timescale = 1000;
  const tkhd = box('tkhd', [0, 0, 0, 3], Array(20).fill(0), Array(16).fill(0), Array(36).fill(0), be32(width * 65536), be32(height * 65536));
  const mdhd = box('mdhd', [0, 0, 0, 0], Array(8).fill(0), be32(timescale), be32(seconds * timescale), [0, 0, 0, 0]);
  const hdlr = box('hdlr', [0, 0, 0, 0], [0, 0, 0, 0], ascii('vide'), Array(12).fill(0), [0]);
  const stts = box('stts', [0, 0, 0, 0], be32(1), be32(frames), be32(Math.round((seconds * timescale) / frames)));
  const moov = box('moov', box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', box('stbl', stts)))));
  return new Uint8Array([...box('ftyp', ascii('isom'), be32(512), ascii('isom'), ascii('mp41')), ...moov, ...box('mdat', Array(64).fill(0))]);
}

const ebml = (id: number[], ...parts: number[][]) => {
  const body = parts.flat();
  return [...id, 0x40 | (body.length >> 8), body.length & 255, ...body];
};
const ebmlUint = (id: number[], value: number) => ebml(id, be32(value));

/** A WebM whose video track is width×height at `fps` frames per second. */
function webm(width: number, height: number, fps: number): Uint8Array {
  const video = ebml([0xe0], ebmlUint([0xb0], width), ebmlUint([0xba], height));
  const entry = ebml([0xae], ebmlUint([0x83], 1), ebmlUint([0x23, 0xe3, 0x83], Math.round(1e9 / fps)), video);
  return new Uint8Array([...ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], ascii('webm'))), ...ebml([0x18, 0x53, 0x80, 0x67], ebml([0x16, 0x54, 0xae, 0x6b], entry))]);
}

/** A PNG that claims width×height and carries no real pixels: what its header says is all. */
function pngHeader(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: number[]) => {
    const typed = [...ascii(type), ...data];
    return [...be32(data.length), ...typed, ...be32(crc32(new Uint8Array(typed)))];
  };
  const ihdr = chunk('IHDR', [...be32(width), ...be32(height), 8, 2, 0, 0, 0]);
  return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...ihdr, ...chunk('IDAT', [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]), ...chunk('IEND', [])]);
}

// ---- media ---------------------------------------------------------------------------------

t.test('the media plugin states its own limits', async (t) => {
  t.same(media, {
    supported_mime_types: [
      'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'video/mp4', 'video/quicktime', 'video/webm',
      'audio/wav', 'audio/wave', 'audio/x-wav', 'audio/mp4', 'audio/m4a', 'audio/x-m4a', 'audio/ogg', 'audio/flac', 'audio/mpeg', 'audio/mp3',
    ],
    description_limit: 1500,
    image_size_limit: 16_777_216,
    image_matrix_limit: 33_177_600,
    video_size_limit: 103_809_024,
    video_frame_rate_limit: 120,
    video_matrix_limit: 8_294_400,
  });
  t.equal(config.statuses.max_media_attachments, 4);
});

t.test('supported_mime_types: a file of each listed kind is taken, as its kind', async (t) => {
  const solid = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#48c' } });
  const samples: [string[], Uint8Array, string][] = [
    [['image/jpeg'], await solid().jpeg().toBuffer(), 'image'],
    [['image/png'], await solid().png().toBuffer(), 'image'],
    [['image/gif'], await solid().gif().toBuffer(), 'image'],
    [['image/webp'], await solid().webp().toBuffer(), 'image'],
    [['image/avif'], await solid().avif().toBuffer(), 'image'],
    [['video/mp4'], mp4(640, 360, 30, 1), 'video'],
    [['video/quicktime'], new Uint8Array([...box('ftyp', ascii('qt  '), be32(0)), ...box('mdat', Array(16).fill(0))]), 'video'],
    [['video/webm'], webm(640, 360, 30), 'video'],
    [['audio/wav', 'audio/wave', 'audio/x-wav'], new Uint8Array([...ascii('RIFF'), ...be32(36), ...ascii('WAVEfmt '), ...Array(24).fill(0)]), 'audio'],
    [['audio/mp4', 'audio/m4a', 'audio/x-m4a'], new Uint8Array([...box('ftyp', ascii('M4A '), be32(0)), ...box('mdat', Array(16).fill(0))]), 'audio'],
    [['audio/ogg'], new Uint8Array([...ascii('OggS'), ...Array(28).fill(0)]), 'audio'],
    [['audio/flac'], new Uint8Array([...ascii('fLaC'), ...Array(38).fill(0)]), 'audio'],
    [['audio/mpeg', 'audio/mp3'], new Uint8Array([...ascii('ID3'), 4, 0, 0, 0, 0, 0, 0, ...Array(32).fill(0)]), 'audio'],
  ];
  t.same(samples.flatMap(([types]) => types).sort(), [...media.supported_mime_types].sort(), 'a sample for every listed type, and nothing more');
  for (const [types, data, kind] of samples) {
    const res = await upload(data);
    t.same([res.statusCode, res.json.type], [200, kind], types.join(', '));
  }
  const bmp = new Uint8Array([...ascii('BM'), ...Array(60).fill(0)]);
  const refused = await upload(bmp);
  t.same([refused.statusCode, refused.json], [422, { error: 'Validation failed: File content type is invalid' }], 'a type not listed (BMP) is refused');
});

t.test('description_limit', async (t) => {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer();
  t.equal((await upload(png, { description: 'd'.repeat(media.description_limit) })).statusCode, 200, 'at the limit');
  const over = await upload(png, { description: 'd'.repeat(media.description_limit + 1) });
  t.same([over.statusCode, over.json], [422, { error: `Validation failed: Description is too long (maximum is ${media.description_limit} characters)` }]);
});

t.test('image_size_limit and video_size_limit', async (t) => {
  const image = (size: number) => {
    const data = new Uint8Array(size);
    data.set(pngHeader(8, 8));
    return data;
  };
  const atLimit = await upload(image(media.image_size_limit));
  t.same([atLimit.statusCode, atLimit.json.error], [422, 'File type of uploaded media could not be verified'], 'at the limit: read (and found broken), not refused for its size');
  const overImage = await upload(image(media.image_size_limit + 1));
  t.same([overImage.statusCode, overImage.json], [422, { error: 'Validation failed: File file size must be less than 16 MB' }]);
  const video = (size: number) => {
    const data = new Uint8Array(size);
    data.set(mp4(640, 360, 30, 1));
    return data;
  };
  t.equal((await upload(video(media.image_size_limit + 1))).statusCode, 200, 'a video may be larger than an image');
  const overVideo = await upload(video(media.video_size_limit + 1));
  t.same([overVideo.statusCode, overVideo.json], [422, { error: 'Validation failed: File file size must be less than 99 MB' }]);
});

t.test('image_matrix_limit: read from the image\'s own header', async (t) => {
  const side = Math.floor(Math.sqrt(media.image_matrix_limit));
  t.equal(side * side, media.image_matrix_limit, '5760×5760 is exactly the limit');
  const at = await upload(pngHeader(side, side));
  t.same([at.statusCode, at.json.error], [422, 'File type of uploaded media could not be verified'], 'at the limit: decoded (and found empty), not refused for its size');
  const over = await upload(pngHeader(side, side + 1));
  t.same([over.statusCode, over.json], [422, { error: `Validation failed: File dimensions are too large (at most ${media.image_matrix_limit} pixels)` }]);
});

t.test('video_matrix_limit and video_frame_rate_limit, from MP4 and WebM headers', async (t) => {
  t.equal(1920 * 1080 * 4, media.video_matrix_limit, '3840×2160 is exactly the limit');
  const cases: [string, Uint8Array, number, string | null][] = [
    ['MP4 3840×2160 at 30 fps', mp4(3840, 2160, 30, 1), 200, null],
    ['MP4 3840×2162', mp4(3840, 2162, 30, 1), 422, '3840x2162 videos are not supported'],
    ['MP4 at 120 fps', mp4(1280, 720, 240, 2), 200, null],
    ['MP4 at 121 fps', mp4(1280, 720, 121, 1), 422, '121fps videos are not supported'],
    ['WebM 3840×2160 at 120 fps', webm(3840, 2160, 120), 200, null],
    ['WebM 4096×2160', webm(4096, 2160, 30), 422, '4096x2160 videos are not supported'],
    ['WebM at 240 fps', webm(640, 360, 240), 422, '240fps videos are not supported'],
  ];
  for (const [label, data, status, error] of cases) {
    const res = await upload(data);
    t.same([res.statusCode, res.statusCode === 200 ? res.json.type : res.json.error], [status, error ?? 'video'], label);
  }
});

t.test('truncated or lying video headers: refused or taken, never a 500', async (t) => {
  const whole = [mp4(3840, 2162, 30, 1), webm(4096, 2160, 30)];
  const seen = new Set<number>();
  for (const data of whole) {
    for (let cut = 12; cut < data.length; cut += 7) {
      const res = await upload(data.subarray(0, cut));
      seen.add(res.statusCode);
      if (res.statusCode !== 200 && res.statusCode !== 422) t.fail(`cut at ${cut}: ${res.statusCode} ${res.body}`);
    }
  }
  // A box that claims to be larger than the file, and one that claims 1 byte.
  const liar = new Uint8Array([...box('ftyp', ascii('isom'), be32(0)), ...be32(0x7fffffff), ...ascii('moov'), ...be32(1), ...ascii('trak'), ...Array(16).fill(0)]);
  t.equal((await upload(liar)).statusCode, 200, 'a lying box size is read as far as the file goes');
  t.ok(seen.has(200) && [...seen].every((s) => s === 200 || s === 422), `only 200 and 422 (${[...seen].join(', ')})`);
});

t.test('statuses.max_media_attachments', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i <= config.statuses.max_media_attachments; i++) ids.push((await upload(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer())).json.id);
  const at = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'four', media_ids: ids.slice(0, config.statuses.max_media_attachments) } });
  t.equal(at.json.media_attachments.length, config.statuses.max_media_attachments, 'at the limit');
  const over = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'five', media_ids: ids } });
  t.same([over.statusCode, over.json], [422, { error: 'Cannot attach more than 4 files' }]);
});

// ---- polls ---------------------------------------------------------------------------------

t.test('polls: options, characters per option, expiration, each at its edge', async (t) => {
  const p = config.polls;
  t.same(p, { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 });
  const poll = (poll: Record<string, unknown>) => h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'poll', poll } });
  const options = (n: number, length = 1) => Array.from({ length: n }, (_, i) => String(i).padEnd(length, 'x'));
  const cases: [string, Record<string, unknown>, string | null][] = [
    ['max_options', { options: options(p.max_options), expires_in: 600 }, null],
    ['max_options + 1', { options: options(p.max_options + 1), expires_in: 600 }, `Validation failed: Poll options can't contain more than ${p.max_options} items`],
    ['max_characters_per_option', { options: options(2, p.max_characters_per_option), expires_in: 600 }, null],
    ['max_characters_per_option + 1', { options: options(2, p.max_characters_per_option + 1), expires_in: 600 }, `Validation failed: Poll options cannot be longer than ${p.max_characters_per_option} characters each`],
    ['min_expiration', { options: options(2), expires_in: p.min_expiration }, null],
    ['min_expiration - 1', { options: options(2), expires_in: p.min_expiration - 1 }, 'Validation failed: Poll expires at is too soon'],
    ['max_expiration', { options: options(2), expires_in: p.max_expiration }, null],
    ['max_expiration + 1', { options: options(2), expires_in: p.max_expiration + 1 }, 'Validation failed: Poll expires at is too far into the future'],
  ];
  for (const [label, body, error] of cases) {
    const res = await poll(body);
    if (error === null) t.equal(res.statusCode, 200, label);
    else t.same([res.statusCode, res.json], [422, { error }], label);
  }
});
