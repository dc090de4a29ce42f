// One error shape, everywhere: Mastodon's {"error": …} (with error_description on the OAuth
// token and revoke endpoints) for what the front, hapi and node themselves refuse, on both
// transports: the hapi plugin (inject) and the node:http handler on a real socket.

import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createNodeHandler } from '../../../adapters/node/index.ts';
import { harness } from '../../helpers/harness.ts';
import { registerApp } from '../../helpers/oauth.ts';

const h = await harness();
const server = createServer((req, res) => createNodeHandler(h.rookery)(req, res));
await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
const port = (server.address() as AddressInfo).port;
t.teardown(async () => {
  await new Promise((done) => server.close(done));
  await h.close();
});
const alice = await h.user('alice');

interface Reply {
  status: number;
  type: string;
  json: unknown;
}

function overNode(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((done, fail) => {
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: framed, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown = text;
        try {
          json = JSON.parse(text);
        } catch {}
        done({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), json });
      });
    });
    req.on('error', fail);
    req.end(body);
  });
}

async function overHapi(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  const res = await h.server.inject({ method, url: path, headers, ...(body === undefined ? {} : { payload: body }) });
  let json: unknown = res.payload;
  try {
    json = JSON.parse(res.payload);
  } catch {}
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), json };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const transports = [['node', overNode], ['hapi', overHapi]] as const;

t.test('framework errors in the one shape, on both transports', async (t) => {
  const auth = { authorization: `Bearer ${alice.token}` };
  const cases: [string, string, string, Record<string, string>, string | undefined, number, unknown][] = [
    ['a malformed multipart body', 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'multipart/form-data; boundary=XyZ' }, '--XyZ\r\nno headers end', 400, { error: 'Invalid multipart payload format' }],
    ['multipart without a boundary', 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'multipart/form-data' }, 'x', 400, { error: 'Invalid multipart payload format' }],
    ['a path that is not UTF-8', 'GET', '/api/v1/statuses/%FF%FE', {}, undefined, 400, { error: 'Invalid %-encoding in the path' }],
    ['a path with a broken escape', 'GET', '/api/v1/accounts/%E0/statuses', {}, undefined, 400, { error: 'Invalid %-encoding in the path' }],
    ['a query that is not UTF-8', 'GET', '/api/v1/timelines/public?local=%FF', {}, undefined, 400, { error: 'Invalid %-encoding in the query string' }],
    ['an unknown /api path', 'GET', '/api/v2/nothing/here', {}, undefined, 404, { error: 'Not Found' }],
    ['a dot segment hapi would normalize away', 'GET', '/api/v1/statuses/..', {}, undefined, 404, { error: 'Record not found' }],
    ['a content type hapi cannot read', 'POST', '/api/v1/statuses', { ...auth, 'content-type': ';' }, 'status=hi', 415, { error: 'Unsupported Media Type' }],
    ['another method on an endpoint path', 'PATCH', '/api/v1/statuses', auth, undefined, 404, { error: 'Not Found' }],
    ['a body type the API does not read', 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'text/plain' }, 'status=hi', 415, { error: 'Unsupported Media Type' }],
    ['JSON that does not parse', 'POST', '/api/v1/statuses', { ...auth, 'content-type': 'application/json' }, '{"status":', 400, { error: 'Invalid request payload JSON format' }],
    ['a preflight for a method nobody serves there', 'OPTIONS', '/api/v1/nothing', { origin: 'https://elk.zone', 'access-control-request-method': 'BREW' }, undefined, 200, ''],
  ];
  for (const [name, send] of transports) {
    for (const [label, method, path, headers, body, status, expected] of cases) {
      const reply = await send(method, path, headers, body);
      t.same([reply.status, reply.json], [status, expected], `${name}: ${label}`);
      if (status >= 400) t.equal(reply.type, JSON_TYPE, `${name}: ${label}: JSON`);
    }
  }
});

t.test('the standalone transport (node handler without a host) answers every other path in the shape too', async (t) => {
  for (const [method, path, headers] of [
    ['GET', '/no/such/page', {}],
    ['POST', '/signup', { 'content-type': 'text/plain' }],
    ['OPTIONS', '/elsewhere', { origin: 'https://elk.zone', 'access-control-request-method': 'GET' }],
    ['GET', '/%FF%FE', {}],
  ] as const) {
    const reply = await overNode(method, path, headers, method === 'POST' ? 'x' : undefined);
    t.same([reply.status, reply.json, reply.type], [404, { error: 'Not Found' }, JSON_TYPE], `${method} ${path}`);
  }
});

t.test('a bad Cookie header is read leniently: the page works, no error', async (t) => {
  for (const [name, send] of transports) {
    for (const cookie of ['=;;;=', '_rookery_session="unterminated', '\u00ff=\u00ff; a', `x=${'y'.repeat(8000)}`]) {
      const reply = await send('GET', '/auth/sign_in', { cookie });
      t.equal(reply.status, 200, `${name}: ${JSON.stringify(cookie.slice(0, 40))}`);
      t.match(reply.type, /^text\/html/);
    }
  }
});

t.test('the token and revoke endpoints answer every error with error and error_description', async (t) => {
  const app = await registerApp(h);
  const bodies: [string, Record<string, string>, string, number, string][] = [
    ['broken JSON', { 'content-type': 'application/json' }, '{"grant_type":', 400, 'Invalid request payload JSON format'],
    ['text/plain', { 'content-type': 'text/plain' }, 'grant_type=client_credentials', 415, 'Unsupported Media Type'],
    ['a body without a type', {}, 'grant_type=client_credentials', 415, 'Unsupported Media Type'],
    ['a broken form escape', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=%E0', 400, 'Invalid %-encoding in the request body'],
    ['too deep', { 'content-type': 'application/x-www-form-urlencoded' }, 'a[b][c][d][e][f][g]=1', 400, 'Parameters nested too deeply (at most 5 levels)'],
    ['gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{}', 415, 'Unsupported Media Type'],
  ];
  for (const [name, send] of transports) {
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      for (const [label, headers, body, status, description] of bodies) {
        const reply = await send('POST', path, headers, body);
        t.same([reply.status, reply.json], [status, { error: 'invalid_request', error_description: description }], `${name} ${path}: ${label}`);
      }
    }
  }
  const own = await overNode('POST', '/oauth/token', { 'content-type': 'application/json' }, JSON.stringify({ grant_type: 'nope', client_id: app.client_id }));
  t.same(own.json, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' }, "the endpoint's own errors are unchanged");
});
