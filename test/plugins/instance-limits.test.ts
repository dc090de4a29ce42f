// What the instance states is what the plugins enforce: every value of
// configuration.media_attachments, statuses.max_media_attachments and configuration.polls is
// read from /api/v2/instance and tried at its edge through the API (the value accepted, one past
// it refused with Mastodon's text), and every listed MIME type is really accepted.

import sharp from 'sharp';
import t from 'tap';
import { mediaPlugin, memoryMediaStore, pollsPlugin } from '../../plugins/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { ascii, be32, box, flac, m4a, mp3, mp4, ogg, pngHeader, wav, webm } from '../helpers/media-files.ts';
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
    [['video/quicktime'], mp4(640, 360, 30, 1, 'qt  '), 'video'],
    [['video/webm'], webm(640, 360, 30), 'video'],
    [['audio/wav', 'audio/wave', 'audio/x-wav'], wav(), 'audio'],
    [['audio/mp4', 'audio/m4a', 'audio/x-m4a'], m4a(), 'audio'],
    [['audio/ogg'], ogg(), 'audio'],
    [['audio/flac'], flac(), 'audio'],
    [['audio/mpeg', 'audio/mp3'], mp3(), 'audio'],
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

t.test('truncated or lying video headers: refused, never taken blind, never a 500', async (t) => {
  const whole = [mp4(3840, 2162, 30, 1), webm(4096, 2160, 30)];
  const seen = new Set<string>();
  for (const data of whole) {
    for (let cut = 12; cut < data.length; cut += 7) {
      const res = await upload(data.subarray(0, cut));
      seen.add(`${res.statusCode} ${res.json?.error}`);
    }
  }
  t.same([...seen].sort(), ['422 3840x2162 videos are not supported', '422 File type of uploaded media could not be verified'], 'a cut before the dimensions: not verified; after them: too large');
  // A box that claims to be larger than the file, and one that claims 1 byte.
  const liar = new Uint8Array([...box('ftyp', ascii('isom'), be32(0)), ...be32(0x7fffffff), ...ascii('moov'), ...be32(1), ...ascii('trak'), ...Array(16).fill(0)]);
  const lied = await upload(liar);
  t.same([lied.statusCode, lied.json], [422, { error: 'File type of uploaded media could not be verified' }], 'a lying box size is read as far as the file goes, and holds no track');
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
