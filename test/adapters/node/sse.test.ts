// Server-sent events on the host's own port (adapters/node/sse.ts), over real sockets, through
// both transports that serve them: the hapi plugin and the node:http handler.

import { connect } from 'node:net';
import t from 'tap';
import { post } from '../../helpers/api.ts';
import { harness } from '../../helpers/harness.ts';
import { openSse } from '../../helpers/sse.ts';

for (const transport of ['hapi', 'node'] as const) {
  t.test(`${transport}: health, refusals, and the documented headers`, async (t) => {
    const h = await harness({ listen: true, transport });
    t.teardown(() => h.close());
    const base = h.core.config.baseUrl;
    const health = await fetch(`${base}/api/v1/streaming/health`);
    t.same([health.status, await health.text(), health.headers.get('content-type'), health.headers.get('cache-control')], [200, 'OK', 'text/plain; charset=utf-8', 'private, no-store']);
    const alice = await h.user('alice');
    for (const [path, status, error] of [
      ['/api/v1/streaming/public', 401, 'Missing access token'],
      ['/api/v1/streaming/public?access_token=nope', 401, 'Invalid access token'],
      ['/api/v1/streaming/nowhere', 400, 'Unknown channel requested'],
      [`/api/v1/streaming/hashtag?access_token=${alice.token}`, 400, 'Missing tag name parameter'],
      [`/api/v1/streaming/list?access_token=${alice.token}&list=1`, 401, 'Not authorized to stream this list'],
    ] as const) {
      const res = await openSse(`${base}${path}`);
      t.same([res.status, JSON.parse(res.body)], [status, { error }], path);
      t.equal(res.headers['access-control-allow-origin'], '*');
    }
    const stream = await openSse(`${base}/api/v1/streaming/public`, { authorization: `Bearer ${alice.token}` });
    t.equal(stream.status, 200);
    t.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    t.equal(stream.headers['cache-control'], 'private, no-store', "the documented caching, not sse-channel's");
    t.equal(stream.headers['connection'] === 'keep-alive' || stream.headers['connection'] === undefined, true);
    t.equal(stream.headers['transfer-encoding'], 'chunked');
    stream.close();
  });

  t.test(`${transport}: statuses arrive as events; a private one never on public; the heartbeat`, async (t) => {
    const h = await harness({ listen: true, transport, streaming: { heartbeatMs: 50 } });
    t.teardown(() => h.close());
    const base = h.core.config.baseUrl;
    const alice = await h.user('alice');
    const bob = await h.user('bob');
    const pub = await openSse(`${base}/api/v1/streaming/public?access_token=${bob.token}`);
    const tag = await openSse(`${base}/api/v1/streaming/hashtag?tag=Cats&access_token=${bob.token}`);
    await pub.comment('thump');
    t.pass('the heartbeat comes as :thump');
    await post(h, alice, { status: 'secret', visibility: 'private' });
    const s = await post(h, alice, 'hello #cats');
    const update = await pub.next((e) => e.event === 'update');
    t.equal(JSON.parse(update.data).id, s.id, 'the first update is the public status: the private one never came');
    t.equal(JSON.parse((await tag.next((e) => e.event === 'update')).data).id, s.id);
    await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
    t.same(await pub.next((e) => e.event === 'delete'), { event: 'delete', data: s.id });
    pub.close();
    tag.close();
  });

  t.test(`${transport}: a revoked token ends its stream`, async (t) => {
    const h = await harness({ listen: true, transport });
    t.teardown(() => h.close());
    const alice = await h.user('alice');
    const stream = await openSse(`${h.core.config.baseUrl}/api/v1/streaming/user?access_token=${alice.token}`);
    const app = await h.core.storage.oauth.getApplication(alice.application.id);
    const revoked = await h.request('POST', '/oauth/revoke', { payload: { token: alice.token, client_id: app?.clientId ?? '', client_secret: 'wrong' } });
    t.equal(revoked.statusCode, 403, 'only its own client may revoke it');
    const token = await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(alice.token));
    await h.core.storage.oauth.revokeToken(token?.id ?? '', Date.now(), () => h.core.record({ type: 'token.revoked', tokenId: token?.id ?? '', accountId: alice.account.id }));
    await h.rookery.drain();
    await stream.ended;
    t.pass('the server ended the stream');
  });

  t.test(`${transport}: a client that stops reading is disconnected once its unsent bytes pass the bound`, async (t) => {
    const h = await harness({ listen: true, transport, streaming: { maxBufferedBytes: 256 * 1024 } });
    t.teardown(() => h.close());
    const alice = await h.user('alice');
    const url = new URL(h.core.config.baseUrl);
    const socket = connect(Number(url.port), '127.0.0.1');
    await new Promise<void>((ready) => socket.once('connect', () => ready()));
    socket.write(`GET /api/v1/streaming/public?access_token=${alice.token} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    // Read the response head, then never read again.
    await new Promise<void>((ready) => socket.once('data', () => ready()));
    socket.pause();
    const big = 'x'.repeat(64 * 1024);
    let sent = 0;
    while (h.rookery.streaming.stats().connections > 0 && sent < 2000) {
      await h.bus.publish('timeline:public', { event: 'delete', payload: big });
      sent += 1;
      // Let the event loop write what it can between messages.
      await new Promise<void>((next) => setImmediate(next));
    }
    t.ok(sent < 2000, `the server let the stream go after ${sent} messages of 64 KiB`);
    // The client, reading again, finds its connection closed.
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => {});
    socket.resume();
    await closed;
    t.equal(h.rookery.streaming.stats().connections, 0, 'and let go of its subscription');
  });
}

t.test('node: the streaming root is no stream, and streaming: false leaves streams to the API', async (t) => {
  const h = await harness({ listen: true, transport: 'node' });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const root = await openSse(`${h.core.config.baseUrl}/api/v1/streaming?stream=public&access_token=${alice.token}`);
  t.same([root.status, JSON.parse(root.body)], [400, { error: 'Unknown channel requested' }], 'as the streaming server answers it');

  const off = await harness({ listen: true, transport: 'node', streaming: false });
  t.teardown(() => off.close());
  const refused = await fetch(`${off.core.config.baseUrl}/api/v1/streaming/public?access_token=${alice.token}`);
  t.same([refused.status, await refused.json()], [404, { error: 'Not Found' }], 'the API front answers: no route');
});
