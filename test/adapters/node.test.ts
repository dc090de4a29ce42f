// The node:http handler over real sockets on 127.0.0.1: what it serves, what it passes to the
// host, and bodies over the limit refused with 413 before they are read in full.

import { createServer, request as httpRequest, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { createNodeHandler, createNodeRookery } from '../../adapters/node/index.ts';
import { json } from '../../core/mastodon/endpoint/types.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { harness } from '../helpers/harness.ts';

const LIMIT = 1024;
const logged: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (_obj, msg) => void logged.push(String(msg)) };

const plugin: RookeryPlugin = {
  name: 'node-test',
  register(host) {
    host.addEndpoint({ method: 'POST', path: '/api/v1/upload', auth: 'public', scopes: [], payload: { maxBytes: LIMIT }, handle: async (request) => json({ keys: Object.keys(request.body) }) });
    host.addEndpoint({ method: 'GET', path: '/api/v1/cookies', auth: 'public', scopes: [], handle: async () => ({ status: 200, body: { ok: true }, cookies: ['a=1; Path=/', 'b=2; Path=/'] }) });
    host.addEndpoint({ method: 'GET', path: '/api/v1/crash', auth: 'public', scopes: [], handle: async () => { throw new Error('hidden'); } });
  },
};

async function listen(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function collect(res: IncomingMessage): Promise<Reply> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    res.on('error', fail);
  });
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => collect(res).then(done, fail));
    req.on('error', fail);
    req.end(body);
  });
}

t.test('the handler serves Rookery and passes the rest to the host', async (t) => {
  const h = await harness({ plugins: [plugin], logger });
  const handler = createNodeHandler(h.rookery);
  const withHost = await listen((req, res) => handler(req, res, () => res.end('host page')));
  const alone = await listen((req, res) => handler(req, res));
  t.teardown(async () => {
    await new Promise((done) => withHost.server.close(done));
    await new Promise((done) => alone.server.close(done));
    await h.close();
  });
  const alice = await h.user('alice');
  const port = withHost.port;

  const instance = await send(port, 'GET', '/api/v1/instance');
  t.equal(instance.status, 200);
  t.equal(instance.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(Number(instance.headers['content-length']), Buffer.byteLength(instance.body));
  t.equal(JSON.parse(instance.body).uri, 'rookery.test');

  t.equal((await send(port, 'GET', '/')).body, 'host page', 'next() for the host');
  t.equal((await send(port, 'POST', '/signup', { 'content-type': 'text/plain' }, 'x')).body, 'host page');
  const noHost = await send(alone.port, 'GET', '/');
  t.same([noHost.status, JSON.parse(noHost.body)], [404, { error: 'Not Found' }], 'no next(): a JSON 404');

  const auth = { authorization: `Bearer ${alice.token}` };
  const viaJson = await send(port, 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ status: 'from node:http' }));
  t.same([viaJson.status, JSON.parse(viaJson.body).content], [200, '<p>from node:http</p>']);
  const viaForm = await send(port, 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, 'status=form&visibility=unlisted');
  t.same([viaForm.status, JSON.parse(viaForm.body).visibility], [200, 'unlisted']);
  const multipart = '--X\r\nContent-Disposition: form-data; name="status"\r\n\r\nmultipart\r\n--X--\r\n';
  const viaMultipart = await send(port, 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'multipart/form-data; boundary=X' }, multipart);
  t.same([viaMultipart.status, JSON.parse(viaMultipart.body).content], [200, '<p>multipart</p>']);
  const nowhere = await send(port, 'POST', '/api/v1/nowhere', { 'content-type': 'multipart/form-data; boundary=X' }, multipart);
  t.same([nowhere.status, JSON.parse(nowhere.body)], [404, { error: 'Not Found' }], 'an unknown /api path, multipart or not');
  const unauthorized = await send(port, 'POST', '/api/v1/statuses');
  t.same([unauthorized.status, JSON.parse(unauthorized.body)], [401, { error: 'The access token is invalid' }]);

  const cookies = await send(port, 'GET', '/api/v1/cookies');
  t.same(cookies.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/'], 'every Set-Cookie kept');
  const head = await send(port, 'HEAD', '/api/v1/instance');
  t.same([head.status, head.body], [200, '']);
  const crash = await send(port, 'GET', '/api/v1/crash');
  t.same([crash.status, JSON.parse(crash.body)], [500, { error: 'Internal server error' }]);
  t.same(logged, ['request failed']);
  const preflight = await send(port, 'OPTIONS', '/api/v1/statuses', { origin: 'https://elk.zone', 'access-control-request-method': 'POST' });
  t.same([preflight.status, preflight.headers['access-control-allow-origin']], [200, 'https://elk.zone']);
  const small = await send(port, 'POST', '/api/v1/upload', { 'content-type': 'application/x-www-form-urlencoded' }, `a=${'x'.repeat(LIMIT - 2)}`);
  t.same([small.status, JSON.parse(small.body)], [200, { keys: ['a'] }], 'exactly at the limit');
});

t.test('a body over the limit: 413 before it is read, from Content-Length or while it streams', async (t) => {
  const h = await harness({ plugins: [plugin] });
  const { server, port } = await listen(createNodeHandler(h.rookery));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await h.close();
  });
  const expected = { error: `Payload content length greater than maximum allowed: ${LIMIT}` };
  // What the server side read of each body, seen by a listener that only counts.
  let serverRead = 0;
  server.on('request', (req: IncomingMessage) => req.on('data', (chunk: Buffer) => void (serverRead += chunk.length)));

  // Content-Length announces 64 MiB; not one byte of the body is sent before the answer.
  const announced = await new Promise<Reply>((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/upload', agent: false, headers: { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024 * 1024) } }, (res) => {
      collect(res).then((reply) => {
        req.destroy();
        done(reply);
      }, fail);
    });
    req.on('error', () => {});
    req.flushHeaders();
  });
  t.same([announced.status, JSON.parse(announced.body)], [413, expected]);
  t.equal(announced.headers['connection'], 'close', 'and the connection is closed rather than read on');
  t.equal(serverRead, 0, 'the server read nothing of it');
  serverRead = 0;

  // No length: chunks stream until the server answers, long before the 64 MiB the client has.
  const total = 64 * 1024 * 1024;
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  let written = 0;
  let answered = false;
  const streamed = await new Promise<{ reply: Reply; writtenWhenAnswered: number }>((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/upload', agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' } }, (res) => {
      answered = true;
      const writtenWhenAnswered = written;
      collect(res).then((reply) => done({ reply, writtenWhenAnswered }), fail);
    });
    req.on('error', () => {});
    const pump = () => {
      if (answered || req.destroyed) return;
      if (written >= total) return void req.end();
      written += chunk.length;
      req.write(chunk, pump);
    };
    pump();
  });
  t.same([streamed.reply.status, JSON.parse(streamed.reply.body)], [413, expected]);
  t.ok(streamed.writtenWhenAnswered < total, `answered after ${streamed.writtenWhenAnswered} of ${total} bytes: the server did not wait for the whole body`);
  t.ok(serverRead < LIMIT + 128 * 1024, `the server read ${serverRead} bytes: the limit and at most the socket read in flight`);

  const after = await send(port, 'GET', '/api/v1/instance');
  t.equal(after.status, 200, 'the server goes on serving');
});

t.test('a body is framed by its headers: chunks without a length, nothing without either', async (t) => {
  const h = await harness({ plugins: [plugin], logger });
  const { server, port } = await listen(createNodeHandler(h.rookery));
  t.teardown(async () => {
    await new Promise((done) => server.close(done));
    await h.close();
  });
  const json = { 'content-type': 'application/json' };
  const chunked = await new Promise<Reply>((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/upload', agent: false, headers: { ...json, 'transfer-encoding': 'chunked' } }, (res) => collect(res).then(done, fail));
    req.on('error', fail);
    req.write('{"first":1,');
    req.end('"second":2}');
  });
  t.same([chunked.status, JSON.parse(chunked.body)], [200, { keys: ['first', 'second'] }], 'chunks are read to their end');
  const sized = await send(port, 'POST', '/api/v1/upload', { ...json, 'content-length': '11' }, '{"only":1}\n');
  t.same([sized.status, JSON.parse(sized.body)], [200, { keys: ['only'] }], 'a length is read');
  const zero = await send(port, 'POST', '/api/v1/upload', { ...json, 'content-length': '0' });
  t.same([zero.status, JSON.parse(zero.body)], [200, { keys: [] }], 'a length of 0 is no body');
  // node's client always sends one of the two: a raw socket sends neither.
  const raw = await new Promise<string>((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('POST /api/v1/upload HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => done(Buffer.concat(chunks).toString())).on('error', fail);
  });
  t.match(raw, /^HTTP\/1\.1 200 /, 'neither length nor chunks: answered at once');
  t.equal(raw.slice(raw.indexOf('\r\n\r\n') + 4), '{"keys":[]}', 'with no body');
});

t.test('a client that goes away mid-body: nothing answered, nothing logged, the server goes on', async (t) => {
  const h = await harness({ plugins: [plugin], logger });
  const { server, port } = await listen(createNodeHandler(h.rookery));
  t.teardown(async () => {
    await new Promise((done) => server.close(done));
    await h.close();
  });
  logged.length = 0;
  const serverSide = new Promise<IncomingMessage>((done) => server.once('request', (req: IncomingMessage) => req.once('data', () => done(req))));
  const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/upload', agent: false, headers: { 'content-type': 'application/json', 'content-length': '500' } });
  req.on('error', () => {});
  req.write('{"a":');
  const incoming = await serverSide;
  const gone = new Promise<void>((done) => incoming.once('close', done));
  req.destroy();
  await gone;
  const after = await send(port, 'GET', '/api/v1/instance');
  t.equal(after.status, 200);
  t.same(logged, [], 'nothing logged');
});

t.test('createNodeRookery with the node handler', async (t) => {
  const rookery = await createNodeRookery({ config: { domain: 'embed.test' }, storage: createMemoryStorage() });
  const { server, port } = await listen(createNodeHandler(rookery));
  t.teardown(async () => {
    await new Promise((done) => server.close(done));
    await rookery.close();
  });
  const res = await send(port, 'GET', '/api/v2/instance');
  t.same([res.status, JSON.parse(res.body).domain], [200, 'embed.test']);
});
