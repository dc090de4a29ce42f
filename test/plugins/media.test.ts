// The media plugin over HTTP: uploads (PNG, a JPEG with EXIF orientation, GIF, a refused
// non-image), v2's 202 then 200, description and focus, the files served, media_ids on
// publish and edit with every rule and text, the cleanup of unattached uploads, redraft.

import sharp from 'sharp';
import t from 'tap';
import { mediaPlugin, memoryMediaStore } from '../../plugins/media/index.ts';
import { pollsPlugin } from '../../plugins/polls/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { mp3 } from '../helpers/media-files.ts';
import { multipart } from '../helpers/multipart.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
const store = memoryMediaStore({ baseUrl: 'https://rookery.test' });
t.beforeEach(async () => {
  h = await harness({ plugins: [mediaPlugin({ store }), pollsPlugin()] });
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(() => h.close());

const png = (width = 640, height = 480) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } }).png().toBuffer();

async function upload(user: TestUser, file: { filename: string; contentType: string; data: Uint8Array }, fields: Record<string, string> = {}, path = '/api/v1/media') {
  const body = multipart([{ name: 'file', value: file }, ...Object.entries(fields).map(([name, value]) => ({ name, value }))]);
  return h.request('POST', path, { token: user.token, payload: body.payload, headers: body.headers });
}
const image = async (user: TestUser, fields: Record<string, string> = {}) => (await upload(user, { filename: 'a.png', contentType: 'image/png', data: await png() }, fields)).json;
const publish = (user: TestUser, payload: unknown) => h.request('POST', '/api/v1/statuses', { token: user.token, payload });

t.test('a PNG: meta, preview, blurhash, description and focus; the files served', async (t) => {
  const res = await upload(alice, { filename: 'a.png', contentType: 'image/png', data: await png() }, { description: 'a red square', focus: '0.5,-0.25' });
  t.equal(res.statusCode, 200);
  const m = res.json;
  t.equal(m.type, 'image');
  t.same(m.meta.original, { width: 640, height: 480, size: '640x480', aspect: 640 / 480 });
  t.same(m.meta.small, { width: 554, height: 415, size: '554x415', aspect: 554 / 415 });
  t.same(m.meta.focus, { x: 0.5, y: -0.25 });
  t.equal(m.description, 'a red square');
  t.match(m.blurhash, /^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{20,}$/);
  t.match(m.url, /^https:\/\/rookery\.test\/system\/media\/\d+-original\.png$/);
  const file = await h.request('GET', new URL(m.url).pathname);
  t.equal(file.statusCode, 200);
  t.equal(file.headers['content-type'], 'image/png');
  t.equal(file.headers['cache-control'], 'public, max-age=31536000, immutable');
  const served = await sharp(file.raw).metadata();
  t.same([served.format, served.width, served.height], ['png', 640, 480], 'the original as processed');
  const preview = await h.request('GET', new URL(m.preview_url).pathname);
  t.equal(preview.headers['content-type'], 'image/jpeg');
  t.equal((await h.request('GET', '/system/media/nope.png')).statusCode, 404);
});

t.test('a JPEG with EXIF orientation is turned upright and stripped of its metadata', async (t) => {
  const data = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#336699' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  t.equal((await sharp(data).metadata()).orientation, 6, 'the upload says: rotate 90°');
  const res = await upload(alice, { filename: 'photo.jpg', contentType: 'image/jpeg', data });
  t.same(res.json.meta.original, { width: 100, height: 300, size: '100x300', aspect: 100 / 300 }, 'upright');
  const key = new URL(res.json.url).pathname.split('/').pop() ?? '';
  const stored = store.files.get(key);
  const meta = await sharp(stored?.data).metadata();
  t.same([meta.width, meta.height, meta.orientation, meta.exif], [100, 300, undefined, undefined], 'rotated pixels, no EXIF left');
});

t.test('a GIF, and a non-image refused', async (t) => {
  const gif = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#00ff00' } }).gif().toBuffer();
  const res = await upload(alice, { filename: 'a.gif', contentType: 'image/gif', data: gif });
  t.same([res.statusCode, res.json.type, res.json.meta.original.size], [200, 'image', '20x10']);
  const text = await upload(alice, { filename: 'notes.png', contentType: 'image/png', data: new TextEncoder().encode('this is not an image at all') });
  t.same([text.statusCode, text.json], [422, { error: 'Validation failed: File content type is invalid' }]);
  const none = await h.request('POST', '/api/v1/media', { token: alice.token, ...multipart([{ name: 'description', value: 'x' }]) });
  t.same([none.statusCode, none.json], [422, { error: "Validation failed: File can't be blank" }]);
  const long = await upload(alice, { filename: 'a.png', contentType: 'image/png', data: await png(8, 8) }, { description: 'x'.repeat(1501) });
  t.same([long.statusCode, long.json], [422, { error: 'Validation failed: Description is too long (maximum is 1500 characters)' }]);
  const scopes = await h.user('reader', { scopes: ['read'] });
  t.equal((await upload(scopes, { filename: 'a.png', contentType: 'image/png', data: await png(8, 8) })).statusCode, 403, 'write:media needed');
});

t.test('v2: 202 while processing, then 200 on GET; PUT description and focus; 404 for others', async (t) => {
  const res = await upload(alice, { filename: 'a.png', contentType: 'image/png', data: await png() }, {}, '/api/v2/media');
  t.equal(res.statusCode, 202);
  t.equal(res.json.url, null, 'no url while processing');
  // h.request drained the queue: the processing job has run.
  const done = await h.request('GET', `/api/v1/media/${res.json.id}`, { token: alice.token });
  t.equal(done.statusCode, 200);
  t.match(done.json.url, /-original\.png$/);
  t.same(done.json.meta.original.size, '640x480');
  const put = await h.request('PUT', `/api/v1/media/${res.json.id}`, { token: alice.token, payload: { description: 'alt', focus: '-2,0.1' } });
  t.same([put.json.description, put.json.meta.focus], ['alt', { x: -1, y: 0.1 }], 'focus clamped to -1..1');
  t.equal((await h.request('GET', `/api/v1/media/${res.json.id}`, { token: bob.token })).statusCode, 404);
  t.equal((await h.request('PUT', `/api/v1/media/${res.json.id}`, { token: bob.token, payload: { description: 'x' } })).statusCode, 404);
});

t.test('GET of media already attached to a status: 404, as Mastodon', async (t) => {
  const attached = await image(alice);
  const loose = await image(alice);
  t.equal((await h.request('GET', `/api/v1/media/${attached.id}`, { token: alice.token })).statusCode, 200, 'unattached: shown');
  t.equal((await publish(alice, { media_ids: [attached.id] })).statusCode, 200);
  const gone = await h.request('GET', `/api/v1/media/${attached.id}`, { token: alice.token });
  t.same([gone.statusCode, gone.json], [404, { error: 'Record not found' }]);
  const still = await h.request('GET', `/api/v1/media/${loose.id}`, { token: alice.token });
  t.same([still.statusCode, still.json.id], [200, loose.id], 'the caller\'s unattached media stays visible');
});

t.test('media_ids: every rule and text', async (t) => {
  const [m1, m2, m3, m4, m5] = [await image(alice), await image(alice), await image(alice), await image(alice), await image(alice)];
  const foreign = await image(bob);
  const ok = await publish(alice, { media_ids: [m2.id, m1.id] });
  t.equal(ok.statusCode, 200, 'media make an empty status valid');
  t.same(ok.json.media_attachments.map((m: { id: string }) => m.id), [m2.id, m1.id], 'order kept');
  const cases: [string, unknown, string][] = [
    ['five', { status: 'x', media_ids: [m1.id, m2.id, m3.id, m4.id, m5.id] }, 'Cannot attach more than 4 files'],
    ['with a poll', { status: 'x', media_ids: [m3.id], poll: { options: ['a', 'b'], expires_in: 600 } }, 'Cannot attach more than 4 files'],
    ['attached', { status: 'x', media_ids: [m1.id] }, `Media ${m1.id} not found or already attached to another post`],
    ['foreign and unknown', { status: 'x', media_ids: [m3.id, foreign.id, '123'] }, `Media ${foreign.id}, 123 not found or already attached to another post`],
  ];
  for (const [label, payload, error] of cases) {
    const res = await publish(alice, payload);
    t.same([res.statusCode, res.json], [422, { error }], label);
  }
  const audio = (await upload(alice, { filename: 'a.mp3', contentType: 'audio/mpeg', data: mp3() })).json;
  t.equal(audio.type, 'audio');
  const mixed = await publish(alice, { status: 'x', media_ids: [m3.id, audio.id] });
  t.same([mixed.statusCode, mixed.json], [422, { error: 'Cannot attach a video to a post that already contains images' }]);
  t.equal((await publish(alice, { status: 'alone', media_ids: [audio.id] })).statusCode, 200, 'audio alone is fine');
  const pending = (await upload(alice, { filename: 'a.png', contentType: 'image/png', data: await png() }, {}, '/api/v2/media')).json;
  const before = await h.core.storage.extend((await import('../../plugins/media/index.ts')).mediaStorage).update(pending.id, { processed: false });
  t.equal(before?.processed, false);
  const notReady = await publish(alice, { status: 'x', media_ids: [pending.id] });
  t.same([notReady.statusCode, notReady.json], [422, { error: 'Cannot attach files that have not finished processing. Try again in a moment!' }]);
});

t.test('edit replaces or removes media; history shows each revision\'s; keyword filters read alt text', async (t) => {
  const [m1, m2] = [await image(alice, { description: 'a kumquat' }), await image(alice)];
  const s = (await publish(alice, { status: 'pics', media_ids: [m1.id] })).json;
  const edited = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'pics', media_ids: [m2.id, m1.id] } });
  t.same(edited.json.media_attachments.map((m: { id: string }) => m.id), [m2.id, m1.id]);
  const history = (await h.request('GET', `/api/v1/statuses/${s.id}/history`)).json;
  t.same(history.map((e: { media_attachments: { id: string }[] }) => e.media_attachments.map((m) => m.id)), [[m1.id], [m2.id, m1.id]]);
  const bare = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'no pics now' } });
  t.same(bare.json.media_attachments, [], 'an edit without media_ids has none');
  await h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title: 'f', context: ['public'], filter_action: 'warn', keywords_attributes: [{ keyword: 'kumquat' }] } });
  const other = (await publish(alice, { status: 'fruit', media_ids: [(await image(alice, { description: 'a kumquat' })).id] })).json;
  t.equal((await h.request('GET', `/api/v1/statuses/${other.id}`, { token: bob.token })).json.filtered.length, 1, 'matched through the description');
});

t.test('delete and redraft round-trips with media', async (t) => {
  const m = await image(alice, { description: 'kept' });
  const s = (await publish(alice, { status: 'with a picture', media_ids: [m.id] })).json;
  const deleted = await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  t.same([deleted.json.text, deleted.json.media_attachments.map((x: { id: string }) => x.id)], ['with a picture', [m.id]]);
  const again = await publish(alice, { status: deleted.json.text, media_ids: deleted.json.media_attachments.map((x: { id: string }) => x.id) });
  t.equal(again.statusCode, 200, 'the media of a deleted status can be attached again');
  t.same([again.json.content, again.json.media_attachments[0].description], [s.content, 'kept']);
});

t.test('unattached uploads are removed after a day; attached ones stay', async (t) => {
  const loose = await image(alice);
  const used = await image(alice);
  const withMedia = (await publish(alice, { status: 'x', media_ids: [used.id] })).json;
  const files = store.files.size;
  h.clock.advance(86_400_001);
  await h.rookery.drain();
  t.equal((await h.request('GET', `/api/v1/media/${loose.id}`, { token: alice.token })).statusCode, 404, 'the loose upload is gone');
  // GET /api/v1/media/:id shows unattached media only (Mastodon): the status shows the attached one.
  const status = await h.request('GET', `/api/v1/statuses/${withMedia.id}`, { token: alice.token });
  t.same(status.json.media_attachments.map((m: { id: string; url: string }) => [m.id, m.url]), [[used.id, used.url]], 'the attached one stays');
  t.ok(store.files.size <= files - 2, 'its files are deleted too');
});

t.test('the instance states what the plugin accepts', async (t) => {
  const media = (await h.request('GET', '/api/v2/instance')).json.configuration.media_attachments;
  t.ok(media.supported_mime_types.includes('image/png'));
  t.notOk(media.supported_mime_types.includes('image/heic'), 'only types it can read');
  t.equal(media.image_size_limit, 16_777_216);
  t.equal(media.description_limit, 1500);
});

t.test('a deleted account: its uploads, attached or not, their files and its avatar go; others stay', async (t) => {
  const attached = await image(alice);
  t.equal((await publish(alice, { status: 'with a picture', media_ids: [attached.id] })).statusCode, 200);
  const loose = await image(alice);
  const avatar = multipart([{ name: 'avatar', value: { filename: 'a.png', contentType: 'image/png', data: await png(100, 100) } }]);
  const profile = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: avatar.payload, headers: avatar.headers });
  t.match(profile.json.avatar, /\/system\/media\//);
  const kept = await image(bob);
  const keys = (m: { url: string; preview_url: string }) => [m.url, m.preview_url].map((url) => url.slice(url.lastIndexOf('/') + 1));
  const avatarKey = (profile.json.avatar as string).slice((profile.json.avatar as string).lastIndexOf('/') + 1);
  for (const key of [...keys(attached), ...keys(loose), avatarKey, ...keys(kept)]) t.ok(store.files.has(key), `${key} stored`);

  await h.rookery.accounts.delete(alice.account.id);
  await h.rookery.drain();
  for (const key of [...keys(attached), ...keys(loose), avatarKey]) t.notOk(store.files.has(key), `${key} removed`);
  for (const key of keys(kept)) t.ok(store.files.has(key), `${key} kept`);
  t.equal((await h.request('GET', `/api/v1/media/${loose.id}`, { token: bob.token })).statusCode, 404);
  t.equal((await h.request('GET', `/api/v1/media/${kept.id}`, { token: bob.token })).statusCode, 200);
});
