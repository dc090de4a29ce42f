// Clients that stop reading cannot make the streaming server hold more and more for them
// (ARCHITECTURE.md, Streaming): past maxBackpressure an SSE stream or a WebSocket is closed,
// while the other clients keep getting every event; a reader that only lags catches up with
// every event in order. Real sockets that really stop reading; the test publishes big events
// straight onto the hub's channel (their content does not matter to a transport) and waits on
// the sockets' own events, yielding to the event loop between events so the I/O can happen.

import t from 'tap';
import WebSocket from 'ws';
import { channels } from '../../../core/domain/routing/channels.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { SseReader, stalledClient, startStreaming, WsReader, type Streaming } from '../../helpers/uws.ts';

const EVENT_BYTES = 32 * 1024;
const LIMIT = 1024 * 1024;
/** At most this many events (128 MiB) before a test gives up: the loops are bounded. */
const MAX_EVENTS = 4096;

let h: Harness;
let s: Streaming;
let alice: TestUser;
let bob: TestUser;

t.beforeEach(async () => {
  h = await harness();
  s = await startStreaming(h, { maxBackpressure: LIMIT, heartbeatMs: 3_600_000 });
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(async () => {
  await s.server.close();
  await h.close();
});

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One big event on the public channel; `n` numbers it. */
function publish(n: number): Promise<void> {
  return h.bus.publish(channels.public, { event: 'delete', payload: `${n}:${'x'.repeat(EVENT_BYTES)}` });
}

function sseRequest(token: string): string {
  return `GET /api/v1/streaming/public?access_token=${token} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
}

t.test('SSE: a client that stops reading is disconnected; one that reads gets everything', async (t) => {
  const stalled = await stalledClient(s.server.port, sseRequest(bob.token), ':)\n');
  const healthy = await SseReader.open(`${s.http}/api/v1/streaming/public?access_token=${alice.token}`);
  await healthy.opened();
  let published = 0;
  while (s.server.stats().sse === 2 && published < MAX_EVENTS) {
    await publish(published);
    published += 1;
    await tick();
  }
  t.equal(s.server.stats().sse, 1, `the stalled stream was closed (after ${published} events of 32 KiB)`);
  t.ok(published < MAX_EVENTS, 'well before the test would have given up');
  t.strictSame(h.rookery.streaming.stats(), { connections: 1, subscriptions: 1, channels: 1 }, 'and the hub let go of it');
  stalled.socket.resume();
  await stalled.closed;
  t.ok(stalled.received() < published * EVENT_BYTES, `the server did not keep everything for it (${stalled.received()} of ${published * EVENT_BYTES} bytes reached it)`);
  await healthy.eventCount(published);
  t.strictSame(healthy.events().map((e) => Number(e.data.split(':')[0])), [...Array(published).keys()], 'the reading client got every event, in order');
  healthy.close();
});

t.test('SSE: a reader that lags behind the socket buffers catches up with every event, in order', async (t) => {
  const lagging = await startStreaming(h, { maxBackpressure: 64 * 1024 * 1024, heartbeatMs: 3_600_000 });
  t.teardown(() => lagging.server.close());
  const client = await stalledClient(lagging.server.port, sseRequest(bob.token), ':)\n');
  let published = 0;
  // Until frames wait in the server's own queue: the kernel's buffers are full.
  while (lagging.server.stats().sseQueuedBytes < 4 * EVENT_BYTES && published < MAX_EVENTS) {
    await publish(published);
    published += 1;
    await tick();
  }
  t.ok(lagging.server.stats().sseQueuedBytes >= 4 * EVENT_BYTES, `frames queued behind the socket (after ${published} events)`);
  let text = '';
  const all = new Promise<void>((resolve) => {
    client.socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.split('event: delete\n').length - 1 >= published) resolve();
    });
  });
  client.socket.resume();
  await all;
  const numbers = [...text.matchAll(/data: (\d+):/g)].map((m) => Number(m[1]));
  t.strictSame(numbers, [...Array(published).keys()], 'every event, in order, none twice');
  t.equal(lagging.server.stats().sseQueuedBytes, 0, 'the queue drained');
  t.equal(lagging.server.stats().sse, 1, 'and the stream is still open');
  client.socket.destroy();
});

t.test('WebSocket: a client that stops reading is terminated past maxBackpressure; others get everything', async (t) => {
  const stalled = await WsReader.open(`${s.ws}/api/v1/streaming?access_token=${bob.token}&stream=public`);
  const healthy = await WsReader.open(`${s.ws}/api/v1/streaming?access_token=${alice.token}&stream=public`);
  await Promise.all([stalled.sync(), healthy.sync()]);
  stalled.socket.pause();
  let published = 0;
  while (s.server.stats().websocket === 2 && published < MAX_EVENTS) {
    await publish(published);
    published += 1;
    await tick();
  }
  t.equal(s.server.stats().websocket, 1, `the stalled socket was closed (after ${published} events of 32 KiB)`);
  t.ok(published < MAX_EVENTS);
  t.strictSame(h.rookery.streaming.stats(), { connections: 1, subscriptions: 1, channels: 1 });
  stalled.socket.resume();
  const closed = await stalled.whenClosed();
  t.equal(closed.code, 1006, 'terminated, no close frame queued behind what it did not read');
  t.ok(stalled.messages.length < published, `it got ${stalled.messages.length} of ${published} events`);
  await healthy.messageCount(published);
  t.strictSame(healthy.messages.map((m) => Number(String(m.payload).split(':')[0])), [...Array(published).keys()], 'the reading client got every event, in order');
  t.equal(healthy.socket.readyState, WebSocket.OPEN);
  healthy.close();
});
