// Instance information v1/v2, NodeInfo, and the placeholder images.

import t from 'tap';
import { mediaPlugin, pollsPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';
import { post } from '../../helpers/api.ts';

const h = await harness({ config: { title: 'Test Rookery', contactEmail: 'admin@rookery.test', limits: { maxCharacters: 1000 } }, plugins: [mediaPlugin(), pollsPlugin()] });
t.teardown(() => h.close());
const alice = await h.user('alice');
await h.user('bob');
await post(h, alice, 'one');
await post(h, alice, 'two');

t.test('v2: the fields clients read', async (t) => {
  const res = await h.request('GET', '/api/v2/instance');
  t.equal(res.statusCode, 200);
  const i = res.json;
  t.equal(i.domain, 'rookery.test');
  t.equal(i.title, 'Test Rookery');
  t.equal(i.version, '4.5.0 (compatible; Rookery 0.1.0)');
  t.equal(/^(\d+)\.(\d+)\.(\d+)/.exec(i.version)?.[0], '4.5.0', 'the leading semver clients parse');
  t.equal(i.usage.users.active_month, 2);
  t.equal(i.configuration.urls.streaming, 'wss://rookery.test');
  t.same(i.configuration.statuses, { max_characters: 1000, max_media_attachments: 4, characters_reserved_per_url: 23 });
  t.same(i.configuration.polls, { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2629746 });
  t.equal(i.configuration.accounts.max_pinned_statuses, 5);
  t.equal(i.configuration.media_attachments.image_size_limit, 16777216);
  t.ok(i.configuration.media_attachments.supported_mime_types.includes('image/png'));
  t.equal(i.configuration.translation.enabled, false);
  t.match(i.registrations, { enabled: true, approval_required: false, message: null });
  t.same(i.api_versions, { mastodon: 7 });
  t.same(i.contact, { email: 'admin@rookery.test', account: null });
  t.same(i.rules, []);
  t.type(i.thumbnail.url, 'string');
  t.same(i.languages, ['en']);
});

t.test('v1: the fields older clients read', async (t) => {
  const res = await h.request('GET', '/api/v1/instance');
  t.equal(res.statusCode, 200);
  const i = res.json;
  t.equal(i.uri, 'rookery.test');
  t.equal(i.title, 'Test Rookery');
  t.equal(i.version, '4.5.0 (compatible; Rookery 0.1.0)');
  t.same(i.urls, { streaming_api: 'wss://rookery.test' });
  t.same(i.stats, { user_count: 2, status_count: 2, domain_count: 0 });
  t.equal(i.registrations, true);
  t.equal(i.approval_required, false);
  t.equal(i.invites_enabled, false);
  t.equal(i.email, 'admin@rookery.test');
  t.equal(i.configuration.statuses.max_characters, 1000);
  t.equal(i.contact_account, null);
  t.type(i.thumbnail, 'string');
});

t.test('without the media and polls plugins: no uploads, no polls, as the core then refuses them', async (t) => {
  const bare = await harness();
  t.teardown(() => bare.close());
  for (const path of ['/api/v2/instance', '/api/v1/instance']) {
    const c = (await bare.request('GET', path)).json.configuration;
    t.equal(c.statuses.max_media_attachments, 0, path);
    t.same(c.media_attachments, {
      supported_mime_types: [], description_limit: 0, image_size_limit: 0, image_matrix_limit: 0, video_size_limit: 0, video_frame_rate_limit: 0, video_matrix_limit: 0,
    }, path);
    t.same(c.polls, { max_options: 0, max_characters_per_option: 0, min_expiration: 0, max_expiration: 0 }, path);
    t.same(c.accounts, { max_featured_tags: 10, max_pinned_statuses: 5, max_profile_fields: 4, profile_field_name_limit: 255, profile_field_value_limit: 255 }, path);
  }
});

t.test('streaming URL: configured, or derived from an http base URL', async (t) => {
  const configured = await harness({ config: { streamingUrl: 'wss://stream.rookery.test' } });
  t.equal((await configured.request('GET', '/api/v2/instance')).json.configuration.urls.streaming, 'wss://stream.rookery.test');
  t.equal((await configured.request('GET', '/api/v1/instance')).json.urls.streaming_api, 'wss://stream.rookery.test');
  await configured.close();
  const plain = await harness({ config: { domain: 'localhost:3000', baseUrl: 'http://localhost:3000' } });
  t.equal((await plain.request('GET', '/api/v2/instance')).json.configuration.urls.streaming, 'ws://localhost:3000');
  await plain.close();
});

t.test('registrations and limited federation from the configuration', async (t) => {
  const closed = await harness({ config: { registrations: { open: false, approvalRequired: true }, limitedFederation: true } });
  t.teardown(() => closed.close());
  const v2 = await closed.request('GET', '/api/v2/instance');
  t.equal(v2.statusCode, 200, 'readable anonymously even in limited-federation mode');
  t.match(v2.json.registrations, { enabled: false, approval_required: true });
  const v1 = await closed.request('GET', '/api/v1/instance');
  t.equal(v1.json.registrations, false);
  t.equal(v1.json.approval_required, true);
  t.equal((await closed.request('GET', '/api/v1/custom_emojis')).statusCode, 200);
});

t.test('a token is not looked at: even a bad one reads the instance', async (t) => {
  const res = await h.request('GET', '/api/v2/instance', { token: 'not-a-token' });
  t.equal(res.statusCode, 200);
});

t.test('peers, activity, rules and friends', async (t) => {
  for (const path of ['/api/v1/instance/peers', '/api/v1/instance/activity', '/api/v1/instance/rules', '/api/v1/instance/domain_blocks']) {
    const res = await h.request('GET', path);
    t.equal(res.statusCode, 200, path);
    t.same(res.json, [], path);
  }
  t.same((await h.request('GET', '/api/v1/instance/translation_languages')).json, {});
  t.same((await h.request('GET', '/api/v1/instance/extended_description')).json, { updated_at: null, content: '' });
});

t.test('NodeInfo: discovery and the document; megalodon recognises Mastodon upstream', async (t) => {
  const discovery = await h.request('GET', '/.well-known/nodeinfo');
  t.same(discovery.json, {
    links: [
      { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: 'https://rookery.test/nodeinfo/2.0' },
      { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: 'https://rookery.test/nodeinfo/2.1' },
    ],
  });
  const doc = await h.request('GET', '/nodeinfo/2.0');
  t.equal(doc.statusCode, 200);
  t.match(doc.json, {
    version: '2.0',
    software: { name: 'rookery', version: '0.1.0' },
    protocols: ['activitypub'],
    usage: { users: { total: 2 }, localPosts: 2 },
    openRegistrations: true,
    metadata: { upstream: { name: 'mastodon', version: '4.5.0' } },
  });
  t.same(doc.json.software, { name: 'rookery', version: '0.1.0' }, '2.0 has no homepage');
  const v21 = await h.request('GET', '/nodeinfo/2.1');
  t.match(v21.json, { version: '2.1', software: { name: 'rookery', version: '0.1.0', homepage: 'https://rookery.test' }, usage: { localPosts: 2 } });
  // Active: posted within 30 (180) days; of the two users, only one posted (just now).
  t.same(v21.json.usage.users, { total: 2, activeMonth: 1, activeHalfyear: 1 });
  h.clock.advance(31 * 86_400_000);
  t.same((await h.request('GET', '/nodeinfo/2.1')).json.usage.users, { total: 2, activeMonth: 0, activeHalfyear: 1 }, 'a month later');
  h.clock.advance(150 * 86_400_000);
  t.same((await h.request('GET', '/nodeinfo/2.1')).json.usage.users, { total: 2, activeMonth: 0, activeHalfyear: 0 }, 'half a year later');
  h.clock.advance(-181 * 86_400_000);
});

t.test('placeholder avatar and header: a valid PNG', async (t) => {
  for (const path of ['/avatars/original/missing.png', '/headers/original/missing.png']) {
    const res = await h.server.inject({ method: 'GET', url: path });
    t.equal(res.statusCode, 200, path);
    t.equal(res.headers['content-type'], 'image/png');
    const bytes = res.rawPayload;
    t.same([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
    t.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
    t.equal(bytes.readUInt32BE(16), 1, 'width');
    t.equal(bytes.readUInt32BE(20), 1, 'height');
  }
  const account = (await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json;
  t.equal(account.avatar, 'https://rookery.test/avatars/original/missing.png');
  t.equal(account.header, 'https://rookery.test/headers/original/missing.png');
});

t.test('languages: every code a status may carry, with its English name, as Mastodon lists them', async (t) => {
  const res = await h.request('GET', '/api/v1/instance/languages');
  t.equal(res.statusCode, 200);
  t.equal(res.json.length, 206);
  t.strictSame(res.json.slice(0, 3), [
    { code: 'aa', name: 'Afar' },
    { code: 'ab', name: 'Abkhaz' },
    { code: 'ae', name: 'Avestan' },
  ]);
  t.ok(res.json.every((l: Record<string, unknown>) => Object.keys(l).join() === 'code,name' && typeof l['name'] === 'string' && l['name'] !== ''));
  const byCode = new Map(res.json.map((l: { code: string; name: string }) => [l.code, l.name]));
  t.equal(byCode.get('en'), 'English');
  t.equal(byCode.get('ja'), 'Japanese');
  t.equal(byCode.get('ckb'), 'Sorani (Kurdish)');
  t.equal(byCode.get('tok'), 'Toki Pona');
  t.equal(res.json.findIndex((l: { code: string }) => l.code === 'ast'), res.json.findIndex((l: { code: string }) => l.code === 'zu') + 1, 'ISO 639-3 codes after the two-letter ones');
  // Each listed code is one a status keeps.
  const me = await h.user('polyglot');
  const tagged = await h.request('POST', '/api/v1/statuses', { token: me.token, payload: { status: 'toki!', language: 'tok' } });
  t.equal(tagged.json.language, 'tok');
  t.equal((await h.request('GET', '/api/v1/instance/languages', { token: me.token })).statusCode, 200, 'signed in too');
});

t.test('languages ask for a signed-in user in limited-federation mode, as Mastodon', async (t) => {
  const limited = await harness({ config: { limitedFederation: true } });
  t.teardown(() => limited.close());
  const anonymous = await limited.request('GET', '/api/v1/instance/languages');
  t.same([anonymous.statusCode, anonymous.json], [401, { error: 'This API requires an authenticated user' }]);
  const me = await limited.user('insider');
  t.equal((await limited.request('GET', '/api/v1/instance/languages', { token: me.token })).statusCode, 200);
});
