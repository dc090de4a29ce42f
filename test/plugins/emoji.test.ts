// Local custom emoji through the public surface: added with the plugin's tools (as the CLI
// does), listed by GET /api/v1/custom_emojis, their pictures served here (a still PNG beside),
// shown in the `emojis` of the statuses, polls, edits and accounts that use them and of no
// other, replaced and removed; bad shortcodes and pictures refused with their texts.

import sharp from 'sharp';
import t from 'tap';
import { imagesService } from '../../core/mastodon/host/kit.ts';
import { addEmoji, EMOJI_BYTES, emojiPlugin, emojiStorage, removeEmoji } from '../../plugins/emoji/index.ts';
import { mediaPlugin } from '../../plugins/media/index.ts';
import { pollsPlugin } from '../../plugins/polls/index.ts';
import { post } from '../helpers/api.ts';
import { harness } from '../helpers/harness.ts';

const h = await harness({ plugins: [mediaPlugin(), pollsPlugin(), emojiPlugin()] });
t.teardown(() => h.close());
const alice = await h.user('alice');
const tools = () => ({ repo: h.core.storage.extend(emojiStorage), images: h.rookery.service(imagesService), newId: () => h.core.ids.next(), now: h.clock.now() });
const png = (colour: string) => sharp({ create: { width: 32, height: 32, channels: 4, background: colour } }).png().toBuffer();
const gif = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#0a0' } }).gif().toBuffer();

const rook = await addEmoji(tools(), 'rook', await png('#123'), { category: 'Birds' });
const jay = await addEmoji(tools(), 'blue_jay', gif, { visibleInPicker: false });
const listed = (await h.request('GET', '/api/v1/custom_emojis')).json;
const base = h.core.config.baseUrl;

t.test('listed, by shortcode, with pictures served here', async (t) => {
  t.equal(rook.outcome, 'added');
  t.same(listed, [
    { shortcode: 'blue_jay', url: jay.emoji.url, static_url: jay.emoji.staticUrl, visible_in_picker: false, category: null },
    { shortcode: 'rook', url: rook.emoji.url, static_url: rook.emoji.staticUrl, visible_in_picker: true, category: 'Birds' },
  ]);
  t.match(rook.emoji.url, new RegExp(`^${base}/system/media/emoji-\\d+\\.png$`));
  t.match(jay.emoji.url, new RegExp(`^${base}/system/media/emoji-\\d+\\.gif$`), 'a GIF stays a GIF');
  t.match(jay.emoji.staticUrl, new RegExp(`^${base}/system/media/emoji-\\d+-static\\.png$`), 'with a still PNG');
  for (const url of [rook.emoji.url, jay.emoji.url, jay.emoji.staticUrl]) {
    const file = await h.request('GET', new URL(url).pathname);
    t.equal(file.statusCode, 200, url);
    t.same([(await sharp(file.raw).metadata()).format], [url.endsWith('.gif') ? 'gif' : 'png']);
  }
});

t.test('in the statuses, polls and edits that use them, and no other', async (t) => {
  const both = await post(h, alice, 'Hello :rook: and :blue_jay: and :nobody:', { spoiler_text: 'birds' });
  t.same(both.emojis, [listed[0], listed[1]], 'the create response lists both, by shortcode');
  t.same((await h.request('GET', `/api/v1/statuses/${both.id}`)).json.emojis, [listed[0], listed[1]]);
  const glued = await post(h, alice, 'Not these: a:rook: :rook:b ::rook::');
  t.same(glued.emojis, [], 'a shortcode glued to a letter, a digit or a colon is not one');
  const warned = await post(h, alice, 'plain', { spoiler_text: 'cw :rook:' });
  t.same(warned.emojis, [listed[1]], 'in the content warning');
  const polled = await post(h, alice, 'Vote', { poll: { options: ['tea :blue_jay:', 'coffee'], expires_in: 3600 } });
  t.same(polled.emojis, [listed[0]], 'in a poll option');
  const edited = await h.request('PUT', `/api/v1/statuses/${warned.id}`, { token: alice.token, payload: { status: 'now :blue_jay:', spoiler_text: '' } });
  t.same(edited.json.emojis, [listed[0]], 'an edit shows its own');
  const history = (await h.request('GET', `/api/v1/statuses/${warned.id}/history`)).json;
  t.same(history.map((entry: { emojis: unknown[] }) => entry.emojis), [[listed[1]], [listed[0]]], 'each revision its own');
  const timeline = (await h.request('GET', '/api/v1/timelines/public')).json;
  t.same(timeline.find((s: { id: string }) => s.id === both.id).emojis, [listed[0], listed[1]], 'and in timelines');
});

t.test('in the accounts whose name, bio or fields use them', async (t) => {
  const updated = await h.request('PATCH', '/api/v1/accounts/update_credentials', {
    token: alice.token,
    payload: { display_name: 'Alice :rook:', note: 'plain', fields_attributes: [{ name: 'bird', value: ':blue_jay:' }] },
  });
  t.equal(updated.statusCode, 200);
  t.same(updated.json.emojis, [listed[0], listed[1]]);
  t.same((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.emojis, [listed[0], listed[1]]);
  const bob = await h.user('bob');
  t.same((await h.request('GET', `/api/v1/accounts/${bob.account.id}`)).json.emojis, [], 'an account that uses none');
});

t.test('refused: bad shortcodes, pictures that are not PNG, GIF or WebP, too large; an existing one kept', async (t) => {
  const picture = await png('#321');
  const refusals: [string, string][] = [['r', 'Validation failed: Shortcode is too short (minimum is 2 characters)'], ['ro-ok', 'Validation failed: Shortcode is invalid'], ['x'.repeat(65), 'Validation failed: Shortcode is invalid']];
  for (const [code, text] of refusals) await t.rejects(addEmoji(tools(), code, picture), { status: 422, message: text }, code);
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
  await t.rejects(addEmoji(tools(), 'dark', jpeg), { status: 422, message: 'Validation failed: Image is not a PNG, GIF or WebP picture' });
  await t.rejects(addEmoji(tools(), 'dark', new TextEncoder().encode('not a picture at all')), { status: 422, message: 'Validation failed: Image is not a PNG, GIF or WebP picture' });
  await t.rejects(addEmoji(tools(), 'dark', new Uint8Array(EMOJI_BYTES + 1)), { status: 422, message: 'Validation failed: Image must be less than 256 KB' });
  const again = await addEmoji(tools(), 'rook', picture);
  t.same([again.outcome, again.emoji.url], ['exists', rook.emoji.url], 'without overwrite, the existing one stays');
  t.equal((await h.request('GET', '/api/v1/custom_emojis')).json.length, 2, 'nothing was added');
});

t.test('replaced and removed: the old pictures go', async (t) => {
  const replaced = await addEmoji(tools(), 'rook', await png('#456'), { overwrite: true });
  t.equal(replaced.outcome, 'replaced');
  t.not(replaced.emoji.url, rook.emoji.url);
  t.equal((await h.request('GET', new URL(rook.emoji.url).pathname)).statusCode, 404, 'the old picture is gone');
  t.equal((await h.request('GET', new URL(replaced.emoji.url).pathname)).statusCode, 200);
  t.equal(await removeEmoji(tools(), 'blue_jay'), true);
  t.equal(await removeEmoji(tools(), 'blue_jay'), false, 'removing twice');
  t.equal((await h.request('GET', new URL(jay.emoji.staticUrl).pathname)).statusCode, 404, 'its pictures are gone');
  t.same((await h.request('GET', '/api/v1/custom_emojis')).json.map((e: { shortcode: string }) => e.shortcode), ['rook']);
  const later = await post(h, alice, ':blue_jay: :rook:');
  t.same(later.emojis.map((e: { url: string }) => e.url), [replaced.emoji.url], 'a removed one is no longer shown');
});
