// PATCH /api/v1/accounts/update_credentials: every field in JSON, form and multipart bodies,
// Mastodon's validations with `details`, the posting defaults that publishing then uses, the
// account.updated event recorded with the write, what live streams show afterwards, and avatar
// and header images through the media plugin (stored, served, 400×400 and 1500×500), refused
// with a clear 422 without it.

import sharp from 'sharp';
import t from 'tap';
import type { DomainEvent } from '../../../core/domain/events/events.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import { mediaPlugin, memoryMediaStore } from '../../../plugins/media/index.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { multipart, type Part } from '../../helpers/multipart.ts';
import { openStream } from '../../helpers/streams.ts';

const PATH = '/api/v1/accounts/update_credentials';
const events: DomainEvent[] = [];
const listener: RookeryPlugin = {
  name: 'listener',
  register(host) {
    host.on('account.updated', async (event) => void events.push(event));
  },
};

let h: Harness;
let alice: TestUser;
t.beforeEach(async () => {
  events.length = 0;
  h = await harness({ plugins: [mediaPlugin({ store: memoryMediaStore({ baseUrl: 'https://rookery.test' }) }), listener] });
  alice = await h.user('alice', { displayName: 'Alice' });
});
t.afterEach(() => h.close());

const patch = (user: TestUser, payload: unknown, headers?: Record<string, string>) =>
  h.request('PATCH', PATH, headers ? { token: user.token, payload, headers } : { token: user.token, payload });
const form = (user: TestUser, parts: Part[]) => {
  const body = multipart(parts);
  return patch(user, body.payload, body.headers);
};
const me = async (user: TestUser) => (await h.request('GET', '/api/v1/accounts/verify_credentials', { token: user.token })).json;
const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#2a7' } }).png().toBuffer();

t.test('JSON: every field, answered with the CredentialAccount; account.updated recorded once', async (t) => {
  const res = await patch(alice, {
    display_name: '  Alice Liddell  ',
    note: 'Down the rabbit hole https://example.com/rabbit #wonderland',
    locked: true,
    bot: 'true',
    discoverable: false,
    fields_attributes: [{ name: 'Home', value: 'https://alice.example' }, { name: '', value: '' }, { name: 'Pronouns', value: 'she/her' }],
  });
  t.equal(res.statusCode, 200, res.body);
  const a = res.json;
  t.equal(a.display_name, 'Alice Liddell', 'stripped');
  t.equal(
    a.note,
    '<p>Down the rabbit hole <a href="https://example.com/rabbit" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/rabbit</span><span class="invisible"></span></a> <a href="https://rookery.test/tags/wonderland" class="mention hashtag" rel="tag">#<span>wonderland</span></a></p>',
  );
  t.same([a.locked, a.bot, a.discoverable, a.indexable], [true, true, false, false]);
  t.same(a.fields.map((f: { name: string }) => f.name), ['Home', 'Pronouns'], 'the blank entry dropped');
  t.match(a.fields[0].value, /^<a href="https:\/\/alice\.example" target="_blank" rel="nofollow noopener me"/, 'field links carry rel=me');
  t.same(a.source.fields, [{ name: 'Home', value: 'https://alice.example', verified_at: null }, { name: 'Pronouns', value: 'she/her', verified_at: null }]);
  t.equal(a.source.note, 'Down the rabbit hole https://example.com/rabbit #wonderland');
  t.same(Object.keys(a).filter((k) => k === 'source' || k === 'role'), ['source', 'role'], 'a CredentialAccount');
  t.same(await me(alice), a, 'verify_credentials agrees');
  const profile = (await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json;
  t.same([profile.display_name, profile.locked, profile.bot], ['Alice Liddell', true, true], 'and so does the public profile');
  t.equal(events.length, 1, 'one account.updated event');
  const [event] = events;
  t.same(event?.type === 'account.updated' ? [event.account.id, event.account.displayName, event.account.locked] : null, [alice.account.id, 'Alice Liddell', true]);
});

t.test('form and multipart bodies: Rails-style fields_attributes[i][name]', async (t) => {
  const urlencoded = await patch(
    alice,
    'display_name=Form&fields_attributes[0][name]=A&fields_attributes[0][value]=1&fields_attributes[1][name]=B&fields_attributes[1][value]=2&locked=0',
    { 'content-type': 'application/x-www-form-urlencoded' },
  );
  t.equal(urlencoded.statusCode, 200, urlencoded.body);
  t.same([urlencoded.json.display_name, urlencoded.json.locked], ['Form', false]);
  t.same(urlencoded.json.source.fields.map((f: { name: string; value: string }) => `${f.name}=${f.value}`), ['A=1', 'B=2']);
  const multi = await form(alice, [
    { name: 'note', value: 'from a form' },
    { name: 'fields_attributes[0][name]', value: 'Only' },
    { name: 'fields_attributes[0][value]', value: 'one' },
    { name: 'source[privacy]', value: 'private' },
  ]);
  t.equal(multi.statusCode, 200, multi.body);
  t.same([multi.json.note, multi.json.source.privacy, multi.json.display_name], ['<p>from a form</p>', 'private', 'Form'], 'what was not sent stays');
  t.same(multi.json.source.fields, [{ name: 'Only', value: 'one', verified_at: null }], 'fields_attributes replaces the fields');
  const cleared = await patch(alice, { fields_attributes: {} });
  t.same(cleared.json.fields, [], 'an empty set clears them');
  const nothing = await patch(alice, {});
  t.equal(nothing.statusCode, 200, 'an empty edit is fine');
  t.equal(nothing.json.display_name, 'Form');
});

t.test('limits: display name 30, note 500 with URLs counting 23, fields 4 of 255', async (t) => {
  const url = `https://example.com/${'a'.repeat(60)}`;
  t.equal((await patch(alice, { display_name: 'x'.repeat(30) })).statusCode, 200, '30 characters');
  t.equal((await patch(alice, { display_name: '🐦'.repeat(30) })).statusCode, 200, '30 characters outside the BMP');
  t.equal((await patch(alice, { note: `${'x'.repeat(476)} ${url}` })).statusCode, 200, '476 + 1 + a URL counted as 23 = 500');
  const long = await patch(alice, { note: `${'x'.repeat(477)} ${url}` });
  t.same([long.statusCode, long.json], [422, { error: 'Validation failed: Note is too long (maximum is 500 characters)', details: { note: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 500 characters)' }] } }]);
  const name = await patch(alice, { display_name: 'x'.repeat(31) });
  t.same([name.statusCode, name.json], [
    422,
    { error: 'Validation failed: Display name is too long (maximum is 30 characters)', details: { display_name: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 30 characters)' }] } },
  ]);
  const four = Array.from({ length: 4 }, (_, i) => ({ name: `n${i}`, value: `v${i}` }));
  t.equal((await patch(alice, { fields_attributes: four })).statusCode, 200, 'four fields');
  const five = await patch(alice, { fields_attributes: [...four, { name: 'n4', value: 'v4' }] });
  t.same([five.statusCode, five.json], [422, { error: 'Validation failed: Fields is too long (maximum is 4 characters)', details: { fields: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 4 characters)' }] } }]);
  const many = await patch(alice, { fields_attributes: Array.from({ length: 3000 }, () => ({ name: 'n', value: 'v' })) });
  t.same([many.statusCode, many.json.error], [422, 'Validation failed: Fields is too long (maximum is 4 characters)'], 'three thousand fields: refused without reading each');
  const tooMany = await patch(alice, { fields_attributes: Array.from({ length: 100_000 }, () => ({ name: 'n', value: 'v' })) });
  t.same([tooMany.statusCode, tooMany.json.error], [400, 'JSON payload has too many values (at most 10000)'], 'a hundred thousand: refused by the body bound before anything reads it');
  const huge = await patch(alice, { note: 'z'.repeat(2_000_000) });
  t.same([huge.statusCode, huge.json.error], [422, 'Validation failed: Note is too long (maximum is 500 characters)'], 'a 2 MB note: refused without counting it');
  t.same((await patch(alice, { fields_attributes: 'not fields' })).json.source.fields.length, 4, 'a lone string is not a set of fields: no change');
  const cut = await patch(alice, { fields_attributes: [{ name: 'n'.repeat(300), value: 'v'.repeat(300) }] });
  t.same(cut.json.source.fields.map((f: { name: string; value: string }) => [f.name.length, f.value.length]), [[255, 255]], 'names and values cut to 255, as Mastodon reads them');
});

t.test('every error at once, and nothing changed by a refused edit', async (t) => {
  const before = await me(alice);
  const res = await patch(alice, {
    display_name: 'y'.repeat(31),
    note: 'z'.repeat(501),
    fields_attributes: [{ name: '', value: 'a value without a name' }, ...Array.from({ length: 4 }, (_, i) => ({ name: `n${i}`, value: 'v' }))],
    source: { privacy: 'direct', language: 'klingon' },
    locked: true,
  });
  t.equal(res.statusCode, 422);
  t.same(res.json, {
    error:
      'Validation failed: Display name is too long (maximum is 30 characters), Note is too long (maximum is 500 characters), Fields is too long (maximum is 4 characters), Fields contains values with missing labels, Source privacy is not included in the list, Source language is not included in the list',
    details: {
      display_name: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 30 characters)' }],
      note: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 500 characters)' }],
      fields: [
        { error: 'ERR_TOO_LONG', description: 'is too long (maximum is 4 characters)' },
        { error: 'ERR_FIELDS_WITH_VALUES_MISSING_LABELS', description: 'contains values with missing labels' },
      ],
      'source[privacy]': [{ error: 'ERR_INCLUSION', description: 'is not included in the list' }],
      'source[language]': [{ error: 'ERR_INCLUSION', description: 'is not included in the list' }],
    },
  });
  t.same(await me(alice), before, 'nothing changed, not even locked');
  t.equal(events.length, 0, 'and no event recorded');
});

t.test('who may edit: a user token with write:accounts', async (t) => {
  const anonymous = await h.request('PATCH', PATH, { payload: { display_name: 'x' } });
  t.same([anonymous.statusCode, anonymous.json], [401, { error: 'The access token is invalid' }]);
  const reader = await h.user('reader', { scopes: ['read'] });
  const refused = await patch(reader, { display_name: 'x' });
  t.same([refused.statusCode, refused.json], [403, { error: 'This action is outside the authorized scopes' }]);
  const narrow = await h.user('narrow', { scopes: ['write:accounts'] });
  t.equal((await patch(narrow, { display_name: 'Narrow' })).json.display_name, 'Narrow', 'write:accounts suffices');
  const app = await h.app(['read', 'write']);
  const appToken = await h.request('PATCH', PATH, { token: app.token, payload: { display_name: 'x' } });
  t.same([appToken.statusCode, appToken.json], [422, { error: 'This method requires an authenticated user' }]);
});

t.test('source[…] become the posting defaults that publishing uses', async (t) => {
  const res = await patch(alice, { source: { privacy: 'unlisted', sensitive: true, language: 'de' } });
  t.same(res.json.source.privacy, 'unlisted');
  t.same([res.json.source.sensitive, res.json.source.language], [true, 'de']);
  const preferences = (await h.request('GET', '/api/v1/preferences', { token: alice.token })).json;
  t.same([preferences['posting:default:visibility'], preferences['posting:default:sensitive'], preferences['posting:default:language']], ['unlisted', true, 'de']);
  const posted = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Guten Tag' } })).json;
  t.same([posted.visibility, posted.sensitive, posted.language], ['unlisted', true, 'de'], 'the defaults applied');
  const explicit = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Hello', visibility: 'public', sensitive: false, language: 'en' } })).json;
  t.same([explicit.visibility, explicit.sensitive, explicit.language], ['public', false, 'en'], 'what a post says wins');
  const boost = (await h.request('POST', `/api/v1/statuses/${explicit.id}/reblog`, { token: alice.token })).json;
  t.equal(boost.visibility, 'unlisted', 'a boost takes the default visibility too');
  const reset = await patch(alice, { source: { language: '' } });
  t.equal(reset.json.source.language, null, 'an empty language clears the default');
  t.equal(reset.json.source.privacy, 'unlisted', 'the other defaults stay');
});

t.test('live streams show the new profile on the next status', async (t) => {
  const bob = await h.user('bob');
  const { sink } = await openStream(h, bob, 'public');
  await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'before' } });
  await form(alice, [{ name: 'display_name', value: 'Renamed' }, { name: 'avatar', value: { filename: 'a.png', contentType: 'image/png', data: await png(64, 64) } }]);
  await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'after' } });
  const updates = sink.received.filter((r) => r.event === 'update').map((r) => r.payload.account);
  t.equal(updates.length, 2);
  t.same([updates[0].display_name, updates[1].display_name], ['Alice', 'Renamed']);
  t.match(updates[1].avatar, /^https:\/\/rookery\.test\/system\/media\/\d+-avatar-\d+\.png$/);
  t.not(updates[1].avatar, updates[0].avatar);
});

t.test('avatar and header through the media plugin: stored, served, resized', async (t) => {
  const res = await form(alice, [
    { name: 'avatar', value: { filename: 'me.png', contentType: 'image/png', data: await png(640, 480) } },
    { name: 'header', value: { filename: 'banner.png', contentType: 'image/png', data: await png(2000, 400) } },
  ]);
  t.equal(res.statusCode, 200, res.body);
  const a = res.json;
  t.match(a.avatar, /^https:\/\/rookery\.test\/system\/media\/\d+-avatar-\d+\.png$/);
  t.match(a.header, /^https:\/\/rookery\.test\/system\/media\/\d+-header-\d+\.png$/);
  t.equal(a.avatar_static, a.avatar);
  t.equal(a.header_static, a.header);
  const avatar = await h.request('GET', new URL(a.avatar).pathname);
  t.equal(avatar.statusCode, 200);
  t.equal(avatar.headers['content-type'], 'image/png');
  const avatarMeta = await sharp(avatar.raw).metadata();
  t.same([avatarMeta.format, avatarMeta.width, avatarMeta.height], ['png', 400, 400], 'the avatar is 400×400');
  const headerMeta = await sharp((await h.request('GET', new URL(a.header).pathname)).raw).metadata();
  t.same([headerMeta.width, headerMeta.height], [1500, 500], 'the header is 1500×500');
  const profile = (await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json;
  t.same([profile.avatar, profile.header], [a.avatar, a.header], 'the public profile shows them');
  const onlyName = await patch(alice, { display_name: 'Still pictured' });
  t.same([onlyName.json.avatar, onlyName.json.header], [a.avatar, a.header], 'an edit without images keeps them');
  const replaced = await form(alice, [{ name: 'avatar', value: { filename: 'new.png', contentType: 'image/png', data: await png(100, 300) } }]);
  t.not(replaced.json.avatar, a.avatar, 'a new avatar');
  t.equal(replaced.json.header, a.header, 'the header stays');
  t.equal((await h.request('GET', new URL(replaced.json.avatar).pathname)).statusCode, 200);
  t.equal((await h.request('GET', new URL(a.avatar).pathname)).statusCode, 404, 'the replaced file is removed once the edit committed');
  t.equal((await h.request('GET', new URL(a.header).pathname)).statusCode, 200, 'the kept one is not');
});

t.test('DELETE /api/v1/profile/avatar and /header: the default image again, as Mastodon 4.2', async (t) => {
  const a = (
    await form(alice, [
      { name: 'avatar', value: { filename: 'me.png', contentType: 'image/png', data: await png(64, 64) } },
      { name: 'header', value: { filename: 'banner.png', contentType: 'image/png', data: await png(300, 100) } },
    ])
  ).json;
  events.length = 0;
  const noAvatar = await h.request('DELETE', '/api/v1/profile/avatar', { token: alice.token });
  t.equal(noAvatar.statusCode, 200);
  t.strictSame(noAvatar.json, await me(alice), 'the CredentialAccount, as verify_credentials shows it');
  t.same([noAvatar.json.avatar, noAvatar.json.avatar_static], ['https://rookery.test/avatars/original/missing.png', 'https://rookery.test/avatars/original/missing.png']);
  t.equal(noAvatar.json.header, a.header, 'the header stays');
  t.equal((await h.request('GET', new URL(a.avatar).pathname)).statusCode, 404, 'the file is removed once the edit committed');
  t.equal((await h.request('GET', new URL(a.header).pathname)).statusCode, 200);
  t.equal(events.length, 1, 'account.updated recorded (federation sends the Update)');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.avatar, 'https://rookery.test/avatars/original/missing.png');

  const noHeader = await h.request('DELETE', '/api/v1/profile/header', { token: alice.token });
  t.equal(noHeader.statusCode, 200);
  t.same([noHeader.json.header, noHeader.json.header_static], ['https://rookery.test/headers/original/missing.png', 'https://rookery.test/headers/original/missing.png']);
  t.equal((await h.request('GET', new URL(a.header).pathname)).statusCode, 404);
  const again = await h.request('DELETE', '/api/v1/profile/header', { token: alice.token });
  t.same([again.statusCode, again.json.header], [200, 'https://rookery.test/headers/original/missing.png'], 'nothing to remove: still 200');

  const reader = await h.user('reader', { scopes: ['read'] });
  const refused = await h.request('DELETE', '/api/v1/profile/avatar', { token: reader.token });
  t.same([refused.statusCode, refused.json], [403, { error: 'This action is outside the authorized scopes' }]);
  const writer = await h.user('writer', { scopes: ['write:accounts'] });
  t.equal((await h.request('DELETE', '/api/v1/profile/avatar', { token: writer.token })).statusCode, 200);
  t.same((await h.request('DELETE', '/api/v1/profile/avatar')).json, { error: 'The access token is invalid' });
});

t.test('avatar and header refusals: size, type, not a file', async (t) => {
  const big = new Uint8Array(8 * 1024 * 1024 + 1);
  big.set(await png(8, 8));
  const tooBig = await form(alice, [{ name: 'avatar', value: { filename: 'big.png', contentType: 'image/png', data: big } }]);
  t.same([tooBig.statusCode, tooBig.json], [
    422,
    { error: 'Validation failed: Avatar file size must be less than 8 MB', details: { avatar: [{ error: 'ERR_LESS_THAN', description: 'file size must be less than 8 MB' }] } },
  ]);
  const text = await form(alice, [{ name: 'header', value: { filename: 'h.png', contentType: 'image/png', data: new TextEncoder().encode('no image here, only words') } }]);
  t.same([text.statusCode, text.json], [422, { error: 'Validation failed: Header content type is invalid', details: { header: [{ error: 'ERR_INVALID', description: 'content type is invalid' }] } }]);
  const notFile = await patch(alice, { avatar: 'https://elsewhere.example/me.png' });
  t.same([notFile.statusCode, notFile.json.error], [422, 'Validation failed: Avatar content type is invalid'], 'a URL is not an image');
  t.equal((await me(alice)).avatar, 'https://rookery.test/avatars/original/missing.png', 'nothing changed');
  t.equal(events.length, 0);
});

t.test('without the media plugin: avatar and header are a clear 422, other fields still work', async (t) => {
  const bare = await harness();
  t.teardown(() => bare.close());
  const carol = await bare.user('carol');
  const body = multipart([{ name: 'avatar', value: { filename: 'a.png', contentType: 'image/png', data: await png(32, 32) } }]);
  const res = await bare.request('PATCH', PATH, { token: carol.token, payload: body.payload, headers: body.headers });
  t.same([res.statusCode, res.json], [422, { error: 'Validation failed: Avatar images are not supported by this server' }]);
  const header = await bare.request('PATCH', PATH, { token: carol.token, payload: { header: 'x', display_name: 'Carol' } });
  t.same([header.statusCode, header.json], [422, { error: 'Validation failed: Header images are not supported by this server' }]);
  const fine = await bare.request('PATCH', PATH, { token: carol.token, payload: { display_name: 'Carol', avatar: '' } });
  t.same([fine.statusCode, fine.json.display_name], [200, 'Carol'], 'an empty avatar is no avatar');
});

t.test('unlocking accepts the pending follow requests; locking keeps new ones pending', async (t) => {
  const fans = await Promise.all([h.user('fan1'), h.user('fan2')]);
  await patch(alice, { locked: true });
  for (const fan of fans) {
    const asked = await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: fan.token });
    t.equal(asked.json.requested, true, 'a request while locked');
  }
  t.equal((await h.request('GET', '/api/v1/follow_requests', { token: alice.token })).json.length, 2);
  t.equal((await patch(alice, { display_name: 'Still locked' })).json.source.follow_requests_count, 2, 'an edit that keeps the lock keeps them');
  const unlocked = await patch(alice, { locked: false });
  t.equal(unlocked.json.locked, false);
  t.same((await h.request('GET', '/api/v1/follow_requests', { token: alice.token })).json, [], 'no request left');
  const relationships = (await h.request('GET', `/api/v1/accounts/relationships?id[]=${alice.account.id}`, { token: fans[0]?.token ?? '' })).json;
  t.same([relationships[0].following, relationships[0].requested], [true, false], 'each became a follow');
  t.equal((await me(alice)).followers_count, 2);
});
