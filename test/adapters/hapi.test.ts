// What the hapi adapter itself adds: translating failures into Mastodon's error body without
// leaking anything, and hapi's own refusals (bad JSON, size, type, unknown route) in that shape.

import t from 'tap';
import { json } from '../../core/api/types.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { RookeryPlugin } from '../../core/plugin-host.ts';
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
  const wrongMethod = await h.request('PATCH', '/api/v1/statuses/1');
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
