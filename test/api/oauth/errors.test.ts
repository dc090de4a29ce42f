// Every error of the OAuth endpoints in RFC 6749 §5.2's shape, {"error", "error_description"},
// whoever refuses the request: the endpoint itself, the front (a body it cannot read, another
// method on the path, a limit) or node's parser under the transport (a broken body, headers too
// large). Table-driven, on real sockets, over both transports: the hapi plugin on hapi's own
// server, and the node:http handler on a server set up by limitNodeServer. /api/v1/apps is
// Mastodon's API, not OAuth's: its errors stay {"error": text}, as Mastodon answers them.

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { createNodeHandler, limitNodeServer } from '../../../adapters/node/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { harness } from '../../helpers/harness.ts';
import { registerApp } from '../../helpers/oauth.ts';

const h = await harness({ listen: true });
const node: Server = createServer(createNodeHandler(h.rookery));
limitNodeServer(node, h.rookery);
await new Promise<void>((ready) => node.listen(0, '127.0.0.1', ready));
t.teardown(async () => {
  node.closeAllConnections();
  await new Promise((done) => node.close(done));
  await h.close();
});

/** The server's side of each connection, by the client's port: how many bytes it has read. */
const accepted = new Map<number, Socket>();
for (const server of [node, h.server.listener]) server.on('connection', (socket: Socket) => void accepted.set(socket.remotePort ?? 0, socket));

const transports = [
  ['hapi', Number(new URL(h.core.config.baseUrl).port)],
  ['node', (node.address() as AddressInfo).port],
] as const;

interface Reply {
  status: number;
  body: unknown;
}

/** Sends `parts` on one connection, each only once the server has read the ones before (so that
 * node's parser sees them apart), and reads until the server closes it. */
async function exchange(port: number, parts: readonly (string | Buffer)[]): Promise<Reply> {
  const client = connect(port, '127.0.0.1');
  client.setNoDelay(true);
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  client.on('error', () => {});
  const closed = new Promise<void>((done) => client.once('close', () => done()));
  await new Promise<void>((done) => client.once('connect', () => done()));
  const server = await eventually(async () => {
    await new Promise((next) => setImmediate(next));
    return accepted.get(client.localPort ?? -1);
  }, (socket) => socket !== undefined, 'the server accepting the connection');
  let sent = 0;
  for (const part of parts) {
    client.write(part);
    sent += Buffer.byteLength(part);
    const expected = sent;
    await eventually(async () => {
      await new Promise((next) => setImmediate(next));
      return server?.bytesRead ?? 0;
    }, (read) => read >= expected || server?.destroyed === true, 'the server reading what was sent');
  }
  await closed;
  const text = Buffer.concat(chunks).toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0);
  const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {}
  return { status, body };
}

const oauth = (description: string) => ({ error: 'invalid_request', error_description: description });
const FORM = 'content-type: application/x-www-form-urlencoded\r\n';
const CLOSE = 'connection: close\r\n';

/** A request with a body (content-length set), the connection closed after its answer. */
function request(method: string, target: string, headers: string, body = ''): string {
  return `${method} ${target} HTTP/1.1\r\nhost: x\r\n${headers}${CLOSE}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

type Case = [label: string, parts: (string | Buffer)[], status: number, body: unknown];

/** What any of the OAuth endpoints' paths refuses alike: the front's and the parser's refusals.
 * `method`: one the path serves with a body. */
function refusals(path: string, method: string): Case[] {
  return [
    ['JSON that does not parse', [request(method, path, 'content-type: application/json\r\n', '{"grant_type":')], 400, oauth('Invalid request payload JSON format')],
    ['a body type no endpoint reads', [request(method, path, 'content-type: text/plain\r\n', 'grant_type=x')], 415, oauth('Unsupported Media Type')],
    ['a body without a type', [request(method, path, '', 'grant_type=x')], 415, oauth('Unsupported Media Type')],
    ['a compressed body', [request(method, path, 'content-type: application/json\r\ncontent-encoding: gzip\r\n', '{}')], 415, oauth('Unsupported Media Type')],
    ['a broken form escape', [request(method, path, FORM, 'grant_type=%E0')], 400, oauth('Invalid %-encoding in the request body')],
    ['multipart without a boundary', [request(method, path, 'content-type: multipart/form-data\r\n', 'x')], 400, oauth('Invalid multipart payload format')],
    ['a query that is not UTF-8', [request(method, `${path}?x=%FF`, FORM)], 400, oauth('Invalid %-encoding in the query string')],
    ['another method on the path', [request('PUT', path, FORM)], 404, oauth('Not Found')],
    ['a chunked body whose framing breaks', [`${method} ${path} HTTP/1.1\r\nhost: x\r\n${FORM}transfer-encoding: chunked\r\n\r\n`, 'zz\r\nabc\r\n0\r\n\r\n'], 400, oauth('Bad Request')],
    ['a Content-Length that is no number', [`${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ten\r\n\r\n`], 400, oauth('Bad Request')],
    ['a header name node refuses', [`${method} ${path} HTTP/1.1\r\nhost: x\r\nbad header: 1\r\n\r\n`], 400, oauth('Bad Request')],
    ['a lower-case method', [`${method.toLowerCase()} ${path} HTTP/1.1\r\nhost: x\r\n\r\n`], 400, oauth('Bad Request')],
    ['headers too large', [`${method} ${path} HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`], 431, oauth('Request Header Fields Too Large')],
  ];
}

t.test('the token, revoke and authorize endpoints: every refusal with error and error_description', async (t) => {
  const app = await registerApp(h);
  const cases: Case[] = [
    ...refusals('/oauth/token', 'POST'),
    ['token: GET', [request('GET', '/oauth/token', '')], 404, oauth('Not Found')],
    ['token: no grant_type', [request('POST', '/oauth/token', FORM, `client_id=${app.client_id}`)], 400, oauth('Missing required parameter: grant_type.')],
    ['token: an unknown grant', [request('POST', '/oauth/token', FORM, `grant_type=nope&client_id=${app.client_id}`)], 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' }],
    ...refusals('/oauth/revoke', 'POST'),
    ['revoke: GET', [request('GET', '/oauth/revoke', '')], 404, oauth('Not Found')],
    ['revoke: no client', [request('POST', '/oauth/revoke', FORM, 'token=x')], 403, { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' }],
    ...refusals('/oauth/authorize', 'POST'),
    ['authorize: a query that is not UTF-8 on the page itself', [request('GET', '/oauth/authorize?client_id=%FF', '')], 400, oauth('Invalid %-encoding in the query string')],
    ['authorize/native: another method', [request('POST', '/oauth/authorize/native', FORM)], 404, oauth('Not Found')],
  ];
  for (const [name, port] of transports) {
    for (const [label, parts, status, body] of cases) {
      const reply = await exchange(port, parts);
      t.same([reply.status, reply.body], [status, body], `${name}: ${label}`);
    }
  }
});

t.test('a body over the limit: 413 with error and error_description', async (t) => {
  const body = Buffer.alloc(16 * 1024 * 1024 + 1, 'a');
  for (const [name, port] of transports) {
    for (const path of ['/oauth/token', '/oauth/authorize']) {
      const head = `POST ${path} HTTP/1.1\r\nhost: x\r\n${FORM}${CLOSE}content-length: ${body.byteLength}\r\n\r\n`;
      const reply = await exchange(port, [Buffer.concat([Buffer.from(head), body])]);
      t.same([reply.status, reply.body], [413, oauth('Payload content length greater than maximum allowed: 16777216')], `${name}: ${path}`);
    }
  }
});

t.test('headers that overflow after the request line went by: the path is not known, the body serves both shapes', async (t) => {
  // node keeps no request line it has parsed when the headers after it overflow in a later
  // packet: Rookery's own server (node, limitNodeServer) answers in a shape both kinds of client
  // read. hapi's server is the host's: there hapi answers what it cannot place, as for the host.
  const [, port] = transports[1];
  const reply = await exchange(port, ['POST /oauth/token HTTP/1.1\r\n', `host: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`]);
  t.same([reply.status, reply.body], [431, { error: 'Request Header Fields Too Large', error_description: 'Request Header Fields Too Large' }]);
});

t.test("/api/v1/apps keeps Mastodon's {\"error\": text}", async (t) => {
  for (const [name, port] of transports) {
    const invalid = await exchange(port, [request('POST', '/api/v1/apps', FORM, 'client_name=')]);
    t.same([invalid.status, invalid.body], [422, { error: "Validation failed: Application name can't be blank, Redirect URI can't be blank" }], `${name}: its own 422`);
    const unreadable = await exchange(port, [request('POST', '/api/v1/apps', 'content-type: application/json\r\n', '{')]);
    t.same([unreadable.status, unreadable.body], [400, { error: 'Invalid request payload JSON format' }], `${name}: the front's`);
  }
});
