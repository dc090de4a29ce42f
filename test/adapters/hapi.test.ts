// What the hapi plugin itself is responsible for: failures in Mastodon's error body without
// leaking anything, and hapi's own refusals (bad JSON, size, type, unknown route) in that shape.

import t from 'tap';
import { json } from '../../core/mastodon/endpoint/types.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { harness } from '../helpers/harness.ts';

const logged: { obj: object; msg: string | undefined }[] = [];
const logger: Logger = { debug() {}, info() {}, warn() {}, error: (obj, msg) => void logged.push({ obj, msg }) };

const broken: RookeryPlugin = {
  name: 'broken',
  register(host) {
    host.addEndpoint({
      method: 'GET',
      path: '/api/v1/broken',
      auth: 'public',
      scopes: [],
      handle: async () => {
        throw new Error('secret detail /etc/passwd');
      },
    });
    host.addEndpoint({ method: 'POST', path: '/api/v1/small', auth: 'public', scopes: [], payload: { maxBytes: 64 }, handle: async (request) => json(request.body) });
  },
};

t.test('an unexpected failure: 500 with a bare message, the cause in the log only', async (t) => {
  const h = await harness({ plugins: [broken], logger });
  const res = await h.request('GET', '/api/v1/broken?access_token=should-not-be-logged');
  t.equal(res.statusCode, 500);
  t.same(res.json, { error: 'Internal server error' });
  t.notMatch(res.body, /secret|passwd|at /, 'no message, no stack');
  t.equal(logged.length, 1);
  t.equal(logged[0]?.msg, 'request failed');
  t.match(logged[0]?.obj, { method: 'GET', path: '/api/v1/broken' });
  t.notMatch(JSON.stringify(logged[0]?.obj), /should-not-be-logged/, 'the query string (a token) is not logged');
  await h.close();
});

t.test("hapi's own refusals come in Mastodon's shape", async (t) => {
  const h = await harness({ plugins: [broken] });
  const alice = await h.user('alice');
  const badJson = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: '{"status":', headers: { 'content-type': 'application/json' } });
  t.equal(badJson.statusCode, 400);
  t.same(badJson.json, { error: 'Invalid request payload JSON format' });
  const big = await h.request('POST', '/api/v1/small', { payload: { text: 'x'.repeat(100) } });
  t.equal(big.statusCode, 413);
  t.match(big.json, { error: /Payload content length greater than maximum allowed: 64/ });
  const type = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: 'status=hi', headers: { 'content-type': 'text/plain' } });
  t.equal(type.statusCode, 415);
  t.same(type.json, { error: 'Unsupported Media Type' });
  const unknown = await h.request('DELETE', '/api/v1/nowhere/at/all');
  t.equal(unknown.statusCode, 404);
  t.same(unknown.json, { error: 'Not Found' });
  // (PATCH /api/v1/statuses/1 is an edit, as Rails routes PUT and PATCH alike.)
  const wrongMethod = await h.request('PATCH', '/api/v1/statuses/1/favourite');
  t.equal(wrongMethod.statusCode, 404, 'a known path with an unknown method');
  t.same(wrongMethod.json, { error: 'Not Found' });
  await h.close();
});

t.test('an empty POST body is no body at all', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const s = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'x' } })).json;
  const res = await h.server.inject({ method: 'POST', url: `/api/v1/statuses/${s.id}/favourite`, headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' } });
  t.equal(res.statusCode, 200, 'clients send POST with a JSON type and nothing in it');
  await h.close();
});

t.test('the plugin only translates: routes in the host table, the host keeps what is not ours', async (t) => {
  const h = await harness();
  h.server.route({ method: 'GET', path: '/', handler: () => 'host home' });
  const table = h.server.table().map((route) => `${route.method} ${route.path}`);
  t.ok(table.includes('get /api/v1/statuses/{id}'), 'endpoints are hapi routes of their own');
  t.ok(table.includes('* /api/{any*}'), 'plus the /api catch-all');
  t.equal((await h.server.inject({ method: 'GET', url: '/' })).payload, 'host home');
  const hostMissing = await h.server.inject({ method: 'GET', url: '/not-rookery' });
  t.same([hostMissing.statusCode, JSON.parse(hostMissing.payload).message], [404, 'Not Found'], "hapi's own 404 for the host's paths");
  const multipart = await h.request('POST', '/api/v1/nowhere', {
    payload: '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--B--\r\n',
    headers: { 'content-type': 'multipart/form-data; boundary=B' },
  });
  t.same([multipart.statusCode, multipart.json], [404, { error: 'Not Found' }], 'a multipart POST to an unknown /api path is a 404, not a 415');
  const head = await h.server.inject({ method: 'HEAD', url: '/api/v1/instance' });
  t.same([head.statusCode, head.payload, head.headers['content-type']], [200, '', 'application/json; charset=utf-8'], 'HEAD');
  const preflight = await h.server.inject({ method: 'OPTIONS', url: '/oauth/revoke', headers: { origin: 'https://elk.zone', 'access-control-request-method': 'POST' } });
  t.same([preflight.statusCode, preflight.headers['access-control-allow-origin']], [200, 'https://elk.zone'], 'preflights outside /api reach the front');
  const wrongMethod = await h.server.inject({ method: 'GET', url: '/oauth/token' });
  t.same([wrongMethod.statusCode, JSON.parse(wrongMethod.payload)], [404, { error: 'invalid_request', error_description: 'Not Found' }], 'another method on one of our paths (an OAuth one: RFC 6749 shape)');
  const wrongApiMethod = await h.server.inject({ method: 'PATCH', url: '/api/v1/instance' });
  t.same([wrongApiMethod.statusCode, JSON.parse(wrongApiMethod.payload)], [404, { error: 'Not Found' }], 'another method on an API path');
  await h.close();
});
