// WebSocket on the uWebSockets.js streaming server, over real sockets (docs/behaviour.md,
// "Streaming"): the three ways to pass a token (the protocol echoed back), the raw
// refusal of an upgrade, any path, the query's initial subscription, multiplexed subscribe and
// unsubscribe, error frames, the hub's bytes for every event, binary → 1003, pings, kill →
// 1000 on revocation, shutdown → 1001, the must-not cases, and an unmasked client frame (a todo:
// uWebSockets.js cannot refuse one).

import t from 'tap';
import WebSocket from 'ws';
import { follow, post } from '../../helpers/api.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { PASSWORD, registerApp, tokenRequest } from '../../helpers/oauth.ts';
import { openStream } from '../../helpers/streams.ts';
import { RawWebSocket, rawUpgrade, SseReader, startStreaming, WsReader, type Streaming } from '../../helpers/uws.ts';

let h: Harness;
let s: Streaming;
let alice: TestUser;
let bob: TestUser;
const clients: WsReader[] = [];

t.beforeEach(async () => {
  h = await harness();
  s = await startStreaming(h);
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await s.server.close();
  await h.close();
});

async function open(path: string, protocols?: string | string[], options: WebSocket.ClientOptions = {}): Promise<WsReader> {
  const client = await WsReader.open(`${s.ws}${path}`, protocols, options);
  clients.push(client);
  return client;
}

t.test('the token: Authorization header, access_token, or Sec-WebSocket-Protocol, which is echoed back', async (t) => {
  const byHeader = await open('/api/v1/streaming?stream=public', undefined, { headers: { authorization: `Bearer ${bob.token}` } });
  const byQuery = await open(`/api/v1/streaming?stream=public&access_token=${bob.token}`);
  const byProtocol = await open('/api/v1/streaming?stream=public', bob.token);
  t.equal(byProtocol.socket.protocol, bob.token, 'the protocol masto.js offers is the one selected');
  t.equal(byQuery.socket.protocol, '', 'no protocol offered, none selected');
  await Promise.all([byHeader.sync(), byQuery.sync(), byProtocol.sync()]);
  const status = await post(h, alice, 'to every socket');
  for (const client of [byHeader, byQuery, byProtocol]) {
    await client.messageCount(1);
    t.strictSame(client.names(), [`update ${status.id}`]);
  }
  const both = await open(`/api/v1/streaming?access_token=${bob.token}`, 'other-protocol');
  t.equal(both.socket.protocol, 'other-protocol', 'an offered protocol is echoed even when the token came another way');
});

t.test('refused upgrades: raw 401, Content-Length: 0, X-Error-Message with the hub\'s text', async (t) => {
  const app = await h.app(['read']);
  await h.core.storage.accounts.updateUser(alice.account.id, { disabled: true });
  const cases: [string, Record<string, string>, string][] = [
    ['/api/v1/streaming', {}, 'Missing access token'],
    ['/api/v1/streaming?access_token=nope', {}, 'Invalid access token'],
    ['/api/v1/streaming', { Authorization: 'Bearer nope' }, 'Invalid access token'],
    [`/api/v1/streaming?access_token=${bob.token}`, { Authorization: 'Bearer nope' }, 'Invalid access token'],
    ['/api/v1/streaming', { 'Sec-WebSocket-Protocol': 'nope' }, 'Invalid access token'],
    [`/api/v1/streaming?access_token=${app.token}`, {}, 'Invalid access token'],
    [`/api/v1/streaming?access_token=${alice.token}`, {}, 'Invalid access token'],
  ];
  for (const [path, headers, message] of cases) {
    const response = await rawUpgrade(s.server.port, path, headers);
    const [head = ''] = response.split('\r\n\r\n');
    const lines = head.split('\r\n');
    t.equal(lines[0], 'HTTP/1.1 401 Unauthorized', `${path} ${JSON.stringify(headers)}: 401`);
    t.ok(lines.includes('Content-Length: 0'), 'Content-Length: 0');
    t.ok(lines.includes(`X-Error-Message: ${message}`), `X-Error-Message: ${message}`);
    t.equal(response.slice(head.length), '\r\n\r\n', 'no body');
  }
  const refused = new WebSocket(`${s.ws}/api/v1/streaming`);
  const error = await new Promise<Error>((resolve) => refused.once('error', resolve));
  t.equal(error.message, 'Unexpected server response: 401', 'a client library sees the 401');
  t.equal(h.rookery.streaming.stats().connections, 0);
});

t.test('any path upgrades; a token without read scopes connects but cannot subscribe', async (t) => {
  for (const path of ['/api/v1/streaming', '/api/v1/streaming/', '/api/v1/streaming/user', '/', '/anything/at/all']) {
    const client = await open(`${path}?access_token=${bob.token}`);
    t.equal(client.socket.readyState, WebSocket.OPEN, `${path} upgrades`);
  }
  const writer = await h.user('writer', { scopes: ['write'] });
  const client = await open(`/api/v1/streaming?access_token=${writer.token}&stream=public`);
  await client.messageCount(1);
  t.strictSame(client.messages, [{ error: 'Access token does not have the required scopes', status: 401 }], 'the initial subscription is refused with an error frame');
  client.send({ type: 'subscribe', stream: 'user' });
  await client.messageCount(2);
  t.strictSame(client.messages[1], { error: 'Access token does not have the required scopes', status: 401 });
  t.equal(client.socket.readyState, WebSocket.OPEN, 'and the socket stays open');
});

t.test('initial subscription from the query: stream, tag, list; events are the hub\'s bytes', async (t) => {
  await follow(h, bob, alice);
  const list = (await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'friends' } })).json;
  await h.request('POST', `/api/v1/lists/${list.id}/accounts`, { token: bob.token, payload: { account_ids: [alice.account.id] } });
  const pub = await open(`/api/v1/streaming?stream=public&access_token=${bob.token}`);
  const tag = await open(`/api/v1/streaming?stream=hashtag&tag=Cats&access_token=${bob.token}`);
  const local = await open(`/api/v1/streaming?stream=hashtag:local&tag=cats&access_token=${bob.token}`);
  const friends = await open(`/api/v1/streaming?stream=list&list=${list.id}&access_token=${bob.token}`);
  const user = await open(`/api/v1/streaming?stream=user&access_token=${bob.token}`);
  const raw: Record<string, string[]> = {};
  for (const [name, client] of Object.entries({ pub, tag, local, friends, user })) {
    await client.sync();
    raw[name] = [];
    client.socket.on('message', (data) => raw[name]?.push(String(data)));
  }
  const oracles = {
    pub: (await openStream(h, bob, 'public')).sink,
    tag: (await openStream(h, bob, 'hashtag', { tag: 'Cats' })).sink,
    local: (await openStream(h, bob, 'hashtag:local', { tag: 'cats' })).sink,
    friends: (await openStream(h, bob, 'list', { list: list.id })).sink,
    user: (await openStream(h, bob, 'user')).sink,
  };
  const status = await post(h, alice, 'I love #cats');
  await h.request('DELETE', `/api/v1/statuses/${status.id}`, { token: alice.token });
  for (const [name, client] of Object.entries({ pub, tag, local, friends, user })) {
    await client.messageCount(2);
    t.strictSame(client.names(), [`update ${status.id}`, `delete ${status.id}`], `${name}: update then delete`);
    const sink = oracles[name as keyof typeof oracles];
    t.strictSame(raw[name], sink.received.map((r) => new TextDecoder().decode(r.raw.ws())), `${name}: exactly the hub's frames`);
  }
  t.strictSame(pub.messages[0].stream, ['public']);
  t.strictSame(tag.messages[0].stream, ['hashtag', 'Cats'], 'the stream key as the client sent it');
  t.strictSame(local.messages[0].stream, ['hashtag:local', 'cats']);
  t.strictSame(friends.messages[0].stream, ['list', list.id]);
  t.equal(typeof pub.messages[0].payload, 'string', 'the payload is a JSON string');
  t.equal(pub.messages[1].payload, status.id, 'a delete carries the bare id');
});

t.test('multiplexed subscribe and unsubscribe on one socket; other messages are ignored', async (t) => {
  const client = await open(`/api/v1/streaming?access_token=${bob.token}`);
  client.send({ type: 'subscribe', stream: 'public' });
  client.send({ type: 'subscribe', stream: ['hashtag:local'], tag: 'dogs' });
  client.send({ type: 'subscribe', stream: 'public' });
  client.send('this is not JSON');
  client.send({ type: 'hello', stream: 'public:local' });
  client.send('"a string"');
  client.send('null');
  await client.sync();
  t.strictSame(client.messages, [], 'no acknowledgement, no error for ignored messages, no duplicate subscription error');
  t.equal(h.rookery.streaming.stats().subscriptions, 2, 'public once (a second subscribe is a no-op), hashtag:local dogs');
  const first = await post(h, alice, 'local #dogs');
  await client.messageCount(2);
  t.strictSame(client.messages.map((m) => [m.stream, m.event]), [[['public'], 'update'], [['hashtag:local', 'dogs'], 'update']], 'one frame per subscription, each with its key');
  client.send({ type: 'unsubscribe', stream: 'public' });
  client.send({ type: 'unsubscribe', stream: 'public:remote' });
  await client.sync();
  t.equal(client.messages.length, 2, 'unsubscribing something never subscribed is silent');
  const second = await post(h, alice, 'again #dogs');
  await client.messageCount(3);
  t.strictSame(client.names(), [`update ${first.id}`, `update ${first.id}`, `update ${second.id}`]);
  t.strictSame(client.messages[2].stream, ['hashtag:local', 'dogs'], 'public is gone, the hashtag stays');
  client.send({ type: 'unsubscribe', stream: 'hashtag:local', tag: 'dogs' });
  await client.sync();
  t.equal(h.rookery.streaming.stats().subscriptions, 0);
  t.equal(client.socket.readyState, WebSocket.OPEN);
});

t.test('subscription errors arrive as {"error","status"} frames; unsubscribe errors without status', async (t) => {
  const reader = await h.user('reader', { scopes: ['read:statuses'] });
  const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: "alice's" } })).json;
  const client = await open(`/api/v1/streaming?access_token=${bob.token}`);
  client.send({ type: 'subscribe', stream: 'nonsense' });
  client.send({ type: 'subscribe', stream: 'hashtag' });
  client.send({ type: 'subscribe', stream: 'hashtag:local', tag: '' });
  client.send({ type: 'subscribe', stream: 'list' });
  client.send({ type: 'subscribe', stream: 'list', list: list.id });
  client.send({ type: 'subscribe', stream: 'list', list: '999999999999' });
  client.send({ type: 'subscribe' });
  client.send({ type: 'unsubscribe', stream: 'nonsense' });
  await client.messageCount(8);
  t.strictSame(client.messages, [
    { error: 'Unknown stream type', status: 400 },
    { error: 'Missing tag name parameter', status: 400 },
    { error: 'Missing tag name parameter', status: 400 },
    { error: 'Missing list name parameter', status: 400 },
    { error: 'Not authorized to stream this list', status: 401 },
    { error: 'Not authorized to stream this list', status: 401 },
    { error: 'Unknown stream type', status: 400 },
    { error: 'Error unsubscribing from channel' },
  ]);
  const limited = await open(`/api/v1/streaming?access_token=${reader.token}`);
  limited.send({ type: 'subscribe', stream: 'user:notification' });
  await limited.messageCount(1);
  t.strictSame(limited.messages, [{ error: 'Access token does not have the required scopes', status: 401 }]);
  t.equal(client.socket.readyState, WebSocket.OPEN, 'errors never close the socket');
});

t.test('must-not: private never on public, another tag never, a list of someone else refused', async (t) => {
  const client = await open(`/api/v1/streaming?access_token=${bob.token}&stream=public`);
  client.send({ type: 'subscribe', stream: 'hashtag', tag: 'dogs' });
  await client.sync();
  await post(h, alice, { status: 'followers only #dogs', visibility: 'private' });
  await post(h, alice, { status: 'quiet #dogs', visibility: 'unlisted' });
  await post(h, alice, { status: '@bob secret #dogs', visibility: 'direct' });
  const cats = await post(h, alice, 'public #cats');
  const dogs = await post(h, alice, 'public #dogs');
  await client.messageCount(3);
  t.strictSame(client.messages.map((m) => [m.stream, JSON.parse(m.payload).id]), [
    [['public'], cats.id],
    [['public'], dogs.id],
    [['hashtag', 'dogs'], dogs.id],
  ], 'the public statuses on public, only the #dogs one on the tag, nothing private before them');
  const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: "alice's" } })).json;
  client.send({ type: 'subscribe', stream: 'list', list: list.id });
  await client.messageCount(4);
  t.strictSame(client.messages[3], { error: 'Not authorized to stream this list', status: 401 });
});

t.test('a binary frame closes the socket with 1003', async (t) => {
  const client = await open(`/api/v1/streaming?access_token=${bob.token}&stream=public`);
  await client.sync();
  client.socket.send(Buffer.from('{"type":"subscribe","stream":"public"}'), { binary: true });
  t.equal((await client.whenClosed()).code, 1003);
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 }, 'the hub let go of it');
});

// RFC 6455 §5.1: "The server MUST close the connection upon receiving a frame that is not
// masked" (with 1002, protocol error, §7.4.1). uWebSockets.js cannot be made to: its frame
// parser (src/WebSocketProtocol.h, WebSocketProtocol<isServer = true>) takes a server's frame
// headers to be 6, 8 or 14 bytes long, reads the four bytes after the length as the masking key
// and unmasks with them, without ever looking at the MASK bit; no WebSocketBehavior option
// concerns masking, and the message handler is given only the unmasked payload, never the
// header. Upstream declined to change it (uNetworking/uWebSockets#691, closed as invalid). So
// the server reads an unmasked frame as a masked one whose key is its first four payload bytes
// and stays open. This test says what must happen, and stays a todo until uWS can do it.
const UWS_READS_NO_MASK_BIT = 'uWebSockets.js never reads the MASK bit of a client frame; no option or handler can refuse one';

t.test('an unmasked client frame closes the connection (1002)', async (t) => {
  const raw = await RawWebSocket.open(s.server.port, `/api/v1/streaming?access_token=${bob.token}`);
  t.teardown(() => raw.close());
  // Four more bytes after the unmasked frame: what uWS takes for the end of its payload, so
  // that the masked frame after them is read in step and answered if the connection lives.
  const payload = Buffer.from(JSON.stringify({ type: 'subscribe', stream: 'public' }));
  raw.sendBytes(Buffer.concat([Buffer.from([0x81, payload.length]), payload, Buffer.from('ABCD')]));
  raw.sendTogether([{ type: 'subscribe', stream: 'rookery-test-sync' }]);
  const outcome = await raw.closedOrFrames(1);
  t.equal(outcome, 'closed', 'the server closed the connection instead of reading on', { todo: UWS_READS_NO_MASK_BIT });
  t.ok(raw.closeCode === null || raw.closeCode === 1002, `with 1002 if it sent a close frame (got ${raw.closeCode})`);
  // What it does instead: the unmasked frame was read as garbage and ignored (it is no JSON),
  // so it subscribed nothing, and the masked frame after it was answered.
  t.strictSame(raw.frames, outcome === 'closed' ? [] : [JSON.stringify({ error: 'Unknown stream type', status: 400 })], 'only the masked frame was acted on');
  t.equal(h.rookery.streaming.stats().subscriptions, 0, 'the unmasked subscribe subscribed nothing');
});

t.test('pings: a client that answers stays; one that did not answer the last ping is terminated', async (t) => {
  // Server and clients share this process: an interval much shorter than a busy moment of a
  // loaded machine would let the server's timer run before it reads a pong that has arrived.
  const pinging = await startStreaming(h, { pingMs: 400 });
  t.teardown(() => pinging.server.close());
  const good = await WsReader.open(`${pinging.ws}/api/v1/streaming?access_token=${bob.token}&stream=public`);
  const mute = await WsReader.open(`${pinging.ws}/api/v1/streaming?access_token=${alice.token}&stream=public`, undefined, { autoPong: false });
  clients.push(good, mute);
  await good.sync();
  const closed = await mute.whenClosed();
  t.equal(closed.code, 1006, 'terminated without a close frame');
  t.equal(mute.pings, 1, 'after the one ping it did not answer');
  await good.until((c) => c.pings >= 3, 'three pings');
  t.equal(good.socket.readyState, WebSocket.OPEN, 'the answering client is still open');
  t.equal(pinging.server.stats().websocket, 1);
  const status = await post(h, alice, 'still streaming');
  await good.messageCount(1);
  t.strictSame(good.names(), [`update ${status.id}`]);
});

t.test('revoking the token closes its sockets with 1000, and only those', async (t) => {
  await h.user('carol');
  const registered = await registerApp(h);
  const creds = { client_id: registered.client_id, client_secret: registered.client_secret };
  const token = (await tokenRequest(h, { grant_type: 'password', username: 'carol', password: PASSWORD, scope: 'read', ...creds })).json.access_token as string;
  const carol = await open(`/api/v1/streaming?access_token=${token}&stream=public`);
  const carolAgain = await open('/api/v1/streaming', token);
  const other = await open(`/api/v1/streaming?access_token=${bob.token}&stream=public`);
  await Promise.all([carol.sync(), carolAgain.sync(), other.sync()]);
  const revoked = await h.request('POST', '/oauth/revoke', { payload: { token, ...creds } });
  t.equal(revoked.statusCode, 200);
  t.equal((await carol.whenClosed()).code, 1000);
  t.equal((await carolAgain.whenClosed()).code, 1000);
  t.equal(other.socket.readyState, WebSocket.OPEN);
  const status = await post(h, alice, 'after');
  await other.messageCount(1);
  t.strictSame(other.names(), [`update ${status.id}`]);
  t.equal(h.rookery.streaming.stats().connections, 1);
});

t.test('closing the server: sockets get 1001, SSE responses end, nothing is left in the hub', async (t) => {
  const closing = await startStreaming(h);
  const a = await WsReader.open(`${closing.ws}/api/v1/streaming?access_token=${bob.token}&stream=public`);
  const b = await WsReader.open(`${closing.ws}/api/v1/streaming?access_token=${alice.token}&stream=user`);
  const sse = await SseReader.open(`${closing.http}/api/v1/streaming/user?access_token=${bob.token}`);
  await Promise.all([a.sync(), b.sync(), sse.opened()]);
  await closing.server.close();
  await sse.end();
  t.equal(sse.text, ':)\n', 'the SSE response ended');
  t.equal((await a.whenClosed()).code, 1001);
  t.equal((await b.whenClosed()).code, 1001);
  t.strictSame(closing.server.stats(), { sse: 0, websocket: 0, sseQueuedBytes: 0 });
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 });
  const refused = await fetch(`${closing.http}/api/v1/streaming/health`).then(
    () => 'answered',
    () => 'refused',
  );
  t.equal(refused, 'refused', 'it no longer listens');
});

t.test('bounded input: more subscriptions than allowed, or a message too big, closes the socket', async (t) => {
  const bounded = await startStreaming(h, { maxSubscriptions: 3, maxPayloadLength: 1024 });
  t.teardown(() => bounded.server.close());
  const client = await WsReader.open(`${bounded.ws}/api/v1/streaming?access_token=${bob.token}&stream=public`);
  clients.push(client);
  client.send({ type: 'subscribe', stream: 'hashtag', tag: 'one' });
  client.send({ type: 'subscribe', stream: 'hashtag', tag: 'two' });
  client.send({ type: 'subscribe', stream: 'public' });
  await client.sync();
  t.equal(h.rookery.streaming.stats().subscriptions, 3, 'up to the limit: public, #one, #two (public again is a no-op)');
  client.send({ type: 'subscribe', stream: 'hashtag', tag: 'three' });
  t.equal((await client.whenClosed()).code, 1008, 'one more: closed as a policy violation');
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 });
  const big = await WsReader.open(`${bounded.ws}/api/v1/streaming?access_token=${bob.token}`);
  clients.push(big);
  big.send({ type: 'subscribe', stream: 'hashtag', tag: 'x'.repeat(1024) });
  t.equal((await big.whenClosed()).code, 1006, 'a message over maxPayloadLength: the socket is cut');
  t.equal(bounded.server.stats().websocket, 0);
});

t.test('commands are handled one at a time, in order; a client that piles them up is closed (1008)', async (t) => {
  const list = (await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'mine' } })).json;
  // The list lookup of a subscribe waits until the test lets it go.
  const lists = h.core.storage.lists;
  const get = lists.get.bind(lists);
  let release = (): void => {};
  let reached = (): void => {};
  let lookups = 0;
  const hold = (): Promise<void> => {
    const gate = new Promise<void>((resolve) => (release = resolve));
    const atStore = new Promise<void>((resolve) => (reached = resolve));
    lookups = 0;
    lists.get = async (id) => {
      lookups += 1;
      reached();
      await gate;
      return get(id);
    };
    return atStore;
  };

  const ordered = await RawWebSocket.open(s.server.port, `/api/v1/streaming?access_token=${bob.token}`);
  t.teardown(() => ordered.close());
  let atStore = hold();
  // One write: the server reads the three frames together, while the first waits on the store.
  ordered.sendTogether([
    { type: 'subscribe', stream: 'list', list: list.id },
    { type: 'unsubscribe', stream: 'list', list: list.id },
    { type: 'subscribe', stream: 'nonsense' },
  ]);
  await atStore;
  // Let the rest of that read (the other two frames) be handled before the store answers.
  await new Promise<void>((resolve) => setImmediate(resolve));
  release();
  await ordered.frameCount(1);
  t.strictSame(ordered.frames.map((f) => JSON.parse(f)), [{ error: 'Unknown stream type', status: 400 }]);
  t.equal(h.rookery.streaming.stats().subscriptions, 0, 'the unsubscribe ran after the subscribe it followed');

  atStore = hold();
  const flooding = await open(`/api/v1/streaming?access_token=${bob.token}`);
  for (let i = 0; i < 70; i++) flooding.send({ type: 'subscribe', stream: 'list', list: list.id });
  t.equal((await flooding.whenClosed()).code, 1008, 'more than 64 waiting commands: closed');
  await atStore;
  release();
  t.equal(lookups, 1, 'only the first had reached the hub');
});
