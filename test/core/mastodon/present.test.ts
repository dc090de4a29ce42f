// Every field of a Status and an Account, with its type and its presence rule, from the pure renderers.

import t from 'tap';
import { resolveConfig } from '../../../core/domain/config.ts';
import type { MediaAttachment, Poll, PreviewCard, ScheduledStatus } from '../../../core/domain/model.ts';
import { renderAccount } from '../../../core/mastodon/present/account.ts';
import { renderCard, renderMedia, renderPoll } from '../../../core/mastodon/entities/media.ts';
import { renderScheduledStatus } from '../../../core/mastodon/present/scheduled.ts';
import { renderStatus, type LoadedDecorator, type StatusBundle } from '../../../core/mastodon/present/status.ts';
import type { ViewerState } from '../../../core/domain/ports/storage.ts';
import { account, status } from '../../helpers/fixtures.ts';
import { keywordMatcher } from '../../../core/mastodon/entities/filter.ts';

const config = resolveConfig({ domain: 'rookery.test' });
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^[1-9][0-9]*$/;

const alice = account({ username: 'alice', displayName: 'Alice', note: 'Hi #there', statusesCount: 3, lastStatusAt: Date.UTC(2024, 4, 6, 7, 8, 9) });
const bob = account({ username: 'bob', domain: 'far.example', url: 'https://far.example/@bob', uri: 'https://far.example/users/bob' });

const emptyState = (): ViewerState => ({ favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() });

function bundle(overrides: Partial<StatusBundle> = {}): StatusBundle {
  return {
    accounts: new Map([[alice.id, alice], [bob.id, bob]]),
    statuses: new Map(),
    applications: new Map(),
    decorators: [],
    viewer: null,
    now: Date.UTC(2024, 0, 3),
    ...overrides,
  };
}

t.test('Account: every spec field with its type', async (t) => {
  const json = renderAccount(config, alice) as unknown as Record<string, unknown>;
  for (const key of ['id', 'username', 'acct', 'display_name', 'note', 'url', 'avatar', 'avatar_static', 'header', 'header_static']) {
    t.type(json[key], 'string', key);
  }
  for (const key of ['locked', 'bot']) t.type(json[key], 'boolean', key);
  for (const key of ['followers_count', 'following_count', 'statuses_count']) t.ok(Number.isInteger(json[key]), `${key} is an integer`);
  t.match(json['created_at'], TIMESTAMP);
  t.equal(json['created_at'], '2024-01-01T00:00:00.000Z', 'created_at is truncated to the day');
  t.equal(json['last_status_at'], '2024-05-06T00:00:00.000Z', 'last_status_at is a timestamp of the day');
  t.same(json['emojis'], []);
  t.same(json['fields'], []);
  t.equal(json['acct'], 'alice', 'acct of a local account is the username alone');
  t.equal(json['url'], 'https://rookery.test/@alice');
  t.equal(json['note'], '<p>Hi <a href="https://rookery.test/tags/there" class="mention hashtag" rel="tag">#<span>there</span></a></p>');
  t.equal(json['avatar'], 'https://rookery.test/avatars/original/missing.png');
  t.equal(json['statuses_count'], 3);
  t.match(json['id'], ID);
});

t.test('Account: remote acct, fields, and a never-posting account', async (t) => {
  t.equal(renderAccount(config, bob).acct, 'bob@far.example');
  t.equal(renderAccount(config, bob).url, 'https://far.example/@bob');
  t.equal(renderAccount(config, account()).last_status_at, null);
  const withField = renderAccount(config, account({ fields: [{ name: 'Site', value: 'https://a.example', verifiedAt: Date.UTC(2024, 1, 1) }] }));
  t.same(Object.keys(withField.fields[0] ?? {}).sort(), ['name', 'value', 'verified_at']);
  t.equal(withField.fields[0]?.verified_at, '2024-02-01T00:00:00.000Z');
  t.match(withField.fields[0]?.value, /^<a href="https:\/\/a\.example" target="_blank" rel="nofollow noopener me"/);
});

const SPEC_STATUS_FIELDS = [
  'id', 'created_at', 'in_reply_to_id', 'in_reply_to_account_id', 'sensitive', 'spoiler_text', 'visibility', 'language', 'uri', 'url',
  'replies_count', 'reblogs_count', 'favourites_count', 'reblog', 'application', 'account', 'media_attachments', 'mentions', 'tags', 'emojis', 'card', 'poll',
];
const PER_USER = ['favourited', 'reblogged', 'muted', 'bookmarked', 'pinned'];

t.test('Status, anonymous view: no per-user flags, pinned absent, content present', async (t) => {
  const post = status(alice, { text: 'hello', content: '<p>hello</p>', mentionIds: [bob.id], tags: ['cats'], language: 'en' });
  const json = renderStatus(config, post, bundle()) as unknown as Record<string, unknown>;
  for (const key of SPEC_STATUS_FIELDS) t.ok(key in json, `${key} present`);
  for (const key of PER_USER) t.notOk(key in json, `${key} absent for an anonymous viewer`);
  t.notOk('text' in json, 'no text outside the delete response');
  t.equal(json['content'], '<p>hello</p>');
  t.match(json['created_at'], TIMESTAMP);
  t.equal(json['in_reply_to_id'], null);
  t.equal(json['in_reply_to_account_id'], null);
  t.equal(json['spoiler_text'], '', 'spoiler_text is an empty string when none');
  t.equal(json['visibility'], 'public');
  t.equal(json['language'], 'en');
  t.equal(json['uri'], `https://rookery.test/users/alice/statuses/${post.id}`);
  t.equal(json['url'], `https://rookery.test/@alice/${post.id}`);
  for (const key of ['replies_count', 'reblogs_count', 'favourites_count']) t.equal(json[key], 0, key);
  t.equal(json['reblog'], null);
  t.equal(json['application'], null);
  t.equal(json['card'], null);
  t.equal(json['poll'], null);
  t.same(json['media_attachments'], []);
  t.same(json['emojis'], []);
  t.same(json['mentions'], [{ id: bob.id, username: 'bob', url: 'https://far.example/@bob', acct: 'bob@far.example' }]);
  t.same(json['tags'], [{ name: 'cats', url: 'https://rookery.test/tags/cats' }]);
  t.equal((json['account'] as Record<string, unknown>)['id'], alice.id);
});

t.test('Status, signed-in view: every per-user flag, as booleans', async (t) => {
  const post = status(alice);
  const state = emptyState();
  state.favourited.add(post.id);
  state.bookmarked.add(post.id);
  state.mutedConversations.add(post.conversationId);
  const json = renderStatus(config, post, bundle({ viewer: { state, filters: [], keywords: keywordMatcher([]) } })) as unknown as Record<string, unknown>;
  t.equal(json['favourited'], true);
  t.equal(json['reblogged'], false);
  t.equal(json['muted'], true);
  t.equal(json['bookmarked'], true);
  t.equal(json['pinned'], false, 'pinned present for a signed-in viewer');
  t.same(json['filtered'], []);
});

t.test('Status, delete response: text instead of content', async (t) => {
  const post = status(alice, { text: 'source *text*', content: '<p>rendered</p>' });
  const json = renderStatus(config, post, bundle(), { source: true }) as unknown as Record<string, unknown>;
  t.equal(json['text'], 'source *text*');
  t.notOk('content' in json, 'content absent');
  t.same(json['media_attachments'], []);
  t.ok('poll' in json);
});

t.test('Status, a boost: own id, the original in reblog, nothing of its own', async (t) => {
  const original = status(bob, { text: 'original', content: '<p>original</p>', local: false, uri: 'https://far.example/s/1', url: 'https://far.example/@bob/1' });
  const boost = status(alice, { reblogOfId: original.id, text: '', content: '' });
  const json = renderStatus(config, boost, bundle({ statuses: new Map([[original.id, original]]) }));
  t.equal(json?.id, boost.id);
  t.equal(json?.reblog?.id, original.id);
  t.equal(json?.reblog?.content, '<p>original</p>');
  t.equal(json?.content, '');
  t.equal(json?.language, null);
  t.equal(json?.uri, `https://rookery.test/users/alice/statuses/${boost.id}/activity`);
  t.equal(json?.reblog?.uri, 'https://far.example/s/1');
  t.equal(renderStatus(config, boost, bundle()), null, 'a boost whose original is missing is not rendered');
});

t.test("Status, a boost: the viewer's flags on the original; no pinned", async (t) => {
  const original = status(bob, { text: 'original', content: '<p>original</p>' });
  const boost = status(alice, { reblogOfId: original.id, text: '', content: '', conversationId: original.conversationId });
  const state = emptyState();
  state.favourited.add(original.id);
  state.reblogged.add(original.id);
  state.bookmarked.add(original.id);
  state.pinned.add(original.id);
  state.mutedConversations.add(original.conversationId);
  const json = renderStatus(config, boost, bundle({ statuses: new Map([[original.id, original]]), viewer: { state, filters: [], keywords: keywordMatcher([]) } })) as unknown as Record<string, unknown>;
  for (const flag of ['favourited', 'reblogged', 'bookmarked', 'muted']) t.equal(json[flag], true, flag);
  t.notOk('pinned' in json, 'a boost is never pinnable');
  t.equal((json['reblog'] as Record<string, unknown>)['pinned'], true);
});

t.test('Status: application, media, poll and card inlined', async (t) => {
  const media: MediaAttachment = {
    id: '11', accountId: alice.id, statusId: '1', type: 'image', url: 'https://rookery.test/m/1.png', previewUrl: 'https://rookery.test/m/1s.png',
    remoteUrl: null, description: null, blurhash: 'UABC', original: { width: 640, height: 480 }, small: { width: 400, height: 300 },
    focus: { x: 0.1, y: -0.2 }, extra: {}, processed: true, createdAt: 0,
  };
  const post = status(alice, { mediaIds: ['11'], applicationId: '5' });
  // The media plugin's part, as a decorator renders it (plugins/media does the same from its storage).
  const mediaDecorator: LoadedDecorator = {
    decorator: {
      plugin: 'test-media',
      perViewer: false,
      load: async () => null,
      render: (s, _loaded, out) => void (out.media_attachments = s.mediaIds.flatMap((id) => (id === media.id ? [renderMedia(media)] : []))),
    },
    loaded: null,
  };
  const json = renderStatus(config, post, bundle({
    decorators: [mediaDecorator],
    applications: new Map([['5', { id: '5', name: 'Tusky', website: null, redirectUris: [], scopes: [], clientId: 'x', clientSecretHash: 'y', createdAt: 0 }]]),
  }));
  t.same(json?.application, { name: 'Tusky', website: null });
  t.equal(json?.media_attachments.length, 1);
});

t.test('MediaAttachment: spec fields and meta shape', async (t) => {
  const json = renderMedia({
    id: '11', accountId: '1', statusId: null, type: 'image', url: 'https://x/1.png', previewUrl: 'https://x/1s.png', remoteUrl: null,
    description: null, blurhash: null, original: { width: 640, height: 480 }, small: { width: 400, height: 300 }, focus: { x: 0, y: 0.5 },
    extra: {}, processed: true, createdAt: 0,
  });
  t.equal(json.id, '11');
  t.equal(json.type, 'image');
  t.equal(json.url, 'https://x/1.png');
  t.equal(json.preview_url, 'https://x/1s.png');
  t.equal(json.remote_url, null);
  t.equal(json.text_url, 'https://x/1.png');
  t.equal(json.description, '', 'description is a string');
  t.equal(json.blurhash, '', 'blurhash is a string');
  t.same(json.meta['original'], { width: 640, height: 480, size: '640x480', aspect: 640 / 480 });
  t.same(json.meta['small'], { width: 400, height: 300, size: '400x300', aspect: 400 / 300 });
  t.same(json.meta['focus'], { x: 0, y: 0.5 });
});

t.test('Poll: spec fields, per-viewer votes, hidden totals', async (t) => {
  const poll: Poll = {
    id: '21', statusId: '1', accountId: '1', options: ['a', 'b'], votes: [2, 1], multiple: true, hideTotals: false,
    expiresAt: Date.UTC(2024, 0, 4), votesCount: 3, votersCount: 2, createdAt: 0,
  };
  const json = renderPoll(poll, Date.UTC(2024, 0, 3), [1]);
  t.same(json, {
    id: '21', expires_at: '2024-01-04T00:00:00.000Z', expired: false, multiple: true, votes_count: 3, voters_count: 2,
    options: [{ title: 'a', votes_count: 2 }, { title: 'b', votes_count: 1 }], emojis: [], voted: true, own_votes: [1],
  });
  t.equal(renderPoll(poll, Date.UTC(2024, 0, 5), null)['expired'], true, 'expired once expires_at has passed');
  t.notOk('voted' in renderPoll(poll, 0, null), 'no voted for an anonymous viewer');
  const hidden = renderPoll({ ...poll, hideTotals: true }, Date.UTC(2024, 0, 3), []);
  t.same(hidden['options'], [{ title: 'a', votes_count: null }, { title: 'b', votes_count: null }], 'totals hidden until it ends');
});

t.test('Card: spec fields as strings and integers', async (t) => {
  const card: PreviewCard = {
    id: '31', url: 'https://a.example/v', title: 'T', description: 'D', type: 'video', authorName: 'Au', authorUrl: 'https://a.example/au',
    providerName: 'P', providerUrl: 'https://a.example', html: '<iframe></iframe>', width: 480, height: 270, image: null, imageDescription: '',
    embedUrl: '', blurhash: null, language: null, publishedAt: null, fetchedAt: 0,
  };
  const json = renderCard(card) as unknown as Record<string, unknown>;
  for (const key of ['url', 'title', 'description', 'type', 'author_name', 'author_url', 'provider_name', 'provider_url', 'html', 'image', 'embed_url']) {
    t.type(json[key], 'string', key);
  }
  t.equal(json['width'], 480);
  t.equal(json['height'], 270);
  t.equal(json['type'], 'video');
});

t.test('ScheduledStatus: params echo the request, application_id an integer', async (t) => {
  const scheduled: ScheduledStatus = {
    id: '41', accountId: '1', scheduledAt: Date.UTC(2030, 0, 1, 12), createdAt: 0, claimedUntil: null,
    params: { text: 'later', mediaIds: null, sensitive: null, spoilerText: null, visibility: 'unlisted', inReplyToId: null, language: null, poll: null, idempotency: null, applicationId: '12345' },
  };
  const json = renderScheduledStatus(scheduled, []);
  t.equal(json.scheduled_at, '2030-01-01T12:00:00.000Z');
  t.equal(json.params.application_id, 12345);
  t.equal(json.params.text, 'later');
  for (const key of ['media_ids', 'sensitive', 'spoiler_text', 'scheduled_at', 'poll', 'idempotency', 'in_reply_to_id'] as const) {
    t.equal(json.params[key], null, `${key} null when unset`);
  }
  t.same(json.media_attachments, []);
});
