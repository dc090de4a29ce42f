// What each stream carries and to whom, through the core's stream entry on the in-process bus:
// the must-not cases of the streaming issue and the per-subscriber screen (block, mute,
// blocked-by, domain block, language, keyword hide and warn), with frames encoded once.

import t from 'tap';
import { BOOST_WINDOW } from '../../../../core/domain/feeds.ts';
import { act, follow, post, quietStatuses, remoteAccount, remoteStatus } from '../../../helpers/api.ts';
import { harness, type Harness, type TestUser } from '../../../helpers/harness.ts';
import { openStream } from '../../../helpers/streams.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(() => h.close());

t.test('public, local, remote and media streams get public statuses; never private ones or boosts', async (t) => {
  const pub = await openStream(h, bob, 'public');
  const local = await openStream(h, bob, 'public:local');
  const remote = await openStream(h, bob, 'public:remote');
  const media = await openStream(h, bob, 'public:media');
  const s = await post(h, alice, 'hello world');
  await post(h, alice, { status: 'followers only', visibility: 'private' });
  await post(h, alice, { status: 'quiet', visibility: 'unlisted' });
  await post(h, alice, { status: '@bob secret', visibility: 'direct' });
  await act(h, bob, s.id, 'reblog');
  const far = await remoteAccount(h, 'far');
  const r = await remoteStatus(h, far, 'from afar', {}, { announce: true });
  t.strictSame(pub.sink.events(), [`update ${s.id}`, `update ${r.id}`], 'public: both public statuses, nothing else');
  t.strictSame(local.sink.events(), [`update ${s.id}`]);
  t.strictSame(remote.sink.events(), [`update ${r.id}`]);
  t.strictSame(media.sink.events(), [], 'no media, nothing on the media stream');
  const first = pub.sink.received[0];
  t.equal(first?.payload.content, '<p>hello world</p>');
  t.notOk('favourited' in (first?.payload ?? {}), 'public streams carry the anonymous rendering');
  t.strictSame(first?.ws.stream, ['public']);
  t.equal(first?.sse, `event: update\ndata: ${first?.ws.payload}\n\n`);
});

t.test("a new status's jobs start with the streams': its live readers wait for every job begun before it", async (t) => {
  const s = await post(h, alice, '@bob hello');
  const status = await h.core.storage.statuses.get(s.id);
  if (status === null) throw new Error('the status was not stored');
  const names = h.core.jobs.jobsFor({ id: '1', event: { type: 'status.created', status, quotedStatusId: null } }).map((job) => job.name);
  t.strictSame(names, ['event:streams', 'event:notifications']);
});

t.test('hashtag streams: case-insensitive tags, never another tag, local ones only local', async (t) => {
  const upper = await openStream(h, bob, 'hashtag', { tag: 'Cats' });
  const lower = await openStream(h, bob, 'hashtag', { tag: '#cats' });
  const local = await openStream(h, bob, 'hashtag:local', { tag: 'CATS' });
  const dogs = await openStream(h, bob, 'hashtag', { tag: 'dogs' });
  const s = await post(h, alice, 'I love #cats');
  const far = await remoteAccount(h, 'far');
  const r = await remoteStatus(h, far, 'remote #cats', { tags: ['cats'] }, { announce: true });
  const reply = await post(h, alice, { status: 'and #CATS again', in_reply_to_id: s.id, visibility: 'public' });
  t.strictSame(upper.sink.events(), [`update ${s.id}`, `update ${r.id}`, `update ${reply.id}`], 'replies included');
  t.strictSame(upper.sink.received[0]?.ws.stream, ['hashtag', 'Cats'], 'the stream key as the client sent it');
  t.strictSame(lower.sink.received[0]?.ws.stream, ['hashtag', '#cats']);
  t.strictSame(local.sink.events(), [`update ${s.id}`, `update ${reply.id}`]);
  t.strictSame(dogs.sink.events(), [], 'another tag: nothing');
  t.equal(upper.sink.received[0]?.raw.sse(), lower.sink.received[0]?.raw.sse(), 'one SSE encoding for both subscriptions');
});

t.test("the user stream: home statuses and notifications; a muted conversation's notifications never", async (t) => {
  await follow(h, bob, alice);
  const home = await openStream(h, bob, 'user');
  const notes = await openStream(h, alice, 'user:notification');
  const s = await post(h, alice, { status: 'for my followers', visibility: 'private' });
  t.strictSame(home.sink.events(), [`update ${s.id}`], "a follower's home gets the private status");
  t.equal(home.sink.received[0]?.payload.favourited, false, 'rendered for a signed-in reader');
  t.strictSame(home.sink.received[0]?.payload.filtered, [], 'with its filter results');
  await act(h, bob, s.id, 'favourite');
  t.strictSame(notes.sink.events(), ['notification favourite'], 'the author is told');
  await act(h, alice, s.id, 'mute');
  const reply = await post(h, bob, { status: '@alice hi', in_reply_to_id: s.id });
  t.strictSame(notes.sink.events(), ['notification favourite'], 'no mention notification from a muted conversation');
  const readOnlyStatuses = await h.user('reader', { scopes: ['read:statuses', 'write'] });
  await follow(h, readOnlyStatuses, alice);
  const limited = await openStream(h, readOnlyStatuses, 'user');
  await act(h, bob, reply.id, 'favourite');
  await follow(h, alice, readOnlyStatuses);
  t.strictSame(limited.sink.events(), [], 'a user stream without read:notifications gets no notifications');
});

t.test('a list stream gets its members\' statuses; direct gets direct messages', async (t) => {
  await follow(h, bob, alice);
  const list = (await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'friends' } })).json;
  await h.request('POST', `/api/v1/lists/${list.id}/accounts`, { token: bob.token, payload: { account_ids: [alice.account.id] } });
  const listStream = await openStream(h, bob, 'list', { list: list.id });
  const direct = await openStream(h, bob, 'direct');
  const s = await post(h, alice, 'to the list');
  const d = await post(h, alice, { status: '@bob psst', visibility: 'direct' });
  t.strictSame(listStream.sink.events(), [`update ${s.id}`]);
  t.strictSame(listStream.sink.received[0]?.ws.stream, ['list', list.id]);
  const [conversation] = (await h.request('GET', '/api/v1/conversations', { token: bob.token })).json;
  t.strictSame(direct.sink.events(), [`update ${d.id}`, `conversation ${conversation.id}`], 'the status, then its conversation');
});

t.test("a delete reaches every stream that got the status's update, its boosts' too", async (t) => {
  await follow(h, bob, alice);
  const carol = await h.user('carol');
  await follow(h, carol, bob);
  const pub = await openStream(h, bob, 'public');
  const tag = await openStream(h, bob, 'hashtag', { tag: 'news' });
  const home = await openStream(h, bob, 'user');
  const carolHome = await openStream(h, carol, 'user');
  const s = await post(h, alice, 'big #news');
  // Far enough back in bob's home that his boost of it is not a repeat (core/feeds.ts).
  await quietStatuses(h, bob, BOOST_WINDOW);
  const b = await act(h, bob, s.id, 'reblog');
  await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  t.strictSame(pub.sink.events(), [`update ${s.id}`, `delete ${s.id}`]);
  t.strictSame(tag.sink.events(), [`update ${s.id}`, `delete ${s.id}`]);
  t.strictSame(home.sink.events(), [`update ${s.id}`, `update ${b.json.id}`, `delete ${s.id}`, `delete ${b.json.id}`]);
  t.strictSame(carolHome.sink.events(), [`update ${b.json.id}`, `delete ${b.json.id}`], "the boost's delete reaches the booster's followers");
  t.equal(pub.sink.received[1]?.sse, `event: delete\ndata: ${s.id}\n\n`, 'the bare id');
});

t.test('the per-subscriber screen: blocks, mutes, blocked-by, domain blocks, languages, keyword filters', async (t) => {
  const carol = await h.user('carol');
  const dave = await h.user('dave');
  const far = await remoteAccount(h, 'far', 'far.example');
  const stream = await openStream(h, bob, 'public');
  const delivered = () => stream.sink.events();

  await h.request('POST', `/api/v1/accounts/${alice.account.id}/block`, { token: bob.token });
  const blocked = await post(h, alice, 'by someone bob blocks');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/unblock`, { token: bob.token });
  await h.request('POST', `/api/v1/accounts/${carol.account.id}/mute`, { token: bob.token });
  const muted = await post(h, carol, 'by someone bob mutes');
  const mentionsMuted = await post(h, alice, 'hey @carol');
  await h.request('POST', `/api/v1/accounts/${bob.account.id}/block`, { token: dave.token });
  const blockedBy = await post(h, dave, 'by someone who blocks bob');
  await h.request('POST', '/api/v1/domain_blocks', { token: bob.token, payload: { domain: 'FAR.example' } });
  const fromBlockedDomain = await remoteStatus(h, far, 'from a blocked domain', {}, { announce: true });
  const fine = await post(h, alice, 'nothing to hide');
  t.strictSame(delivered(), [`update ${fine.id}`], 'only the status nothing hides');
  t.notOk([blocked, muted, mentionsMuted, blockedBy, fromBlockedDomain].some((s) => delivered().includes(`update ${s.id}`)));

  await h.core.storage.accounts.updateUser(bob.account.id, { settings: { ...(await h.core.storage.accounts.getUser(bob.account.id))!.settings, chosenLanguages: ['en'] } }, () =>
    h.core.record({ type: 'settings.changed', accountId: bob.account.id }),
  );
  await h.rookery.drain();
  const english = await post(h, alice, { status: 'in English', language: 'en' });
  const german = await post(h, alice, { status: 'auf Deutsch', language: 'de' });
  t.strictSame(delivered().slice(1), [`update ${english.id}`], 'chosen languages: only English now');
  t.notOk(delivered().includes(`update ${german.id}`));
});

t.test('keyword filters: hide drops in the context it names; warn adds filtered; other contexts untouched', async (t) => {
  await follow(h, bob, alice);
  const pub = await openStream(h, bob, 'public');
  const home = await openStream(h, bob, 'user');
  const other = await openStream(h, alice, 'public');
  const filter = (title: string, context: string[], action: string, keyword: string) =>
    h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title, context, filter_action: action, keywords_attributes: [{ keyword, whole_word: true }] } });
  const hideSpoilers = (await filter('spoilers', ['public'], 'hide', 'spoiler')).json;
  const warnCrypto = (await filter('crypto', ['home', 'public'], 'warn', 'Crypto')).json;
  t.strictSame(home.sink.events(), ['filters_changed', 'filters_changed'], 'the user stream hears of filter changes');
  t.strictSame(pub.sink.events(), [], 'public streams do not');
  const spoiler = await post(h, alice, 'big spoiler ahead');
  const crypto = await post(h, alice, 'all about crypto today');
  const plain = await post(h, alice, 'nothing special');
  t.strictSame(pub.sink.events(), [`update ${crypto.id}`, `update ${plain.id}`], 'public: hidden by the hide filter');
  t.strictSame(home.sink.events().slice(2), [`update ${spoiler.id}`, `update ${crypto.id}`, `update ${plain.id}`], 'home: the hide filter names only public');
  const warned = pub.sink.received[0]?.payload;
  t.strictSame(warned.filtered, [{ filter: warnCrypto, keyword_matches: ['Crypto'], status_matches: null }], 'warn: filtered with the matching keyword');
  t.strictSame(pub.sink.received[1]?.payload.filtered, undefined, 'no match on a public stream: the anonymous payload as it is');
  t.strictSame(home.sink.received[3]?.payload.filtered, [{ filter: warnCrypto, keyword_matches: ['Crypto'], status_matches: null }]);
  t.strictSame(other.sink.events(), [`update ${spoiler.id}`, `update ${crypto.id}`, `update ${plain.id}`], "one subscriber's filters are nobody else's");
  t.equal(other.sink.received[2]?.raw.sse(), pub.sink.received[1]?.raw.sse(), 'subscribers without a match share one encoding');
  t.not(other.sink.received[1]?.raw.sse(), pub.sink.received[0]?.raw.sse(), 'a match gets its own');
  await h.request('DELETE', `/api/v2/filters/${hideSpoilers.id}`, { token: bob.token });
  const again = await post(h, alice, 'another spoiler');
  t.ok(pub.sink.events().includes(`update ${again.id}`), 'a deleted filter no longer hides');
});

t.test("status filters: status_matches holds the matched status's id, also when it arrives boosted", async (t) => {
  // bob follows alice, who boosts carol's status (bob does not follow carol).
  const carol = await h.user('carol');
  await follow(h, bob, alice);
  const home = await openStream(h, bob, 'user');
  const s = await post(h, carol, 'filter this one');
  const filter = (await h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title: 'one status', context: ['home'], filter_action: 'warn' } })).json;
  await h.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: bob.token, payload: { status_id: s.id } });
  const boost = (await h.request('POST', `/api/v1/statuses/${s.id}/reblog`, { token: alice.token })).json;
  const delivered = home.sink.received.find((m) => m.event === 'update' && m.payload.id === boost.id);
  t.ok(delivered, 'the boost reaches the home stream');
  // The subscriber's own filters are applied at delivery, on the payload it receives.
  t.strictSame(delivered?.payload.filtered.map((r: { status_matches: string[] }) => r.status_matches), [[s.id]]);
});

t.test('a revoked token or a disabled account ends its streams', async (t) => {
  const stream = await openStream(h, bob, 'public');
  const other = await openStream(h, alice, 'public');
  const token = await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(bob.token));
  const app = await h.core.storage.oauth.getApplication(token?.applicationId ?? '');
  t.ok(app, 'the app of the token');
  await h.core.storage.oauth.revokeToken(token?.id ?? '', h.clock.now(), () => h.core.record({ type: 'token.revoked', tokenId: token?.id ?? '', accountId: bob.account.id }));
  await h.rookery.drain();
  t.equal(stream.sink.killed, 1, 'the revoked token\'s stream is killed');
  t.equal(other.sink.killed, 0, 'nobody else\'s');
  await post(h, alice, 'after the revocation');
  t.strictSame(stream.sink.events(), [], 'and gets nothing more');
  await h.core.storage.accounts.updateUser(alice.account.id, { disabled: true }, () => h.core.record({ type: 'account.disabled', accountId: alice.account.id }));
  await h.rookery.drain();
  t.equal(other.sink.killed, 1, 'a disabled account\'s streams end');
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 });
});

t.test('invalidateAll: after a bus outage every account state is read again', async (t) => {
  const stream = await openStream(h, bob, 'public');
  // A block that reached the store while no state-change message could arrive.
  await h.core.storage.relationships.block({ id: h.core.ids.next(), accountId: bob.account.id, targetAccountId: alice.account.id, createdAt: h.clock.now() });
  const before = await post(h, alice, 'the stale state still lets this through');
  t.strictSame(stream.sink.events(), [`update ${before.id}`], 'without the message, the state is the old one');
  h.rookery.streaming.invalidateAll();
  await h.rookery.streaming.settled();
  const after = await post(h, alice, 'now hidden');
  t.strictSame(stream.sink.events(), [`update ${before.id}`], `after invalidateAll the block applies: ${after.id} is not delivered`);
});
