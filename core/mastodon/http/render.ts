// ApiResponse → RawResponse, and failures → Mastodon's {"error": text} body (plus extra members
// such as error_description, and the error's headers). A server error shows the client nothing
// of its cause.

import type { ApiResponse } from '../endpoint/types.ts';
import { RookeryError } from '../../domain/errors.ts';
import { fromBase64 } from './bytes.ts';
import type { RawResponse } from './types.ts';

const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  'json-text': 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  png: 'image/png',
  binary: 'application/octet-stream',
} as const;

export const SERVER_ERROR = 'Internal server error';

/** A Location header as a transport can send it: characters outside printable ASCII (a
 * redirect URI stored before URIs were checked, say) are %-encoded, never a thrown error. */
function safeLocation(location: string): string {
  return location.replace(/[^\x21-\x7e]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD
    }
  });
}

export function render(response: ApiResponse): RawResponse {
  const type = response.type ?? 'json';
  const headers: Record<string, string | string[]> = { 'content-type': CONTENT_TYPES[type] };
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = value;
  if (response.location !== undefined) headers['location'] = safeLocation(response.location);
  if (response.cookies !== undefined && response.cookies.length > 0) headers['set-cookie'] = [...response.cookies];
  // What hapi sent when an endpoint set no caching of its own.
  headers['cache-control'] ??= 'no-cache';
  let body: string | Uint8Array;
  if (type === 'json') body = JSON.stringify(response.body === undefined ? {} : response.body);
  else if (type === 'json-text') body = String(response.body);
  else if (type === 'png') body = fromBase64(String(response.body));
  // Bytes as they are (media files); the endpoint names their content type in its headers.
  else if (type === 'binary') body = response.body instanceof Uint8Array ? response.body : new Uint8Array();
  else body = String(response.body);
  return { status: response.status, headers, body };
}

export function errorResponse(status: number, body: Record<string, unknown>, headers: Readonly<Record<string, string>> = {}): RawResponse {
  const all: Record<string, string | string[]> = { 'content-type': CONTENT_TYPES.json };
  for (const [name, value] of Object.entries(headers)) all[name.toLowerCase()] = value;
  all['cache-control'] ??= 'no-cache';
  return { status, headers: all, body: JSON.stringify(body) };
}

/** The error body of an endpoint with RFC 6749 errors for a failure that has no OAuth code of
 * its own (a refusal of the front or the transport): invalid_request with the text as its
 * description; the rate limit keeps Mastodon's text; a server error is server_error. */
export function oauthBody(status: number, body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body['error_description'] === 'string') return body;
  const text = typeof body['error'] === 'string' ? body['error'] : SERVER_ERROR;
  if (status >= 500) return { error: 'server_error', error_description: SERVER_ERROR };
  return { ...body, error: status === 429 ? text : 'invalid_request', error_description: text };
}

/** A RookeryError below 500 is shown as it is; anything else is reported to `log` and shown
 * as a bare 500 (a RookeryError of 5xx keeps its status and headers, not its text). `oauth`:
 * the endpoint answers errors in RFC 6749's shape. */
export function renderFailure(err: unknown, log: (err: unknown) => void, oauth = false): RawResponse {
  const shape = (status: number, body: Record<string, unknown>) => (oauth ? oauthBody(status, body) : body);
  if (err instanceof RookeryError && err.status < 500) return errorResponse(err.status, shape(err.status, { error: err.message, ...err.extra }), err.headers);
  log(err);
  if (err instanceof RookeryError) return errorResponse(err.status, shape(err.status, { error: SERVER_ERROR }), err.headers);
  return errorResponse(500, shape(500, { error: SERVER_ERROR }));
}
