// Remote accounts and statuses stored through core/federation (as the federation plugin calls
// it), then read by local users over HTTP: the same timelines, threads, hashtags, notifications
// and visibility rules as local statuses, with the remote author's acct, uri, url and content.

import t from 'tap';
import type { DomainEvent } from '../../../../core/domain/events/events.ts';
import {
  deleteRemoteStatus,
  findStatusByUri,
  receiveRemoteStatus,
  remoteFavourite,
  removeRemoteAccount,
  updateRemoteStatus,
  upsertRemoteAccount,
  type RemoteAccountInput,
  type RemoteStatusInput,
} from '../../../../core/domain/federation/index.ts';
import type { RookeryPlugin } from '../../../../core/mastodon/host/types.ts';
import { follow, ids, post } from '../../../helpers/api.ts';
import { harness } from '../../../helpers/harness.ts';

const seen: DomainEvent[] = [];
const watcher: RookeryPlugin = {
  name: 'watcher',
  register(host) {
    for (const type of ['status.created', 'status.updated', 'status.deleted', 'account.updated'] as const) {
      host.on(type, async (event) => void seen.push(event));
    }
    host.provideDomainBlocks(async (domain) => domain === 'blocked.example');
  },
};

const h = await harness({ plugins: [watcher] });
t.teardown(() => h.close());
const amy = await h.user('amy');
const ben = await h.user('ben');
const T = Date.UTC(2026, 0, 2, 3, 4, 5);

const carolInput: RemoteAccountInput = {
  uri: 'https://far.example/users/carol',
  url: 'https://far.example/@carol',
  username: 'carol',
  domain: 'Far.Example',
  displayName: 'Carol',
  noteHtml: '<p>Hi <script>alert(1)</script><a href="javascript:x()">me</a></p>',
  fields: [{ name: 'web', valueHtml: '<a href="https://carol.example" onclick="x">carol.example</a>' }],
  avatarUrl: 'https://far.example/a.png',
  headerUrl: 'javascript:alert(1)',
  locked: false,
  bot: false,
  discoverable: true,
  createdAt: T,
};
const carol = await upsertRemoteAccount(h.core, carolInput);

function note(overrides: Partial<RemoteStatusInput> & { uri: string }): RemoteStatusInput {
  return {
    url: null,
    authorId: carol.id,
    contentHtml: '<p>hello</p>',
    spoilerText: '',
    sensitive: false,
    visibility: 'public',
    language: 'en',
    inReplyToUri: null,
    mentionIds: [],
    tags: [],
    createdAt: T + 1000,
    editedAt: null,
    ...overrides,
  };
}

async function get(path: string, token: string | null = null) {
  const res = await h.request('GET', path, { token });
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return res.json;
}

t.test('a remote account is stored sanitised and bounded, and rendered with its own acct and url', async (t) => {
  t.equal(carol.domain, 'far.example', 'domain stored lower case');
  const json = await get(`/api/v1/accounts/${carol.id}`);
  t.strictSame(
    {
      acct: json.acct,
      username: json.username,
      url: json.url,
      uri: json.uri,
      note: json.note,
      fields: json.fields,
      avatar: json.avatar,
      header: json.header,
      created_at: json.created_at,
      display_name: json.display_name,
    },
    {
      acct: 'carol@far.example',
      username: 'carol',
      url: 'https://far.example/@carol',
      uri: 'https://far.example/users/carol',
      note: '<p>Hi me</p>',
      fields: [{ name: 'web', value: '<a href="https://carol.example" rel="nofollow noopener" target="_blank">carol.example</a>', verified_at: null }],
      avatar: 'https://far.example/a.png',
      header: 'https://rookery.test/headers/original/missing.png',
      created_at: '2026-01-02T00:00:00.000Z',
      display_name: 'Carol',
    },
  );
  const looked = await get('/api/v1/accounts/lookup?acct=carol@far.example');
  t.equal(looked.id, carol.id, 'lookup finds the known remote account by user@domain');
  const res = await h.request('GET', '/api/v1/accounts/lookup?acct=nobody@far.example');
  t.equal(res.statusCode, 404);
  t.strictSame(res.json, { error: 'Record not found' });
});

t.test('upsert: the same uri refreshes; account.updated only on a real change', async (t) => {
  seen.length = 0;
  const again = await upsertRemoteAccount(h.core, carolInput);
  t.strictSame(again, await h.core.storage.accounts.get(carol.id), 'unchanged');
  await h.rookery.drain();
  t.strictSame(seen.filter((e) => e.type === 'account.updated'), [], 'no event without a change');
  const renamed = await upsertRemoteAccount(h.core, { ...carolInput, displayName: 'Carol C', url: 'https://far.example/profile/carol' });
  t.equal(renamed.id, carol.id, 'same account');
  t.equal(renamed.displayName, 'Carol C');
  t.equal(renamed.url, 'https://far.example/profile/carol');
  await h.rookery.drain();
  t.strictSame(seen.filter((e) => e.type === 'account.updated').map((e) => e.type === 'account.updated' && e.account.displayName), ['Carol C']);
  await upsertRemoteAccount(h.core, carolInput);
});

t.test('upsert refuses what cannot be a remote account, with a 422', async (t) => {
  const bad: [Partial<RemoteAccountInput>, string][] = [
    [{ uri: 'ftp://far.example/x' }, 'Validation failed: Uri is invalid'],
    [{ uri: 'https://far.example/users/x', username: '' }, 'Validation failed: Username is invalid'],
    [{ uri: 'https://far.example/users/x', username: 'a b' }, 'Validation failed: Username is invalid'],
    [{ uri: 'https://far.example/users/x', username: 'x'.repeat(256) }, 'Validation failed: Username is invalid'],
    [{ uri: 'https://rookery.test/users/x', username: 'x', domain: 'rookery.test' }, 'Validation failed: Domain is invalid'],
    [{ uri: 'https://far.example/users/other', username: 'carol' }, 'Validation failed: Username has already been taken'],
  ];
  for (const [patch, message] of bad) {
    await t.rejects(upsertRemoteAccount(h.core, { ...carolInput, ...patch }), { status: 422, message }, message);
  }
  const long = await upsertRemoteAccount(h.core, {
    ...carolInput,
    uri: 'https://far.example/users/long',
    username: 'long',
    displayName: 'd'.repeat(10_000),
    noteHtml: `<p>${'n'.repeat(1_000_000)}</p>`,
    fields: Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`.repeat(200), valueHtml: 'v'.repeat(10_000) })),
  });
  t.equal(long.displayName.length, 255, 'display name bounded');
  t.equal(long.note.length, 20_000 + 4, 'bio read up to its bound (and closed)');
  t.equal(long.fields.length, 16, 'sixteen fields at most');
  t.equal(long.fields[0]?.name.length, 255);
  t.equal(long.fields[0]?.value.length, 2048);
});

t.test('a remote public status reaches local followers, public?remote=true, the hashtag, exactly', async (t) => {
  // amy follows carol: a request until carol's server accepts (core/federation followAccepted).
  const followed = await follow(h, amy, { account: carol, token: '', application: amy.application });
  t.equal(followed.requested, true, 'a remote follow starts as a request');
  t.equal(followed.following, false);
  const { followAccepted } = await import('../../../../core/domain/federation/index.ts');
  t.equal(await followAccepted(h.core, amy.account.id, carol.id), true);
  const rel = await get(`/api/v1/accounts/relationships?id[]=${carol.id}`, amy.token);
  t.equal(rel[0].following, true, 'following once accepted');
  t.equal(rel[0].requested, false);

  seen.length = 0;
  const status = await receiveRemoteStatus(
    h.core,
    note({
      uri: 'https://far.example/users/carol/statuses/1',
      url: 'https://far.example/@carol/1',
      contentHtml: '<p>Look <a href="https://far.example/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a><img src=x onerror=alert(1)></p><script>x</script>',
      tags: ['#Cats', 'cats', ''],
    }),
  );
  if (status === null) throw new Error('not stored');
  await h.rookery.drain();
  t.strictSame(seen.map((e) => e.type), ['status.created'], 'status.created recorded');
  t.equal(status.local, false);
  t.strictSame(status.tags, ['cats']);
  t.equal(status.text, 'Look #cats', 'plain text kept for filters and search');

  const expected = {
    id: status.id,
    uri: 'https://far.example/users/carol/statuses/1',
    url: 'https://far.example/@carol/1',
    content: '<p>Look <a href="https://far.example/tags/cats" rel="nofollow noopener" target="_blank" class="mention hashtag">#<span>cats</span></a></p>',
    created_at: '2026-01-02T03:04:06.000Z',
    visibility: 'public',
    account: { id: carol.id, acct: 'carol@far.example', url: 'https://far.example/@carol', uri: 'https://far.example/users/carol' },
    tags: [{ name: 'cats', url: 'https://rookery.test/tags/cats' }],
  };
  const pick = (s: any) => ({
    id: s.id,
    uri: s.uri,
    url: s.url,
    content: s.content,
    created_at: s.created_at,
    visibility: s.visibility,
    account: { id: s.account.id, acct: s.account.acct, url: s.account.url, uri: s.account.uri },
    tags: s.tags,
  });
  t.strictSame(pick((await get('/api/v1/timelines/home', amy.token))[0]), expected, 'home of a local follower');
  t.strictSame(ids(await get('/api/v1/timelines/home', ben.token)), [], 'not in the home of a non-follower');
  t.strictSame((await get('/api/v1/timelines/public?remote=true')).map(pick), [expected], 'public?remote=true');
  t.strictSame(ids(await get('/api/v1/timelines/public?local=true')), [], 'not local');
  t.strictSame((await get('/api/v1/timelines/tag/cats')).map(pick), [expected], 'hashtag timeline');
  t.strictSame(pick(await get(`/api/v1/statuses/${status.id}`)), expected, 'the status itself');
  t.strictSame(ids(await get(`/api/v1/accounts/${carol.id}/statuses`)), [status.id], 'the remote account\'s statuses');
  t.equal((await get(`/api/v1/accounts/${carol.id}`)).statuses_count, 1);

  const again = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/1', contentHtml: '<p>other</p>' }));
  t.equal(again?.id, status.id, 'a second delivery is the same status');
  t.equal(again?.content, status.content, 'unchanged by the replay');
  await h.rookery.drain();
  t.strictSame(seen.map((e) => e.type), ['status.created'], 'no second event');
});

t.test('replies by uri both ways, context, mention notifications', async (t) => {
  const mine = await post(h, ben, 'a local thread start');
  const reply = await receiveRemoteStatus(
    h.core,
    note({
      uri: 'https://far.example/users/carol/statuses/2',
      url: 'https://far.example/@carol/2',
      inReplyToUri: `https://rookery.test/users/ben/statuses/${mine.id}`,
      contentHtml: '<p><span class="h-card"><a href="https://rookery.test/@ben" class="u-url mention">@<span>ben</span></a></span> yes</p>',
      mentionIds: [ben.account.id, '999999999999999999'],
    }),
  );
  if (reply === null) throw new Error('not stored');
  t.equal(reply.inReplyToId, mine.id, 'the reply is found by our uri');
  t.equal(reply.inReplyToAccountId, ben.account.id);
  t.equal(reply.conversationId, (await h.core.storage.statuses.get(mine.id))?.conversationId);
  t.strictSame(reply.mentionIds, [ben.account.id], 'unknown mentions dropped');
  const ctx = await get(`/api/v1/statuses/${mine.id}/context`, ben.token);
  t.strictSame(ids(ctx.descendants), [reply.id], 'in the context');
  t.equal(ctx.descendants[0].account.acct, 'carol@far.example');
  t.equal((await get(`/api/v1/statuses/${mine.id}`)).replies_count, 1, 'counted as a reply');

  const notes = await get('/api/v1/notifications', ben.token);
  t.strictSame(
    notes.map((n: any) => ({ type: n.type, account: n.account.acct, status: n.status?.id, uri: n.status?.uri })),
    [{ type: 'mention', account: 'carol@far.example', status: reply.id, uri: 'https://far.example/users/carol/statuses/2' }],
  );

  const deeper = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/3', inReplyToUri: 'https://far.example/users/carol/statuses/2' }));
  t.equal(deeper?.inReplyToId, reply.id, 'a reply to a remote status found by its uri');
  const orphan = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/4', inReplyToUri: 'https://elsewhere.example/notes/1' }));
  t.equal(orphan?.inReplyToId, null, 'an unknown parent: stored without it');
  t.equal(await findStatusByUri(h.core, `https://rookery.test/@ben/${mine.id}`).then((s) => s?.id), mine.id, 'our url form too');
  t.equal(await findStatusByUri(h.core, `https://rookery.test/users/amy/statuses/${mine.id}`), null, 'not under another author');
});

t.test('a later copy completes an earlier one: each mention told once, each hashtag indexed once', async (t) => {
  const uri = 'https://far.example/users/carol/statuses/30';
  const text = '<p>hi @amy #owls</p>';
  // First stored without its mentions and hashtags (as a lookup used to store it).
  const bare = await receiveRemoteStatus(h.core, note({ uri, contentHtml: text }));
  if (bare === null) throw new Error('not stored');
  await h.rookery.drain();
  seen.length = 0;
  const mentionsOf = async (user: typeof amy) =>
    (await get('/api/v1/notifications', user.token)).filter((n: any) => n.type === 'mention' && n.status?.id === bare.id).length;
  t.equal(await mentionsOf(amy), 0, 'nobody told yet');
  t.strictSame(ids(await get('/api/v1/timelines/tag/owls')), [], 'not under the hashtag yet');

  const full = note({ uri, contentHtml: text, mentionIds: [amy.account.id], tags: ['Owls'] });
  const completed = await receiveRemoteStatus(h.core, full);
  t.equal(completed?.id, bare.id, 'the same status');
  t.strictSame(completed?.mentionIds, [amy.account.id], 'its mention filled in');
  t.strictSame(completed?.tags, ['owls'], 'its hashtag filled in');
  t.equal(completed?.editedAt, null, 'not an edit');
  await h.rookery.drain();
  t.equal(await mentionsOf(amy), 1, 'the mentioned account is told');
  t.strictSame(ids(await get('/api/v1/timelines/tag/owls')), [bare.id], 'under the hashtag');

  // The same copy again, and an Update of the same text: nothing more.
  await receiveRemoteStatus(h.core, full);
  await updateRemoteStatus(h.core, full);
  await h.rookery.drain();
  t.equal(await mentionsOf(amy), 1, 'told once');
  t.strictSame(ids(await get('/api/v1/timelines/tag/owls')), [bare.id], 'indexed once');
  t.equal((await get(`/api/v1/statuses/${bare.id}`)).edited_at, null, 'still no edit');
  t.strictSame(seen.map((e) => e.type), [], 'no status.created nor status.updated');

  // Another text under the same uri is not a copy of this version: a Create does not edit.
  const other = await receiveRemoteStatus(h.core, note({ uri, contentHtml: '<p>other</p>', mentionIds: [ben.account.id] }));
  t.strictSame(other?.mentionIds, [amy.account.id], 'a different text completes nothing');

  // An edit that adds a mention tells the newly mentioned only, once.
  const edit = note({ uri, contentHtml: '<p>hi @amy @ben #owls</p>', mentionIds: [amy.account.id, ben.account.id], tags: ['owls'], editedAt: T + 9000 });
  await updateRemoteStatus(h.core, edit);
  await updateRemoteStatus(h.core, edit);
  await h.rookery.drain();
  t.equal(await mentionsOf(ben), 1, 'ben is told of the edit that mentions him');
  t.equal(await mentionsOf(amy), 1, 'amy is not told again');
  t.strictSame(seen.map((e) => e.type), ['status.updated'], 'one edit');
  // A Create of the first version, arriving after the edit, changes nothing.
  const late = await receiveRemoteStatus(h.core, full);
  t.strictSame(late?.mentionIds, [amy.account.id, ben.account.id], 'an older copy does not undo the edit');
});

t.test('a followers-only remote status is seen by local followers only', async (t) => {
  const priv = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/10', visibility: 'private', contentHtml: '<p>friends</p>' }));
  if (priv === null) throw new Error('not stored');
  t.equal((await get(`/api/v1/statuses/${priv.id}`, amy.token)).content, '<p>friends</p>', 'a follower sees it');
  t.equal(ids(await get('/api/v1/timelines/home', amy.token))[0], priv.id, 'in the follower\'s home');
  for (const token of [ben.token, null]) {
    const res = await h.request('GET', `/api/v1/statuses/${priv.id}`, { token });
    t.equal(res.statusCode, 404);
    t.strictSame(res.json, { error: 'Record not found' });
  }
  t.notOk(ids(await get('/api/v1/timelines/public?remote=true')).includes(priv.id), 'not public');
  t.notOk(ids(await get(`/api/v1/accounts/${carol.id}/statuses`, ben.token)).includes(priv.id), 'not on the profile for others');
});

t.test('edit and delete: only by the author', async (t) => {
  const dave = await upsertRemoteAccount(h.core, { ...carolInput, uri: 'https://far.example/users/dave', url: null, username: 'dave' });
  const original = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/20', contentHtml: '<p>first</p>' }));
  if (original === null) throw new Error('not stored');
  await h.rookery.drain();
  seen.length = 0;
  await t.rejects(updateRemoteStatus(h.core, note({ uri: original.uri as string, authorId: dave.id, contentHtml: '<p>hijack</p>' })), { status: 403, message: 'This action is not allowed' });
  await t.rejects(deleteRemoteStatus(h.core, original.uri as string, dave.id), { status: 403, message: 'This action is not allowed' }, 'delete by a non-author is refused');
  await t.rejects(deleteRemoteStatus(h.core, original.uri as string, amy.account.id), { status: 403, message: 'This action is not allowed' }, 'also by a local account');
  t.equal((await get(`/api/v1/statuses/${original.id}`)).content, '<p>first</p>', 'untouched');

  const edited = await updateRemoteStatus(h.core, note({ uri: original.uri as string, contentHtml: '<p>second <b onclick="x">bold</b></p>', editedAt: T + 5000 }));
  t.equal(edited?.content, '<p>second <b>bold</b></p>');
  const json = await get(`/api/v1/statuses/${original.id}`);
  t.equal(json.edited_at, '2026-01-02T03:04:10.000Z');
  const history = await get(`/api/v1/statuses/${original.id}/history`);
  t.strictSame(history.map((e: any) => e.content), ['<p>first</p>', '<p>second <b>bold</b></p>'], 'history: original, then the edit');
  t.equal(await updateRemoteStatus(h.core, note({ uri: 'https://far.example/users/carol/statuses/unknown' })), null, 'unknown uri: null');

  const removed = await deleteRemoteStatus(h.core, original.uri as string, carol.id);
  t.equal(removed?.id, original.id);
  const res = await h.request('GET', `/api/v1/statuses/${original.id}`);
  t.equal(res.statusCode, 404);
  t.equal(await deleteRemoteStatus(h.core, original.uri as string, carol.id), null, 'a second delete: nothing');
  t.equal(await receiveRemoteStatus(h.core, note({ uri: original.uri as string })), null, 'a replayed Create does not bring it back');
  await h.rookery.drain();
  t.strictSame(seen.map((e) => e.type), ['status.updated', 'status.deleted']);
});

t.test('hostile remote content is stored clean and bounded', async (t) => {
  const huge = await receiveRemoteStatus(
    h.core,
    note({
      uri: 'https://far.example/users/carol/statuses/big',
      contentHtml: `<p onmouseover="x"><a href="javascript:alert(1)">click</a><iframe src="https://evil.example"></iframe>${'y'.repeat(1_000_000)}`,
      spoilerText: 's'.repeat(5_000),
      tags: Array.from({ length: 500 }, (_, i) => `tag${i}`),
      mentionIds: Array.from({ length: 500 }, () => carol.id),
      language: 'not-a-language',
    }),
  );
  if (huge === null) throw new Error('not stored');
  t.equal(huge.content, `<p>click${'y'.repeat(100_000 - '<p onmouseover="x"><a href="javascript:alert(1)">click</a><iframe src="https://evil.example"></iframe>'.length)}</p>`, 'cut at its bound, closed, no link');
  t.equal(huge.spoilerText.length, 1_000);
  t.equal(huge.tags.length, 50);
  t.strictSame(huge.mentionIds, [carol.id]);
  t.equal(huge.language, null);
  const json = await get(`/api/v1/statuses/${huge.id}`);
  t.equal(json.content, huge.content, 'rendered as stored');
});

t.test('statuses from a domain the instance blocks are not stored', async (t) => {
  const eve = await upsertRemoteAccount(h.core, { ...carolInput, uri: 'https://blocked.example/users/eve', url: null, username: 'eve', domain: 'blocked.example' });
  t.equal(await receiveRemoteStatus(h.core, note({ uri: 'https://blocked.example/notes/1', authorId: eve.id })), null);
  t.equal(await h.core.storage.statuses.findByUri('https://blocked.example/notes/1'), null, 'nothing stored');
  await t.rejects(receiveRemoteStatus(h.core, note({ uri: 'https://far.example/notes/x', authorId: amy.account.id })), { status: 422, message: 'Validation failed: Account must be a remote account' });
  await t.rejects(receiveRemoteStatus(h.core, note({ uri: 'https://far.example/notes/y', visibility: 'secret' as never })), { status: 422, message: 'Validation failed: Visibility is invalid' });
});

t.test("a remote edit's quote: another status replaces it, none removes it, an unresolved one keeps it", async (t) => {
  const first = await post(h, amy, 'first to quote');
  const second = await post(h, ben, 'second to quote');
  const uri = 'https://far.example/users/carol/statuses/quote-edit';
  const quoting = await receiveRemoteStatus(h.core, note({ uri, contentHtml: '<p>quoting</p>', quote: { quotedStatusId: first.id, authorizationUri: null } }));
  if (quoting === null) throw new Error('not stored');
  const quoteNow = async () => (await h.core.storage.quotes.ofStatuses([quoting.id])).get(quoting.id) ?? null;
  t.equal((await quoteNow())?.quotedStatusId, first.id);

  const edit = (n: number, quote: RemoteStatusInput['quote']) =>
    updateRemoteStatus(h.core, note({ uri, contentHtml: `<p>edit ${n}</p>`, editedAt: T + 2000 + n, ...(quote === undefined ? {} : { quote }) }));
  await edit(1, { quotedStatusId: second.id, authorizationUri: null });
  await h.rookery.drain();
  t.match(await quoteNow(), { quotedStatusId: second.id, state: 'accepted' }, 'replaced: a local status its policy allows, accepted');
  t.equal((await get(`/api/v1/statuses/${first.id}`, amy.token)).quotes_count, 0, 'the first no longer counts it');
  t.strictSame(ids(await get(`/api/v1/statuses/${second.id}/quotes`, ben.token)), [quoting.id], 'the second lists it');
  const notes = await get('/api/v1/notifications?types[]=quote', ben.token);
  t.strictSame(notes.map((n: { status: { id: string } }) => n.status.id), [quoting.id], "the second's author is told");
  t.equal((await get(`/api/v1/statuses/${quoting.id}/history`, amy.token)).length, 2, 'one edit');

  await edit(2, { quotedStatusId: null, authorizationUri: null });
  t.equal((await quoteNow())?.quotedStatusId, second.id, 'a quote this server could not resolve: kept');
  await edit(3, undefined);
  t.equal((await quoteNow())?.quotedStatusId, second.id, 'nothing stated: kept');
  await edit(4, null);
  t.equal(await quoteNow(), null, 'no quote: removed');
  t.equal((await get(`/api/v1/statuses/${second.id}`, ben.token)).quotes_count, 0);
});

t.test('a remote account removed: its statuses gone, follows dropped', async (t) => {
  const gone = await upsertRemoteAccount(h.core, { ...carolInput, uri: 'https://far.example/users/gone', url: null, username: 'gone' });
  await follow(h, ben, { account: gone, token: '', application: ben.application });
  const { followAccepted, remoteFollow } = await import('../../../../core/domain/federation/index.ts');
  await followAccepted(h.core, ben.account.id, gone.id);
  t.equal(await remoteFollow(h.core, gone.id, amy.account.id, 'https://far.example/follows/1'), 'following');
  const s1 = await receiveRemoteStatus(h.core, note({ uri: 'https://far.example/users/gone/1', authorId: gone.id }));
  t.strictSame(ids(await get('/api/v1/timelines/home', ben.token)).includes(s1?.id as string), true);
  const liked = (await h.request('POST', '/api/v1/statuses', { token: amy.token, payload: { status: 'liked from afar' } })).json;
  await remoteFavourite(h.core, gone.id, liked.id);
  t.equal((await get(`/api/v1/statuses/${liked.id}`)).favourites_count, 1);
  t.equal(await removeRemoteAccount(h.core, 'https://far.example/users/gone'), true);
  t.equal(await removeRemoteAccount(h.core, 'https://far.example/users/gone'), true, 'a second Delete changes nothing');
  t.equal(await removeRemoteAccount(h.core, 'https://far.example/users/never'), false);
  t.equal((await h.request('GET', `/api/v1/accounts/${gone.id}`)).statusCode, 404, 'gone at once');
  await h.rookery.drain();
  const account = await h.core.storage.accounts.get(gone.id);
  t.strictSame([account?.statusesCount, account?.followersCount, account?.followingCount], [0, 0, 0], 'emptied in the background');
  t.notOk(ids(await get('/api/v1/timelines/home', ben.token)).includes(s1?.id as string), 'gone from home');
  t.equal((await get(`/api/v1/accounts/${amy.account.id}`)).followers_count, 0, 'its follow of amy dropped');
  t.equal((await get(`/api/v1/accounts/${ben.account.id}`)).following_count, 0, 'ben no longer follows it');
  t.equal((await get(`/api/v1/statuses/${liked.id}`)).favourites_count, 0, 'its favourite withdrawn');
  t.strictSame(await get(`/api/v1/statuses/${liked.id}/favourited_by`), [], 'and no longer listed');
});
