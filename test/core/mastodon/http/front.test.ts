// The HTTP front on its own, with no transport: RawRequest in, RawResponse out. Routing and
// "not mine", parameters, bodies and their limits, tokens and auth rules, rendering, failures
// (hidden and logged), cookies and CORS.

import t from 'tap';
import { authorize } from '../../../../core/mastodon/api/guard.ts';
import { json, type ApiRequest, type Endpoint, type TokenLookup } from '../../../../core/mastodon/endpoint/types.ts';
import { resolveConfig } from '../../../../core/domain/config.ts';
import { RookeryError } from '../../../../core/domain/errors.ts';
import { createHttpFront } from '../../../../core/mastodon/http/front.ts';
import type { RawRequest, RawResponse } from '../../../../core/mastodon/http/types.ts';
import type { AccessToken, Application } from '../../../../core/domain/model.ts';
import type { Logger } from '../../../../core/domain/ports/logger.ts';

const config = resolveConfig({ domain: 'rookery.test' });
const token: AccessToken = { id: '1', tokenHash: 'h', applicationId: '1', accountId: null, scopes: ['read', 'write'], refreshTokenHash: null, createdAt: 0, revokedAt: null };
const application: Application = { id: '1', name: 'App', website: null, redirectUris: [], scopes: ['read', 'write'], clientId: 'c', clientSecretHash: 's', createdAt: 0 } as unknown as Application;

const looked: (string | null)[] = [];
const logged: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (obj, msg) => void logged.push({ obj: obj as Record<string, unknown>, msg }) };
let seen: ApiRequest | null = null;

const echo = async (request: ApiRequest) => {
  seen = request;
  return json({ params: request.params, query: request.query, body: request.body, app: request.caller.application?.name ?? null });
};

const endpoints: Endpoint[] = [
  { method: 'GET', path: '/api/v1/things/:name', auth: 'optional', scopes: ['read'], handle: echo },
  { method: 'POST', path: '/api/v1/things/:name', auth: 'app', scopes: ['write'], handle: echo },
  { method: 'GET', path: '/api/v1/records/:id/parts/:part_id', auth: 'public', scopes: [], handle: echo },
  { method: 'POST', path: '/api/v1/small', auth: 'public', scopes: [], payload: { maxBytes: 64 }, handle: echo },
  { method: 'POST', path: '/api/v1/open', auth: 'public', scopes: [], handle: echo },
  {
    method: 'POST',
    path: '/api/v1/uploads',
    auth: 'app',
    scopes: ['write'],
    payload: { maxBytes: 1000, fileLimit: (field, head) => (field === 'file' ? { maxBytes: head[0] === 0x42 ? 100 : 10, refusal: new RookeryError(422, `file too big (${String.fromCharCode(head[0] ?? 32)})`) } : null) },
    handle: echo,
  },
  { method: 'GET', path: '/api/v1/boom', auth: 'public', scopes: [], handle: async () => { throw new Error('secret detail'); } },
  { method: 'GET', path: '/api/v1/busy', auth: 'public', scopes: [], handle: async () => { throw new RookeryError(503, 'db down', {}, { 'retry-after': '5' }); } },
  {
    method: 'POST',
    path: '/oauth/token',
    auth: 'public',
    scopes: [],
    handle: async () => { throw new RookeryError(401, 'invalid_client', { error_description: 'Client authentication failed.' }, { 'www-authenticate': 'Bearer realm="Rookery"', 'cache-control': 'no-store' }); },
  },
  {
    method: 'GET',
    path: '/page',
    auth: 'public',
    scopes: [],
    cors: false,
    handle: async (request) => ({ status: 200, type: 'html', body: `<p>${Object.keys(request.cookies).join(',')}:${request.cookies['s'] ?? ''}</p>`, cookies: ['a=1', 'b=2'], headers: { 'Cache-Control': 'private, no-store' } }),
  },
  { method: 'GET', path: '/go', auth: 'public', scopes: [], cors: false, handle: async () => ({ status: 302, type: 'text', body: '', location: '/there' }) },
  { method: 'GET', path: '/img.png', auth: 'public', scopes: [], handle: async () => ({ status: 200, type: 'png', body: btoa('\x89PNG') }) },
];

const front = createHttpFront({
  endpoints,
  lookupToken: async (raw): Promise<TokenLookup> => {
    looked.push(raw);
    if (raw === 'good') return { kind: 'valid', token, application, account: null, user: null };
    return raw === null ? { kind: 'none' } : { kind: 'unknown' };
  },
  authorize: (endpoint, lookup) => authorize(endpoint, lookup, config),
  logger,
});

function request(method: string, url: string, options: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): RawRequest {
  const body = options.body === undefined ? null : typeof options.body === 'string' ? new TextEncoder().encode(options.body) : options.body;
  return { method, url, headers: options.headers ?? {}, remoteAddress: '127.0.0.1', body };
}

async function send(method: string, url: string, options: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<RawResponse & { json: any }> {
  const response = await front.handle(request(method, url, options));
  if (response === null) throw new Error(`${method} ${url} is not Rookery's`);
  return { ...response, json: typeof response.body === 'string' && response.headers['content-type']?.includes('json') ? JSON.parse(response.body) : undefined };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

t.beforeEach(() => {
  looked.length = 0;
  logged.length = 0;
  seen = null;
});

t.test('what is Rookery\'s and what is not', async (t) => {
  t.equal(await front.handle(request('GET', '/')), null, 'the host app\'s path');
  t.equal(await front.handle(request('POST', '/signup', { body: 'x', headers: form })), null);
  t.equal(await front.handle(request('GET', 'http://elsewhere/api/v1/things/1')), null, 'not an origin-form target');
  t.equal(front.bodyLimit('GET', '/'), null);
  t.equal(front.bodyLimit('POST', '/api/v1/small'), 64, "the endpoint's own limit");
  t.equal(front.bodyLimit('POST', '/api/v1/things/1?x=1'), 16 * 1024 * 1024, 'the default, 16 MiB');
  t.equal(front.maxBytes, 16 * 1024 * 1024);
  t.equal(front.bodyLimit('GET', '/api/v1/things/1'), 'ignore', 'a GET body is never read');
  t.equal(front.bodyLimit('POST', '/api/v9/nowhere'), 'ignore', 'an unknown /api path answers 404 without its body');
  t.equal(front.bodyLimit('PUT', '/oauth/token'), 'ignore', 'another method on a known path too');
  t.same(front.routes.filter((r) => r.path.startsWith('/api/v1/things')), [
    { method: 'GET', path: '/api/v1/things/:name', maxBytes: 16 * 1024 * 1024 },
    { method: 'POST', path: '/api/v1/things/:name', maxBytes: 16 * 1024 * 1024 },
  ]);
});

t.test('404 {"error":"Not Found"} under /api and for known paths with another method, whatever the body', async (t) => {
  for (const [method, url] of [['GET', '/api/v9/nothing'], ['DELETE', '/api/v1/things/1'], ['GET', '/oauth/token'], ['GET', '/api'], ['PATCH', '/api/v1/small']] as const) {
    const res = await send(method, url);
    t.equal(res.status, 404, `${method} ${url}`);
    t.same(res.json, { error: 'Not Found' });
    t.equal(res.headers['content-type'], JSON_TYPE);
  }
  const multipart = await send('POST', '/api/v1/nowhere', { body: 'not even multipart', headers: { 'content-type': 'multipart/form-data; boundary=X' } });
  t.equal(multipart.status, 404, 'a multipart POST to an unknown /api path: 404, not 415 or 400');
  t.same(multipart.json, { error: 'Not Found' });
});

t.test('path parameters, query and bodies arrive parsed and nested', async (t) => {
  const read = await send('GET', '/api/v1/things/caf%C3%A9?a[]=1&a[]=2&x[y]=z&access_token=good');
  t.equal(read.status, 200);
  t.same(read.json, { params: { name: 'café' }, query: { a: ['1', '2'], x: { y: 'z' }, access_token: 'good' }, body: {}, app: 'App' });
  t.same(seen && { method: seen.method, path: seen.path, remoteAddress: seen.remoteAddress }, { method: 'GET', path: '/api/v1/things/caf%C3%A9', remoteAddress: '127.0.0.1' });
  t.same((await send('GET', '/api/v1/records/12/parts/34')).json.params, { id: '12', part_id: '34' }, ':id and :…_id hold ids');
  for (const url of ['/api/v1/records/abc/parts/34', '/api/v1/records/12/parts/0', '/api/v1/records/%31%32a/parts/1', '/api/v1/records/99999999999999999999/parts/1']) {
    const refused = await send('GET', url);
    t.same([refused.status, refused.json], [404, { error: 'Record not found' }], `${url}: no such record, before the endpoint runs`);
  }
  const auth = { authorization: 'Bearer good' };
  const viaForm = await send('POST', '/api/v1/things/1', { body: 'poll[options][]=a&poll[options][]=b', headers: { ...auth, ...form } });
  t.same(viaForm.json.body, { poll: { options: ['a', 'b'] } });
  const viaJson = await send('POST', '/api/v1/things/1', { body: '{"poll":{"options":["a"]}}', headers: { ...auth, 'content-type': 'application/json' } });
  t.same(viaJson.json.body, { poll: { options: ['a'] } });
  const viaMultipart = await send('POST', '/api/v1/things/1', {
    body: '--B\r\nContent-Disposition: form-data; name="poll[options][]"\r\n\r\nm\r\n--B--\r\n',
    headers: { ...auth, 'content-type': 'multipart/form-data; boundary=B' },
  });
  t.same(viaMultipart.json.body, { poll: { options: ['m'] } });
  const empty = await send('POST', '/api/v1/things/1', { body: '', headers: { ...auth, 'content-type': 'application/json' } });
  t.equal(empty.status, 200, 'an empty JSON body is no body');
  const getBody = await send('GET', '/api/v1/things/1', { body: 'ignored', headers: { 'content-type': 'text/plain' } });
  t.equal(getBody.status, 200, 'a GET body is not parsed');
  const head = await send('HEAD', '/api/v1/things/1');
  t.equal(head.status, 200, 'HEAD is served by GET');
  t.same(seen && (seen as ApiRequest).headers, {});
  await send('GET', '/api/v1/things/1', { headers: { 'x-many': ['a', 'b'] as unknown as string } });
  t.equal(seen && (seen as ApiRequest).headers['x-many'], 'a, b', 'repeated headers joined');
});

t.test('refusals of bad input, each in the error shape with its status', async (t) => {
  const cases: [string, string, Parameters<typeof send>[2], number, string][] = [
    ['bad JSON', '/api/v1/open', { body: '{"status":', headers: { 'content-type': 'application/json' } }, 400, 'Invalid request payload JSON format'],
    ['another type', '/api/v1/open', { body: 'status=hi', headers: { 'content-type': 'text/plain' } }, 415, 'Unsupported Media Type'],
    ['a body without a type', '/api/v1/open', { body: 'status=hi' }, 415, 'Unsupported Media Type'],
    ['gzip', '/api/v1/open', { body: 'x', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }, 415, 'Unsupported Media Type'],
    ['malformed multipart', '/api/v1/open', { body: '--B\r\nnope', headers: { 'content-type': 'multipart/form-data; boundary=B' } }, 400, 'Invalid multipart payload format'],
    ['over the endpoint limit', '/api/v1/small', { body: 'x'.repeat(65), headers: form }, 413, 'Payload content length greater than maximum allowed: 64'],
    ['bad %-encoding in the query', '/api/v1/open?a=%E0', {}, 400, 'Invalid %-encoding in the query string'],
    ['bad %-encoding in the path', '/api/v1/things/%E0', {}, 400, 'Invalid %-encoding in the path'],
    ['too many parameters', `/api/v1/open?${Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&')}`, {}, 400, 'Too many parameters (at most 1000)'],
    ['too deep', '/api/v1/open?a[b][c][d][e][f][g]=1', {}, 400, 'Parameters nested too deeply (at most 5 levels)'],
    ['conflicting shapes', '/api/v1/open', { body: 'a=1&a[]=2', headers: form }, 400, 'Invalid parameters: expected Array (got String) for param "a"'],
  ];
  for (const [label, url, options, status, error] of cases) {
    const method = url.startsWith('/api/v1/things') ? 'GET' : 'POST';
    const res = await send(method, url, options);
    t.equal(res.status, status, `${label}: ${status}`);
    t.same(res.json, { error }, `${label}: text`);
    t.equal(res.headers['content-type'], JSON_TYPE);
  }
  t.equal((await send('POST', '/api/v1/small', { body: 'x'.repeat(60), headers: form })).status, 200, 'under the limit');
  const big = new Uint8Array(16 * 1024 * 1024 + 1).fill(0x61);
  const tooBig = await send('POST', '/api/v1/open', { body: big, headers: form });
  t.same([tooBig.status, tooBig.json], [413, { error: 'Payload content length greater than maximum allowed: 16777216' }], 'the default limit');
  t.equal(logged.length, 0, 'bad input is not a server error');
});

t.test('the bearer token: header, then query, then body; public endpoints look at none', async (t) => {
  await send('GET', '/api/v1/things/1?access_token=q', { headers: { authorization: 'Bearer h' } });
  await send('GET', '/api/v1/things/1?access_token=q', { headers: { authorization: 'Basic abc' } });
  await send('POST', '/api/v1/things/1', { body: 'access_token=b', headers: form });
  await send('POST', '/api/v1/things/1?access_token=q', { body: 'access_token=b', headers: form });
  await send('GET', '/api/v1/things/1', { headers: { authorization: 'bearer  spaced  ' } });
  await send('GET', '/api/v1/things/1');
  t.same(looked, ['h', 'q', 'b', 'q', 'spaced', null]);
  looked.length = 0;
  await send('POST', '/api/v1/open?access_token=q', { headers: { authorization: 'Bearer h' } });
  t.same(looked, [], 'a public endpoint does not look its token up');
  const refused = await send('POST', '/api/v1/things/1', { headers: { authorization: 'Bearer unknown' } });
  t.same([refused.status, refused.json], [401, { error: 'The access token is invalid' }], "the endpoint's auth rule applies");
  const anonymous = await send('GET', '/api/v1/things/1');
  t.same([anonymous.status, anonymous.json.app], [200, null]);
});

t.test('responses as the endpoints describe them', async (t) => {
  const page = await send('GET', '/page', { headers: { cookie: 'broken; =x; s="quoted"; s=second; __proto__=1; t=2' } });
  t.equal(page.status, 200);
  t.equal(page.body, '<p>s,t:quoted</p>', 'cookies read leniently: malformed pairs skipped, the first of a name wins');
  t.same(page.headers, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'private, no-store', 'set-cookie': ['a=1', 'b=2'] });
  const malformed = await send('GET', '/page', { headers: { cookie: ';;;==;"' } });
  t.equal(malformed.status, 200, 'a malformed Cookie header is no error');
  const go = await send('GET', '/go');
  t.same([go.status, go.body, go.headers], [302, '', { 'content-type': 'text/plain; charset=utf-8', location: '/there', 'cache-control': 'no-cache' }]);
  const png = await send('GET', '/img.png');
  t.equal(png.headers['content-type'], 'image/png');
  t.same([...(png.body as Uint8Array)], [0x89, 0x50, 0x4e, 0x47], 'binary bodies as bytes');
  const read = await send('GET', '/api/v1/things/1');
  t.same(read.headers, { 'content-type': JSON_TYPE, 'cache-control': 'no-cache', vary: 'origin' });
});

t.test('failures: RookeryError as it is, anything else hidden and logged once', async (t) => {
  const oauth = await send('POST', '/oauth/token');
  t.equal(oauth.status, 401);
  t.same(oauth.json, { error: 'invalid_client', error_description: 'Client authentication failed.' });
  t.equal(oauth.headers['www-authenticate'], 'Bearer realm="Rookery"');
  t.equal(oauth.headers['cache-control'], 'no-store');
  t.equal(logged.length, 0);

  const boom = await send('GET', '/api/v1/boom?access_token=secret-token');
  t.same([boom.status, boom.json], [500, { error: 'Internal server error' }]);
  t.notMatch(String(boom.body), /secret|at /);
  t.equal(logged.length, 1);
  t.equal(logged[0]?.msg, 'request failed');
  t.match(logged[0]?.obj, { method: 'GET', path: '/api/v1/boom', err: { message: 'secret detail' } });
  t.notMatch(JSON.stringify(logged[0]?.obj), /secret-token/, 'never the query string');

  const busy = await send('GET', '/api/v1/busy');
  t.same([busy.status, busy.json, busy.headers['retry-after']], [503, { error: 'Internal server error' }, '5'], 'a 5xx RookeryError keeps status and headers, not its text');
  t.equal(logged.length, 2);

  const refused = front.refuse({ method: 'POST', url: '/api/v1/open?access_token=x', headers: { origin: 'https://elk.zone' }, remoteAddress: '' }, 413, 'Payload content length greater than maximum allowed: 5');
  t.same([refused.status, JSON.parse(String(refused.body))], [413, { error: 'Payload content length greater than maximum allowed: 5' }]);
  t.equal(refused.headers['access-control-allow-origin'], 'https://elk.zone', "a transport's refusal is readable cross-origin too");
  const crashed = front.refuse({ method: 'GET', url: '/api/v1/open?access_token=x', headers: {}, remoteAddress: '' }, 500, 'socket trouble');
  t.same(JSON.parse(String(crashed.body)), { error: 'Internal server error' });
  t.match(logged[2], { msg: 'request failed', obj: { method: 'GET', path: '/api/v1/open', err: { message: 'socket trouble' } } });
});

t.test('CORS per endpoint', async (t) => {
  const origin = { origin: 'https://elk.zone' };
  const preflightOf = (url: string, method = 'POST') => front.handle(request('OPTIONS', url, { headers: { ...origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,idempotency-key' } }));
  const pre = await preflightOf('/api/v1/things/1');
  t.equal(pre?.status, 200);
  t.same(pre?.headers, {
    'access-control-allow-origin': 'https://elk.zone',
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE',
    'access-control-allow-headers': 'Accept,Authorization,Content-Type,If-None-Match,idempotency-key,x-requested-with',
    'access-control-max-age': '86400',
    'access-control-expose-headers': 'WWW-Authenticate,link,x-ratelimit-limit,x-ratelimit-remaining,x-ratelimit-reset,x-request-id',
    'cache-control': 'no-cache',
    vary: 'origin',
  });
  t.equal(pre?.body, '');
  t.equal((await preflightOf('/api/v9/unknown'))?.status, 200, 'an unknown /api path: the 404 must be readable');
  t.equal((await preflightOf('/oauth/token'))?.status, 200);
  const page = await preflightOf('/page', 'GET');
  t.same([page?.status, page?.headers['access-control-allow-origin']], [404, undefined], 'no preflight for an HTML page');
  t.equal(await preflightOf('/host-page'), null, "the host's paths are the host's");

  const read = await send('GET', '/api/v1/things/1', { headers: origin });
  t.equal(read.headers['access-control-allow-origin'], 'https://elk.zone');
  t.match(read.headers['access-control-expose-headers'], /link/);
  t.equal(read.headers['vary'], 'origin');
  const missing = await send('GET', '/api/v9/nothing', { headers: origin });
  t.same([missing.status, missing.headers['access-control-allow-origin']], [404, 'https://elk.zone']);
  const failed = await send('POST', '/api/v1/things/1', { headers: origin });
  t.same([failed.status, failed.headers['access-control-allow-origin']], [401, 'https://elk.zone'], 'errors are readable too');
  const html = await send('GET', '/page', { headers: origin });
  t.same([html.headers['access-control-allow-origin'], html.headers['vary']], [undefined, undefined], 'HTML pages stay same-origin');
  const wrongMethod = await send('DELETE', '/page', { headers: origin });
  t.same([wrongMethod.status, wrongMethod.headers['access-control-allow-origin']], [404, undefined]);
  const plainOptions = await send('OPTIONS', '/api/v1/things/1');
  t.same([plainOptions.status, plainOptions.json], [404, { error: 'Not Found' }], 'OPTIONS without a preflight is just another method');
});

t.test('multipart bodies a transport streams: formRules, then the parts it hands over as form', async (t) => {
  const multipart = { 'content-type': 'multipart/form-data; boundary=B' };
  const rules = front.formRules({ method: 'POST', url: '/api/v1/uploads', headers: multipart, remoteAddress: '' });
  t.match(rules, { maxBytes: 1000, maxFieldBytes: 1000, maxParts: 1000, maxFiles: 8 }, "the endpoint's limit; text fields within it");
  t.same(rules?.fileLimit('file', new Uint8Array([0x42])), { maxBytes: 100, refusal: new RookeryError(422, 'file too big (B)') }, "each file's limit from the endpoint, by its first bytes");
  t.equal(rules?.fileLimit('other', new Uint8Array([0x42])), null);
  t.equal(front.formRules({ method: 'POST', url: '/api/v1/open', headers: multipart, remoteAddress: '' })?.maxFieldBytes, 1024 * 1024, 'text fields: 1 MiB in all at most');
  const head = (url: string, headers: Record<string, string>, method = 'POST') => front.formRules({ method, url, headers, remoteAddress: '' });
  t.equal(head('/api/v1/uploads', form), null, 'not multipart: read whole');
  t.equal(head('/api/v1/uploads', { 'content-type': 'multipart/form-data' }), null, 'no boundary: read whole, and refused by the front');
  t.equal(head('/api/v1/uploads', { ...multipart, 'content-encoding': 'gzip' }), null, 'compressed: read whole, and refused by the front');
  t.equal(head('/api/v1/things/x', multipart, 'GET'), null, 'a body not read');
  t.equal(head('/api/v9/nowhere', multipart), null, 'no endpoint');

  const file = { filename: 'f', contentType: 'image/png', size: 3, path: '/tmp/f', read: async () => new Uint8Array(), bytes: async () => new Uint8Array() };
  const streamed = (authorization: string | null, refusal?: unknown): RawRequest => ({
    ...request('POST', '/api/v1/uploads', { headers: { ...multipart, ...(authorization === null ? {} : { authorization }) } }),
    form: { parts: [['a[]', '1'], ['a[]', '2'], ['file', file]], ...(refusal === undefined ? {} : { refusal }) },
  });
  const ok = await front.handle(streamed('Bearer good'));
  t.equal(ok?.status, 200);
  t.same(seen?.body, { a: ['1', '2'], file }, 'the parts nest as a body does; the file as it is');
  const refusal = new RookeryError(422, 'file too big (B)');
  const refused = await front.handle(streamed('Bearer good', refusal));
  t.same([refused?.status, JSON.parse(String(refused?.body))], [422, { error: 'file too big (B)' }], 'a file stopped at its limit: refused');
  const anonymous = await front.handle(streamed(null, refusal));
  t.equal(anonymous?.status, 401, 'but only once the caller passed the auth rule');
});
