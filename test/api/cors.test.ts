// Browser clients (Elk, Phanpy) call the API from their own origin: preflights must pass and
// responses must expose Link for paging. The HTML pages stay same-origin.

import t from 'tap';
import { harness } from '../helpers/harness.ts';

t.test('CORS on the API and the token endpoint, not on the HTML pages', async (t) => {
  const h = await harness();
  const preflight = await h.server.inject({
    method: 'OPTIONS',
    url: '/api/v1/statuses',
    headers: { origin: 'https://elk.zone', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
  });
  t.equal(preflight.statusCode, 200);
  t.equal(preflight.headers['access-control-allow-origin'], 'https://elk.zone');
  t.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
  t.match(String(preflight.headers['access-control-allow-headers']), /idempotency-key/);
  const read = await h.server.inject({ method: 'GET', url: '/api/v1/instance', headers: { origin: 'https://phanpy.social' } });
  t.equal(read.headers['access-control-allow-origin'], 'https://phanpy.social');
  t.match(String(read.headers['access-control-expose-headers']), /link/, 'Link is readable for paging');
  const token = await h.server.inject({ method: 'OPTIONS', url: '/oauth/token', headers: { origin: 'https://elk.zone', 'access-control-request-method': 'POST' } });
  t.equal(token.headers['access-control-allow-origin'], 'https://elk.zone', 'the token endpoint is callable from the browser');
  const unknown = await h.server.inject({ method: 'GET', url: '/api/v9/nothing', headers: { origin: 'https://elk.zone' } });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.headers['access-control-allow-origin'], 'https://elk.zone', 'even the 404 is readable');
  const page = await h.server.inject({ method: 'GET', url: '/oauth/authorize', headers: { origin: 'https://evil.example' } });
  t.equal(page.headers['access-control-allow-origin'], undefined, 'the sign-in and consent pages are not');
  await h.close();
});
