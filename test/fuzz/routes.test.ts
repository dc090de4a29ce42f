// Hostile input at every route of the route table (rookery.http.routes), seeded and bounded:
// hostile ids in the path, hostile query strings, bodies (JSON, forms, multipart, broken
// encodings, wrong types), headers (tokens, cookies, origins, content types). Over both
// transports (the node:http handler the standalone instance runs, on a real socket, and the
// hapi plugin), on the SQLite store, with every plugin. The server must never answer 5xx,
// every error must be in Mastodon's shape (RFC 6749's, error and error_description, on the
// OAuth endpoints, whatever the method), nothing may be logged as a failed request or die in
// the job queue, and a normal request must still work afterwards.
//
// FUZZ_SEED=<n> replays a run (or tries another); FUZZ_ROUNDS=<n> changes how many requests each
// route gets (20 here: about 2,900 requests in a few seconds).

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createNodeHandler, limitNodeServer } from '../../adapters/node/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import { cardsPlugin, federationPlugin, FetchRefused, mediaPlugin, pollsPlugin, scheduledPlugin } from '../../plugins/index.ts';
import { post } from '../helpers/api.ts';
import { harness } from '../helpers/harness.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_240_501);
const ROUNDS = Number(process.env['FUZZ_ROUNDS'] ?? 20);

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chance = (p: number) => random() < p;

const failures: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (obj, msg) => void failures.push(`${String(msg)} ${JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v)).slice(0, 300)}`),
};

const dir = mkdtempSync(join(tmpdir(), 'rookery-fuzz-'));
const refuse = { fetch: async () => { throw new FetchRefused('no network in the fuzz test'); } };
const h = await harness({
  storage: openSqliteStorage({ path: join(dir, 'fuzz.sqlite3') }),
  plugins: [mediaPlugin({ directory: join(dir, 'media') }), pollsPlugin(), scheduledPlugin(), cardsPlugin({ fetcher: refuse }), federationPlugin()],
  logger,
});
const handler = createNodeHandler(h.rookery);
const server = limitNodeServer(createServer((req, res) => handler(req, res)), h.rookery);
await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
t.teardown(async () => {
  agent.destroy();
  await new Promise((done) => server.close(done));
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

// Something for the ids to point at.
const alice = await h.user('alice', { scopes: ['read', 'write', 'follow', 'push'] });
const bob = await h.user('bob');
const status = await post(h, bob, 'hello #fuzz https://example.com/page');
const mine = await post(h, alice, { status: 'mine', visibility: 'private' });
const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: 'l' } })).json;
const filter = (await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 'f', context: ['home'], keywords_attributes: [{ keyword: 'x' }] } })).json;
const app = (await h.request('POST', '/api/v1/apps', { payload: { client_name: 'fuzz', redirect_uris: 'https://app.example/cb', scopes: 'read write' } })).json;
const realIds = [status.id, mine.id, list.id, filter.id, filter.keywords[0].id, alice.account.id, bob.account.id];

const HUGE = 'x'.repeat(20_000);
const STRINGS = [
  '', ' ', 'abc', '0', '-1', '1e5', '1.5', '99999999999999999999999', '9223372036854775808', '9223372036854775807', '１２３', '0x10',
  'null', 'true', '[]', '{}', '<script>alert(1)</script>', "'; DROP TABLE statuses; --", '../../etc/passwd', '%00', '\u0000', '\u0001\u0002',
  '\ud800', '\udfff\ud800', 'café', '😀'.repeat(300), '\u202e\u200b', 'a\r\nSet-Cookie: x=1', HUGE, `https://example.com/${'a'.repeat(12_000)}`,
  'javascript:alert(1)', 'urn:ietf:wg:oauth:2.0:oob', 'https://app.example/cb', 'read write follow', 'public', 'direct', 'home', '@alice', '#tag',
  '2099-01-01T00:00:00Z', 'not a date', 'en', 'xx-YY',
];
const PATH_VALUES = [
  ...realIds, 'abc', '-1', '0', '1e5', '%FF%FE', '%E0', '%00', '%2F', '%252F', '..', '.', 'a'.repeat(3000), '99999999999999999999999',
  '9223372036854775808', '%EF%BC%91%EF%BC%92', '%3Cscript%3E', "'%20OR%201=1", 'null', 'undefined', '__proto__', 'constructor', 'ungrouped-1',
];
const NAMES = [
  'status', 'spoiler_text', 'sensitive', 'visibility', 'language', 'in_reply_to_id', 'media_ids', 'poll', 'scheduled_at', 'title', 'context',
  'keywords_attributes', 'filter_action', 'expires_in', 'account_ids', 'home', 'notifications', 'redirect_uris', 'client_name', 'scopes',
  'website', 'grant_type', 'code', 'client_id', 'client_secret', 'redirect_uri', 'token', 'username', 'email', 'password', 'agreement',
  'locale', 'reason', 'q', 'type', 'limit', 'max_id', 'min_id', 'since_id', 'id', 'replies_policy', 'exclusive', 'reblogs', 'notify',
  'languages', 'domain', 'description', 'focus', 'file', 'status_id', 'keyword', 'whole_word', 'choices', 'timeline', 'types', 'exclude_types',
  'resolve', 'following', 'offset', 'only_media', 'local', 'remote', 'tagged', 'pinned', 'code_verifier', 'scope', 'state', 'response_type',
  'authenticity_token', '_method', 'user', 'force_login', 'grouped_types', 'account_id', 'policy', 'last_read_id', 'poll[options]',
  'expires_at', 'hide_totals', 'multiple', '__proto__', 'constructor',
];

function value(depth = 0): unknown {
  const roll = random();
  if (depth < 3 && roll < 0.12) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
  if (depth < 3 && roll < 0.22) return object(depth + 1, 1 + Math.floor(random() * 3));
  if (roll < 0.3) return pick([0, -1, 1, 1.5, 1e308, -1e308, 2 ** 64, Number.MAX_SAFE_INTEGER + 2]);
  if (roll < 0.36) return pick([true, false, null]);
  if (roll < 0.42) return pick(realIds);
  return pick(STRINGS);
}

function object(depth: number, size: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) out[pick(NAMES)] = value(depth);
  return out;
}

/** name=value pairs, Rack-style names included, values flattened to text. */
function formPairs(): string {
  const pairs: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const name = pick(NAMES) + pick(['', '[]', '[0]', '[options][]', '[last_read_id]', '[][keyword]', '[a][b][c][d][e][f]', '[']);
    const raw = pick([...STRINGS, ...realIds]);
    const encoded = chance(0.1) ? pick(['%', '%E0', '%zz', '%FF%FE', '+%2B']) : encodeURIComponent(raw.replace(/[\ud800-\udfff]/g, ''));
    pairs.push(chance(0.05) ? encoded : `${encodeURIComponent(name)}=${encoded}`);
  }
  return pairs.join(pick(['&', '&', '&&', ';']));
}

interface Body {
  payload?: Buffer;
  headers: Record<string, string>;
}

function multipart(): Body {
  const boundary = pick(['B0undary', 'x', '', 'a'.repeat(80), 'quote"d']);
  const parts: string[] = [];
  const count = Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    const name = pick(NAMES);
    const file = chance(0.3) ? `; filename="${pick(['a.png', '', '../x', 'é.jpg'])}"` : '';
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n${file ? 'Content-Type: image/png\r\n' : ''}\r\n${pick(STRINGS).slice(0, 2000)}\r\n`);
  }
  const body = chance(0.2) ? pick(['--B\r\nnope', `--${boundary}`, 'garbage', '']) : `${parts.join('')}--${boundary}--\r\n`;
  const type = chance(0.1) ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`;
  return { payload: Buffer.from(body), headers: { 'content-type': type } };
}

function body(): Body {
  const roll = random();
  if (roll < 0.15) return { headers: {} };
  if (roll < 0.45) {
    const json = JSON.stringify(chance(0.9) ? object(0, 1 + Math.floor(random() * 5)) : value());
    return { payload: Buffer.from(json), headers: { 'content-type': pick(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON']) } };
  }
  if (roll < 0.65) return { payload: Buffer.from(formPairs()), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  if (roll < 0.75) return multipart();
  const broken: Body[] = [
    { payload: Buffer.from('{"status": "unterminated'), headers: { 'content-type': 'application/json' } },
    { payload: Buffer.from('[1, 2, 3]'), headers: { 'content-type': 'application/json' } },
    { payload: Buffer.from('"just a string"'), headers: { 'content-type': 'application/json' } },
    { payload: Buffer.from(`${'['.repeat(100)}${']'.repeat(100)}`), headers: { 'content-type': 'application/json' } },
    { payload: Buffer.from([0xff, 0xfe, 0x7b, 0x22]), headers: { 'content-type': 'application/json' } },
    { payload: Buffer.from('status=hi'), headers: { 'content-type': 'text/plain' } },
    { payload: Buffer.from('status=hi'), headers: {} },
    { payload: Buffer.from('{}'), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
    { payload: Buffer.from('status=hi'), headers: { 'content-type': pick(['', ';', 'application/x-www-form-urlencoded; charset=klingon', 'image/png', '*/*']) } },
    { payload: Buffer.from(`{"a":[${Array.from({ length: 12_000 }, () => '1').join(',')}]}`), headers: { 'content-type': 'application/json' } },
  ];
  return pick(broken);
}

function query(): string {
  if (chance(0.4)) return '';
  return `?${pick([formPairs(), `limit=${pick(['-1', '1e309', '100000', 'abc', ''])}&max_id=${pick(PATH_VALUES)}`, 'id[]=1&id[]=abc&id[a]=b', 'a[b][c][d][e][f][g]=1', '%', 'x=%E0', 'types[]=mention&types[]=nope', '&&&=&'])}`;
}

function headers(): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = random();
  if (auth < 0.45) out['authorization'] = `Bearer ${alice.token}`;
  else if (auth < 0.55) out['authorization'] = pick(['Bearer ', 'Bearer garbage', `Bearer ${'a'.repeat(5000)}`, 'Basic Og==', 'Basic !!!', 'Bearer a b c', 'Negotiate x', `Basic ${btoa(`${app.client_id}:${app.client_secret}`)}`]);
  if (chance(0.2)) out['cookie'] = pick(['_rookery_session=abc', '=;;;=', '_rookery_session="unterminated', `a=${'b'.repeat(4000)}`, '\u00ff=\u00ff', '__proto__=1; constructor=2']);
  if (chance(0.15)) out['origin'] = pick(['https://elk.zone', 'null', 'file://', 'x']);
  if (chance(0.05)) out['access-control-request-method'] = pick(['GET', 'POST', 'BREW']);
  if (chance(0.1)) out['idempotency-key'] = pick(['k', 'a'.repeat(4000), '\u00e9']);
  if (chance(0.05)) out['x-forwarded-for'] = pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1', '999.1.1.1']);
  return out;
}

function fillPath(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, () => pick(PATH_VALUES));
}

interface Reply {
  status: number;
  type: string;
  body: string;
}

/** Over the node handler: a real socket, bytes as they are. */
function overSocket(method: string, url: string, head: Record<string, string>, payload: Buffer | undefined): Promise<Reply> {
  return new Promise((done, fail) => {
    // Node's client frames a GET body with neither Content-Length nor chunks: say its length.
    const framed = payload === undefined ? head : { ...head, 'content-length': String(payload.byteLength) };
    const req = httpRequest({ host: '127.0.0.1', port, method, path: url, headers: framed, agent }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(payload);
  });
}

/** Over the hapi plugin (inject: no socket, the same request path through hapi). */
async function overHapi(method: string, url: string, head: Record<string, string>, payload: Buffer | undefined): Promise<Reply> {
  const res = await h.server.inject({ method, url, headers: head, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.payload };
}

/** The error codes of RFC 6749 (§4.1.2.1, §5.2) and Mastodon's rate-limit text, which its
 * OAuth endpoints keep. */
const OAUTH_CODES = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'access_denied', 'unsupported_response_type', 'server_error', 'temporarily_unavailable', 'Too many requests']);
/** Mastodon's error body: the text, RFC 6749's description, and a validation's details
 * (docs/behaviour.md, "Errors"). */
const ERROR_KEYS = new Set(['error', 'error_description', 'details']);
const pages = new Set(h.rookery.endpoints.filter((e) => e.cors === false).map((e) => `${e.method} ${e.path}`));

function problem(route: { method: string; path: string }, method: string, reply: Reply): string | null {
  if (reply.status >= 500) return `${reply.status}`;
  if (reply.status < 400) return null;
  // The browser pages (sign-in, consent, authorize errors) answer a browser with a page.
  if (pages.has(`${route.method} ${route.path}`) && reply.type.startsWith('text/html')) return null;
  if (method === 'HEAD') return null;
  if (!reply.type.startsWith('application/json')) return `error as ${reply.type}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return 'error body is not JSON';
  }
  const error = (parsed as { error?: unknown }).error;
  if (typeof parsed !== 'object' || parsed === null || typeof error !== 'string' || error === '') return 'no "error" text';
  const foreign = Object.keys(parsed).filter((key) => !ERROR_KEYS.has(key));
  if (foreign.length > 0) return `foreign members ${foreign.join(', ')}`;
  // The OAuth endpoints (their JSON answers, whatever the method): RFC 6749's shape.
  if (route.path.startsWith('/oauth/')) {
    if (typeof (parsed as { error_description?: unknown }).error_description !== 'string') return 'no error_description';
    if (!OAUTH_CODES.has(error)) return `"${error}" is not an OAuth error code`;
  }
  if (/at .+\.ts:\d+|Error:|node:internal/.test(reply.body)) return 'a stack trace';
  return null;
}

t.test(`every route, ${ROUNDS} hostile requests each (seed ${SEED})`, async (t) => {
  const routes = h.rookery.http.routes;
  t.ok(routes.length > 80, `${routes.length} routes`);
  const found: string[] = [];
  let sent = 0;
  for (const route of routes) {
    for (let round = 0; round < ROUNDS; round++) {
      const method = chance(0.08) ? pick(['HEAD', 'OPTIONS', 'PATCH', 'DELETE', 'PUT', 'GET', 'POST']) : route.method;
      const url = `${fillPath(route.path)}${query()}`;
      const { payload, headers: bodyHeaders } = method === 'GET' && chance(0.7) ? { payload: undefined, headers: {} } : body();
      const head = { ...headers(), ...bodyHeaders };
      const send = round % 2 === 0 ? overSocket : overHapi;
      const reply = await send(method, url, head, payload);
      sent++;
      const wrong = problem(route, method, reply);
      if (wrong !== null) found.push(`${send === overSocket ? 'node' : 'hapi'} ${method} ${url.slice(0, 120)} ${JSON.stringify(head).slice(0, 200)} → ${reply.status} ${wrong}: ${reply.body.slice(0, 160)}`);
    }
    if (sent % 50 === 0) await h.rookery.drain();
  }
  await h.rookery.drain();
  t.same(found.slice(0, 20), [], `${sent} requests: no 5xx, every error in the one shape`);
  t.same(failures.slice(0, 10), [], 'nothing logged as a failure');
  t.same((await h.core.queue.deadLetters(10)).map((job) => `${job.name}: ${job.lastError}`), [], 'no job died on what the requests stored');
});

t.test('the server still answers normal requests afterwards', async (t) => {
  const instance = await overSocket('GET', '/api/v1/instance', {}, undefined);
  t.equal(instance.status, 200);
  const published = await overSocket('POST', '/api/v1/statuses', { authorization: `Bearer ${bob.token}`, 'content-type': 'application/json' }, Buffer.from('{"status":"still here"}'));
  t.equal(published.status, 200);
  t.equal(JSON.parse(published.body).content, '<p>still here</p>');
  const viaHapi = await h.request('GET', `/api/v1/statuses/${status.id}`);
  t.equal(viaHapi.statusCode, 200);
});
