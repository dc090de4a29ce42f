// Cross-origin access for browser clients (Elk, Phanpy), as Mastodon grants it to the API:
// any origin, no credentials (tokens travel in headers), paging and rate-limit headers exposed.
// Endpoints that are HTML pages declare cors: false and stay same-origin.

import type { RawResponse } from './types.ts';

const ALLOW_HEADERS = 'Accept,Authorization,Content-Type,If-None-Match,idempotency-key,x-requested-with';
const ALLOW_METHODS = 'GET,POST,PUT,PATCH,DELETE';
const EXPOSE_HEADERS = 'WWW-Authenticate,link,x-ratelimit-limit,x-ratelimit-remaining,x-ratelimit-reset,x-request-id';

export function withCors(response: RawResponse, origin: string | undefined): RawResponse {
  const vary = response.headers['vary'];
  response.headers['vary'] = typeof vary === 'string' && vary !== '' ? `${vary}, origin` : 'origin';
  if (origin !== undefined) {
    response.headers['access-control-allow-origin'] = origin;
    response.headers['access-control-expose-headers'] = EXPOSE_HEADERS;
  }
  return response;
}

/** The answer to a preflight (OPTIONS with Origin and Access-Control-Request-Method). */
export function preflight(origin: string): RawResponse {
  return {
    status: 200,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '86400',
      'access-control-expose-headers': EXPOSE_HEADERS,
      'cache-control': 'no-cache',
      vary: 'origin',
    },
    body: '',
  };
}
