// The front's router: static paths, :params, literal before param with backtracking, and what a
// known path with another method or an unknown path looks like.

import t from 'tap';
import { json, type Endpoint, type HttpMethod } from '../../../../core/mastodon/endpoint/types.ts';
import { Router } from '../../../../core/mastodon/http/router.ts';

function endpoint(method: HttpMethod, path: string, extra: Partial<Endpoint> = {}): Endpoint {
  return { method, path, auth: 'public', scopes: [], handle: async () => json({}), ...extra };
}

const first = endpoint('GET', '/api/v1/statuses/:id');
const shadowed = endpoint('GET', '/api/v1/statuses/:id');
const endpoints = [
  first,
  shadowed,
  endpoint('DELETE', '/api/v1/statuses/:id'),
  endpoint('GET', '/api/v1/accounts/lookup'),
  endpoint('GET', '/api/v1/accounts/:id/statuses'),
  endpoint('POST', '/api/v1/accounts/:account_id/follow'),
  endpoint('GET', '/api/v1/accounts/relationships'),
  endpoint('GET', '/oauth/authorize', { cors: false }),
  endpoint('POST', '/oauth/authorize', { cors: false }),
  endpoint('POST', '/oauth/token', { oauthErrors: true }),
];
const router = new Router(endpoints);

function matched(method: string, path: string): [string, Record<string, string>] | string {
  const match = router.match(method, path);
  if (match.kind !== 'endpoint') return match.kind === 'path' ? `path cors=${match.cors}` : 'none';
  return [`${match.endpoint.method} ${match.endpoint.path}`, match.params];
}

t.test('static and parameterised paths', async (t) => {
  t.same(matched('GET', '/api/v1/accounts/lookup'), ['GET /api/v1/accounts/lookup', {}]);
  t.same(matched('GET', '/api/v1/statuses/123'), ['GET /api/v1/statuses/:id', { id: '123' }]);
  t.equal((router.match('GET', '/api/v1/statuses/1') as { endpoint: Endpoint }).endpoint, first, 'the first of two same routes wins');
  t.same(matched('DELETE', '/api/v1/statuses/9'), ['DELETE /api/v1/statuses/:id', { id: '9' }]);
  t.same(matched('GET', '/api/v1/accounts/7/statuses'), ['GET /api/v1/accounts/:id/statuses', { id: '7' }]);
  t.same(matched('POST', '/api/v1/accounts/7/follow'), ['POST /api/v1/accounts/:account_id/follow', { account_id: '7' }], 'names per route');
  t.same(matched('GET', '/api/v1/statuses/caf%C3%A9'), ['GET /api/v1/statuses/:id', { id: 'caf%C3%A9' }], 'params still encoded');
});

t.test('a literal segment first, then back to the :param', async (t) => {
  t.same(matched('GET', '/api/v1/accounts/relationships'), ['GET /api/v1/accounts/relationships', {}]);
  t.same(matched('GET', '/api/v1/accounts/lookup/statuses'), ['GET /api/v1/accounts/:id/statuses', { id: 'lookup' }]);
  t.same(matched('POST', '/api/v1/accounts/lookup/follow'), ['POST /api/v1/accounts/:account_id/follow', { account_id: 'lookup' }]);
});

t.test('known paths with another method, and unknown paths', async (t) => {
  t.equal(matched('PATCH', '/api/v1/statuses/1'), 'path cors=true');
  t.equal(matched('POST', '/api/v1/accounts/lookup'), 'path cors=true');
  t.equal(matched('GET', '/oauth/token'), 'path cors=true');
  t.equal(matched('DELETE', '/oauth/authorize'), 'path cors=false', 'an HTML page stays same-origin');
  for (const path of ['/api/v1/statuses', '/api/v1/statuses/', '/api/v1/statuses//', '/api/v1/statuses/1/2/3/4/5/6/7/8', '/elsewhere', '', 'api/v1/accounts/lookup']) {
    t.equal(matched('GET', path), 'none', JSON.stringify(path));
  }
  t.equal(matched('GET', '/api/v1/accounts//statuses'), 'none', 'an empty segment is no :param');
  t.equal(matched('get', '/api/v1/accounts/lookup'), 'path cors=true', 'methods are case-sensitive here; the front upper-cases');
  t.same(router.match('GET', '/oauth/token'), { kind: 'path', cors: true, oauth: true }, 'a path whose endpoint answers OAuth errors says so');
  t.same(router.match('PUT', '/oauth/authorize'), { kind: 'path', cors: false, oauth: false });
});
