// What one connection may hold on the node:http handler, over raw sockets on 127.0.0.1:
// clients that never read their responses are cut off once they owe too many bytes or take
// too long, instead of holding every response they asked for in this process's memory; and
// node's own refusals (bytes it cannot parse, headers too large) come out as {"error": …}.

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { createNodeHandler, limitNodeServer, type NodeHandlerOptions } from '../../adapters/node/index.ts';
import { json } from '../../core/mastodon/endpoint/types.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { harness } from '../helpers/harness.ts';

const BIG = 8 * 1024 * 1024;
const big: RookeryPlugin = {
  name: 'big',
  register(host) {
    host.addEndpoint({ method: 'GET', path: '/api/v1/big', auth: 'public', scopes: [], handle: async () => json({ data: 'x'.repeat(BIG) }) });
  },
};

const h = await harness({ plugins: [big] });
t.teardown(() => h.close());

interface Served {
  port: number;
  /** Resolves when the server has closed `count` of its connections (its side of them). */
  closedConnections(count: number): Promise<void>;
}

async function serve(t: { teardown(fn: () => unknown): void }, options: NodeHandlerOptions): Promise<Served> {
  const handler = createNodeHandler(h.rookery, options);
  const server: Server = limitNodeServer(createServer((req, res) => handler(req, res)), h.rookery);
  let closedCount = 0;
  const waiters: { count: number; done: () => void }[] = [];
  server.on('connection', (socket: Socket) =>
    socket.on('close', () => {
      closedCount++;
      for (const waiter of waiters) if (closedCount >= waiter.count) waiter.done();
    }),
  );
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((done) => server.close(done));
  });
  return {
    port: (server.address() as AddressInfo).port,
    closedConnections: (count) => new Promise<void>((done) => (closedCount >= count ? done() : waiters.push({ count, done }))),
  };
}

/** A client that writes `bytes` and never reads: its socket stays paused. */
function silentClient(port: number, bytes: string): Promise<Socket> {
  return new Promise((ready, fail) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(bytes);
      ready(socket);
    });
    socket.on('error', fail);
  });
}

/** Everything the server sends until it closes the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => done(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', fail);
  });
}

const GET_BIG = 'GET /api/v1/big HTTP/1.1\r\nHost: x\r\n\r\n';

t.test('a client that never reads is cut off once it owes too many bytes', { timeout: 20_000 }, async (t) => {
  // The time limit is far off: only the byte bound can close these.
  const served = await serve(t, { maxBufferedBytes: 1024 * 1024, writeTimeoutMs: 600_000 });
  const clients = await Promise.all(Array.from({ length: 20 }, () => silentClient(served.port, GET_BIG + GET_BIG)));
  await served.closedConnections(clients.length);
  t.pass('20 clients pipelining two 8 MB responses without reading: the server closed every connection');
  for (const client of clients) client.destroy();
});

t.test('a response the client does not take in time closes its connection', { timeout: 20_000 }, async (t) => {
  const served = await serve(t, { writeTimeoutMs: 300 });
  const clients = await Promise.all(Array.from({ length: 5 }, () => silentClient(served.port, GET_BIG)));
  await served.closedConnections(clients.length);
  t.pass('one 8 MB response each, never read: the server closed them after the write timeout');
  for (const client of clients) client.destroy();
});

t.test('clients that read get everything, one big response and pipelined ones alike', async (t) => {
  const { port } = await serve(t, { maxBufferedBytes: 1024 * 1024, writeTimeoutMs: 10_000 });
  const one = await exchange(port, 'GET /api/v1/big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.match(one, /^HTTP\/1\.1 200 OK\r\n/);
  t.ok(one.length > BIG, 'a single response larger than the bound is written whole');
  const small = 'GET /api/v1/instance HTTP/1.1\r\nHost: x\r\n\r\n';
  const pipelined = await exchange(port, `${small}${small}GET /api/v1/instance HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  t.equal(pipelined.match(/HTTP\/1\.1 200 OK/g)?.length, 3, 'three pipelined answers');
});

t.test('a client that half-closes after its requests gets every answer, on a server with the limits and on a bare one', async (t) => {
  // The answers of a turn wait for its end where limitNodeServer keeps half-closed connections
  // open for them; node alone would end the connection at the client's FIN and drop them.
  const limited = await serve(t, {});
  const handler = createNodeHandler(h.rookery, {});
  const bare: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((ready) => bare.listen(0, '127.0.0.1', ready));
  t.teardown(() => {
    bare.closeAllConnections();
    return new Promise((done) => bare.close(done));
  });
  const barePort = (bare.address() as AddressInfo).port;
  const request = 'GET /api/v1/instance HTTP/1.1\r\nHost: x\r\n\r\n';
  for (const [label, port] of [['with the limits', limited.port], ['bare', barePort]] as const) {
    t.equal((await exchange(port, request)).match(/HTTP\/1\.1 200 OK/g)?.length, 1, `${label}: one request, then FIN`);
    t.equal((await exchange(port, request.repeat(4))).match(/HTTP\/1\.1 200 OK/g)?.length, 4, `${label}: four pipelined, then FIN`);
  }
});

t.test("node's own refusals in the one shape", async (t) => {
  const { port } = await serve(t, {});
  const garbage = await exchange(port, 'BREW /pot HTTP/1.1\r\n\r\n');
  t.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/);
  t.match(garbage, /\r\ncontent-type: application\/json; charset=utf-8\r\n/);
  t.match(garbage, /\r\n\r\n\{"error":"Bad Request"\}$/);
  const huge = `GET /api/v1/instance HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
  const tooLarge = await exchange(port, huge);
  t.match(tooLarge, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  t.match(tooLarge, /\r\n\r\n\{"error":"Request Header Fields Too Large"\}$/);
  const oauth = await exchange(port, `POST /oauth/token?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.match(oauth, /\{"error":"invalid_request","error_description":"Request Header Fields Too Large"\}$/, 'RFC 6749 errors on the token endpoint');
  const head = await exchange(port, `HEAD /api/v1/instance?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.match(head, /^HTTP\/1\.1 431 [^]*\r\ncontent-length: 0\r\nconnection: close\r\n\r\n$/, 'no body for HEAD');
});
