// Server-sent events on the uWebSockets.js streaming server, over real sockets (docs/behaviour.md,
// "Streaming"): every path, every way to pass the token and every refusal with its exact
// text; headers, `:)`, heartbeats, the hub's own bytes for every event; the must-not cases;
// and the end of the response when the token is revoked.

import t from 'tap';
import { media } from '../../../adapters/testing/fixtures.ts';
import { act, follow, post, remoteAccount, remoteStatus } from '../../helpers/api.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { PASSWORD, registerApp, tokenRequest } from '../../helpers/oauth.ts';
import { openStream, type Sink } from '../../helpers/streams.ts';
import { getJson, SseReader, startStreaming, type Streaming } from '../../helpers/uws.ts';
import { mediaStorage } from '../../../plugins/media/index.ts';

let h: Harness;
let s: Streaming;
let alice: TestUser;
let bob: TestUser;
const readers: SseReader[] = [];

t.beforeEach(async () => {
  h = await harness();
  // No heartbeat in these tests unless one asks for it: the bytes are compared exactly.
  s = await startStreaming(h, { heartbeatMs: 3_600_000 });
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(async () => {
  for (const reader of readers.splice(0)) reader.close();
  await s.server.close();
  await h.close();
});

async function open(path: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await SseReader.open(`${s.http}${path}`, headers);
  readers.push(reader);
  return reader;
}

t.test('health: 200 OK as text/plain, no token needed', async (t) => {
  const res = await fetch(`${s.http}/api/v1/streaming/health`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/plain');
  t.equal(res.headers.get('cache-control'), 'private, no-store');
  t.equal(await res.text(), 'OK');
});

t.test('a stream: the headers of §3, chunked, `:)` first, then the hub\'s bytes for each event', async (t) => {
  const reader = await open(`/api/v1/streaming/public?access_token=${bob.token}`);
  t.equal(reader.status, 200);
  t.equal(reader.headers.get('content-type'), 'text/event-stream');
  t.equal(reader.headers.get('cache-control'), 'private, no-store');
  t.equal(reader.headers.get('transfer-encoding'), 'chunked');
  t.equal(reader.headers.get('access-control-allow-origin'), '*');
  t.equal(reader.headers.get('content-length'), null);
  await reader.opened();
  t.equal(reader.text, ':)\n', 'the opening, alone until something happens');
  const oracle = await openStream(h, bob, 'public');
  const status = await post(h, alice, 'hello streams');
  await h.request('DELETE', `/api/v1/statuses/${status.id}`, { token: alice.token });
  await reader.eventCount(2);
  t.strictSame(reader.names(), [`update ${status.id}`, `delete ${status.id}`]);
  t.equal(reader.text, `:)\n${oracle.sink.received.map((r) => r.sse).join('')}`, 'exactly the bytes the hub encoded');
  t.equal(reader.events()[1]?.data, status.id, 'a delete carries the bare id');
  t.equal(JSON.parse(reader.events()[0]?.data ?? '{}').content, '<p>hello streams</p>');
});

t.test('every path of §1 reads the stream the hub maps it to', async (t) => {
  await follow(h, bob, alice);
  const list = (await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'friends' } })).json;
  await h.request('POST', `/api/v1/lists/${list.id}/accounts`, { token: bob.token, payload: { account_ids: [alice.account.id] } });
  const paths: [string, string, Record<string, string>][] = [
    ['/api/v1/streaming/user', 'user', {}],
    ['/api/v1/streaming/user/notification', 'user:notification', {}],
    ['/api/v1/streaming/public', 'public', {}],
    ['/api/v1/streaming/public?only_media=true', 'public:media', {}],
    ['/api/v1/streaming/public/local', 'public:local', {}],
    ['/api/v1/streaming/public/local?only_media=1', 'public:local:media', {}],
    ['/api/v1/streaming/public/remote', 'public:remote', {}],
    ['/api/v1/streaming/public/remote?only_media=t', 'public:remote:media', {}],
    ['/api/v1/streaming/hashtag?tag=Cats', 'hashtag', { tag: 'Cats' }],
    ['/api/v1/streaming/hashtag/local?tag=cats', 'hashtag:local', { tag: 'cats' }],
    [`/api/v1/streaming/list?list=${list.id}`, 'list', { list: list.id }],
    ['/api/v1/streaming/direct', 'direct', {}],
  ];
  const streams: { path: string; reader: SseReader; sink: Sink }[] = [];
  for (const [path, name, params] of paths) {
    const reader = await open(`${path}${path.includes('?') ? '&' : '?'}access_token=${bob.token}`);
    await reader.opened();
    streams.push({ path, reader, sink: (await openStream(h, bob, name, params)).sink });
  }
  const mine = await post(h, bob, 'my own post');
  const hello = await post(h, alice, 'hello #cats');
  await act(h, alice, mine.id, 'favourite');
  const dm = await post(h, alice, { status: '@bob psst', visibility: 'direct' });
  const far = await remoteAccount(h, 'far');
  const remote = await remoteStatus(h, far, 'remote #cats', { tags: ['cats'] }, { announce: true });
  const attachment = media(h.core.ids.next(), far.id, { remoteUrl: 'https://far.example/cat.png' });
  await h.core.storage.extend(mediaStorage).create(attachment);
  const picture = await remoteStatus(h, far, 'a picture', { mediaIds: [attachment.id] }, { announce: true });
  await h.request('DELETE', `/api/v1/statuses/${hello.id}`, { token: alice.token });
  for (const { path, reader, sink } of streams) {
    const expected = `:)\n${sink.received.map((r) => r.sse).join('')}`;
    await reader.until((r) => r.text.length >= expected.length, `${path}: waiting for ${sink.received.length} event(s)`);
    t.equal(reader.text, expected, `${path}: the hub's events, byte for byte (${sink.events().join(', ')})`);
  }
  const byPath = Object.fromEntries(streams.map(({ path, reader }) => [path, reader.names()]));
  t.ok(byPath['/api/v1/streaming/user']?.includes(`update ${hello.id}`), 'user: a followed account');
  t.strictSame(byPath['/api/v1/streaming/user/notification'], ['notification favourite', 'notification mention']);
  t.strictSame(byPath['/api/v1/streaming/public/remote'], [`update ${remote.id}`, `update ${picture.id}`]);
  t.strictSame(byPath['/api/v1/streaming/public?only_media=true'], [`update ${picture.id}`], 'only_media: the status with media only');
  t.strictSame(byPath['/api/v1/streaming/public/local?only_media=1'], [], 'no local media');
  t.strictSame(byPath['/api/v1/streaming/hashtag?tag=Cats'], [`update ${hello.id}`, `update ${remote.id}`, `delete ${hello.id}`]);
  t.strictSame(byPath['/api/v1/streaming/hashtag/local?tag=cats'], [`update ${hello.id}`, `delete ${hello.id}`]);
  t.strictSame(byPath[`/api/v1/streaming/list?list=${list.id}`], [`update ${hello.id}`, `delete ${hello.id}`]);
  const [conversation] = (await h.request('GET', '/api/v1/conversations', { token: bob.token })).json as { id: string }[];
  t.strictSame(byPath['/api/v1/streaming/direct'], [`update ${dm.id}`, `conversation ${conversation?.id}`], 'the direct message, then its conversation');
});

t.test('the token: Authorization header, else access_token; the header wins even when wrong', async (t) => {
  const byHeader = await open('/api/v1/streaming/public', { authorization: `Bearer ${bob.token}` });
  t.equal(byHeader.status, 200);
  await byHeader.opened();
  const byQuery = await open(`/api/v1/streaming/public?access_token=${bob.token}`);
  t.equal(byQuery.status, 200);
  const wrongHeader = await getJson(`${s.http}/api/v1/streaming/public?access_token=${bob.token}`, { authorization: 'Bearer wrong' });
  t.strictSame(wrongHeader, { status: 401, type: 'application/json; charset=utf-8', cors: '*', body: { error: 'Invalid access token' } });
});

t.test('refusals: the hub\'s status and text as JSON, in Mastodon\'s order', async (t) => {
  const writer = await h.user('writer', { scopes: ['write'] });
  const app = await h.app(['read']);
  const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: 'mine' } })).json;
  const cases: [string, Record<string, string>, number, string][] = [
    ['/api/v1/streaming/public', {}, 401, 'Missing access token'],
    ['/api/v1/streaming/public?access_token=nope', {}, 401, 'Invalid access token'],
    [`/api/v1/streaming/public?access_token=${app.token}`, {}, 401, 'Invalid access token'],
    [`/api/v1/streaming/public?access_token=${writer.token}`, {}, 401, 'Access token does not have the required scopes'],
    ['/api/v1/streaming/nowhere', {}, 400, 'Unknown channel requested'],
    [`/api/v1/streaming?access_token=${bob.token}`, {}, 400, 'Unknown channel requested'],
    [`/api/v1/streaming/hashtag?access_token=${bob.token}`, {}, 400, 'Missing tag name parameter'],
    [`/api/v1/streaming/hashtag/local?tag=&access_token=${bob.token}`, {}, 400, 'Missing tag name parameter'],
    [`/api/v1/streaming/list?access_token=${bob.token}`, {}, 400, 'Missing list name parameter'],
    [`/api/v1/streaming/list?list=${list.id}&access_token=${bob.token}`, {}, 401, 'Not authorized to stream this list'],
    [`/api/v1/streaming/list?list=999999999999&access_token=${bob.token}`, {}, 401, 'Not authorized to stream this list'],
    ['/api/v1/streaming/user', { authorization: 'Bearer nope' }, 401, 'Invalid access token'],
  ];
  for (const [path, headers, status, error] of cases) {
    t.strictSame(await getJson(`${s.http}${path}`, headers), { status, type: 'application/json; charset=utf-8', cors: '*', body: { error } }, `${path} → ${status} ${error}`);
  }
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 }, 'a refused stream leaves nothing in the hub');
  t.strictSame(await getJson(`${s.http}/elsewhere`), { status: 404, type: 'application/json; charset=utf-8', cors: '*', body: { error: 'Not Found' } }, 'outside the streaming API: 404');
  const posted = await fetch(`${s.http}/api/v1/streaming/public?access_token=${bob.token}`, { method: 'POST' });
  t.equal(posted.status, 404, 'streams are GET only');
  await posted.body?.cancel();
});

t.test('CORS: every answer allows any origin; a preflight passes', async (t) => {
  const preflight = await fetch(`${s.http}/api/v1/streaming/user`, {
    method: 'OPTIONS',
    headers: { origin: 'https://elk.zone', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });
  t.equal(preflight.status, 204);
  t.equal(preflight.headers.get('access-control-allow-origin'), '*');
  t.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  t.equal(preflight.headers.get('access-control-allow-methods'), 'GET, OPTIONS');
  const health = await fetch(`${s.http}/api/v1/streaming/health`, { headers: { origin: 'https://elk.zone' } });
  t.equal(health.headers.get('access-control-allow-origin'), '*');
  await health.text();
});

t.test('must-not: private never on public, another tag never, a list of someone else never', async (t) => {
  const pub = await open(`/api/v1/streaming/public?access_token=${bob.token}`);
  const dogs = await open(`/api/v1/streaming/hashtag?tag=dogs&access_token=${bob.token}`);
  await Promise.all([pub.opened(), dogs.opened()]);
  await post(h, alice, { status: 'followers only #dogs', visibility: 'private' });
  await post(h, alice, { status: 'quiet #dogs', visibility: 'unlisted' });
  await post(h, alice, { status: '@bob secret #dogs', visibility: 'direct' });
  await post(h, alice, 'public but #cats');
  const last = await post(h, alice, 'public #dogs');
  await Promise.all([pub.eventCount(2), dogs.eventCount(1)]);
  t.strictSame(dogs.names(), [`update ${last.id}`], 'the tag stream: only the public status with its tag');
  t.equal(pub.names().length, 2, 'public: the two public statuses');
  t.equal(pub.names()[1], `update ${last.id}`, 'and nothing private before them');
  t.notOk(pub.text.includes('followers only') || pub.text.includes('quiet') || pub.text.includes('secret'), 'no private, unlisted or direct text at all');
  const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: "alice's" } })).json;
  t.strictSame((await getJson(`${s.http}/api/v1/streaming/list?list=${list.id}&access_token=${bob.token}`)).body, { error: 'Not authorized to stream this list' });
});

t.test('heartbeat: `:thump` on the interval, and the stream goes on', async (t) => {
  const beating = await startStreaming(h, { heartbeatMs: 25 });
  t.teardown(() => beating.server.close());
  const reader = await SseReader.open(`${beating.http}/api/v1/streaming/public?access_token=${bob.token}`);
  readers.push(reader);
  await reader.until((r) => r.text.split(':thump\n\n').length > 3, 'waiting for three heartbeats');
  t.match(reader.text, /^:\)\n(:thump\n\n)+$/, 'the opening, then heartbeats only');
  const status = await post(h, alice, 'between heartbeats');
  await reader.eventCount(1);
  t.strictSame(reader.names(), [`update ${status.id}`]);
});

t.test('revoking the token ends the response; the hub lets go of it', async (t) => {
  await h.user('carol');
  const registered = await registerApp(h);
  const creds = { client_id: registered.client_id, client_secret: registered.client_secret };
  const token = (await tokenRequest(h, { grant_type: 'password', username: 'carol', password: PASSWORD, scope: 'read', ...creds })).json.access_token as string;
  const carol = await open(`/api/v1/streaming/public?access_token=${token}`);
  const other = await open(`/api/v1/streaming/public?access_token=${bob.token}`);
  await Promise.all([carol.opened(), other.opened()]);
  const revoked = await h.request('POST', '/oauth/revoke', { payload: { token, ...creds } });
  t.equal(revoked.statusCode, 200);
  await carol.end();
  t.equal(carol.text, ':)\n', 'the response ended cleanly after the opening');
  t.equal(s.server.stats().sse, 1, 'the other stream stays');
  t.equal(h.rookery.streaming.stats().connections, 1);
  const status = await post(h, alice, 'after the revocation');
  await other.eventCount(1);
  t.strictSame(other.names(), [`update ${status.id}`]);
  t.strictSame((await getJson(`${s.http}/api/v1/streaming/public?access_token=${token}`)).body, { error: 'Invalid access token' }, 'and the token cannot open another');
});
