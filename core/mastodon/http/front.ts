// The HTTP front: one RawRequest in, one RawResponse out. It routes, decides 404s before any
// body is parsed, parses parameters Rack-style, finds the bearer token, applies the endpoint's
// auth rule, runs the endpoint, renders the result or the failure, and adds CORS headers.
// Requests for paths that are neither an endpoint's nor under /api/ are not Rookery's: the
// front says so (null) and the transport passes them to the host app.

import type { ApiRequest, ApiResponse, Endpoint, Params, TokenLookup } from '../endpoint/types.ts';
import type { StoreStamp } from '../../domain/ports/storage.ts';
import type { Millis } from '../../domain/model.ts';
import { notFound, RookeryError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { rateLimitTexts } from '../rate-limits.ts';
import { parseBody } from './body.ts';
import { parseCookies } from './cookies.ts';
import { preflight, withCors } from './cors.ts';
import { parseHeaderValue } from './header-params.ts';
import { MAX_BOUNDARY, MAX_FIELD_BYTES, MAX_FILES } from './multipart.ts';
import { MAX_PARAMS, nestParams, parseUrlEncoded, rackTexts } from './rack.ts';
import { errorResponse, oauthBody, render, renderFailure, SERVER_ERROR } from './render.ts';
import { KeptAnswers } from './kept.ts';
import { Router, type RouteMatch } from './router.ts';
import type { BodyLimit, FormRules, FrontDeps, HttpFront, RawHead, RawRequest, RawResponse, RouteInfo } from './types.ts';

export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export const frontTexts = {
  notFound: 'Not Found',
  tooLarge: (maxBytes: number) => `Payload content length greater than maximum allowed: ${maxBytes}`,
};

const NO_TOKEN: TokenLookup = { kind: 'none' };
const BEARER = /^Bearer\s+(\S+)\s*$/i;

interface Target {
  path: string;
  /** The query string without '?'. */
  search: string;
}

/** Only origin-form targets (/path?query) can be ours. */
function splitUrl(url: string): Target | null {
  if (!url.startsWith('/')) return null;
  const q = url.indexOf('?');
  return q < 0 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q + 1) };
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

function headerOf(headers: RawHead['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** HEAD is served by the GET endpoint; the transport drops the body. */
function routingMethod(method: string): string {
  const upper = method.toUpperCase();
  return upper === 'HEAD' ? 'GET' : upper;
}

function ignoresBody(endpoint: Endpoint): boolean {
  return endpoint.method === 'GET';
}

/** Unknown /api paths and paths served with other methods answer cross-origin when the API does. */
function corsFor(match: RouteMatch, path: string): boolean {
  if (match.kind === 'endpoint') return match.endpoint.cors !== false;
  return (match.kind === 'path' && match.cors) || isApiPath(path);
}

/** Whether errors of the request are in RFC 6749's shape: those of the OAuth endpoints, and of
 * any other method on their paths (still a 404, as everywhere, but one an OAuth client reads). */
function oauthFor(match: RouteMatch): boolean {
  return match.kind === 'endpoint' ? match.endpoint.oauthErrors === true : match.kind === 'path' && match.oauth;
}

/** Path parameters named `id` or `…_id` hold Mastodon ids (core/ids.ts): anything else there
 * names no record, so it is 404 before an endpoint (or a store) ever sees it. */
function isIdParam(name: string): boolean {
  return name === 'id' || name.endsWith('_id');
}

function decodePathParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      params[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      throw new RookeryError(400, rackTexts.badEncoding('the path'));
    }
    if (isIdParam(name) && !isId(params[name])) throw notFound();
  }
  return params;
}

/** Whether the body is multipart/form-data that a transport can stream: a usable boundary and
 * no compression (anything else is read whole, and the front refuses it in its own words). */
function isStreamableForm(headers: RawHead['headers']): boolean {
  const encoding = headerOf(headers, 'content-encoding')?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') return false;
  const type = parseHeaderValue(headerOf(headers, 'content-type') ?? '');
  const boundary = type.params.get('boundary');
  return type.value === 'multipart/form-data' && boundary !== undefined && boundary !== '' && boundary.length <= MAX_BOUNDARY;
}

function flattenHeaders(headers: RawHead['headers']): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/** Authorization: Bearer …, else access_token in the query, else in the body (Mastodon reads
 * it from any parameter). */
function bearerToken(authorization: string | undefined, query: Params, body: Params): string | null {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (match?.[1]) return match[1];
  for (const params of [query, body]) {
    const token = params['access_token'];
    if (typeof token === 'string' && token !== '') return token;
  }
  return null;
}

/** No token anywhere a GET carries one: no Authorization header, and no access_token in a
 * query string that needs no decoding. (Anything else is looked at the long way.) */
function plainlyAnonymous(raw: RawRequest, target: Target): boolean {
  return raw.headers['authorization'] === undefined && (target.search === '' || (!target.search.includes('access') && !target.search.includes('%')));
}

/** Adds headers the response has none of (an endpoint's own win), their names in lower case
 * as render() writes them. */
function addHeaders(response: RawResponse, extra: Readonly<Record<string, string>> = {}): void {
  for (const [name, value] of Object.entries(extra)) {
    const lower = name.toLowerCase();
    if (!(lower in response.headers)) response.headers[lower] = value;
  }
}

/** Rails routes a resource's update to both PUT and PATCH, and Mastodon's clients use either
 * (masto.js sends PUT, others PATCH): an endpoint declared PUT answers PATCH too, unless the
 * path has a PATCH of its own. */
function withPatchForPut(endpoints: readonly Endpoint[]): Endpoint[] {
  const patched = new Set(endpoints.filter((e) => e.method === 'PATCH').map((e) => e.path));
  return endpoints.flatMap((e) => (e.method === 'PUT' && !patched.has(e.path) ? [e, { ...e, method: 'PATCH' as const }] : [e]));
}

function uniqueRoutes(endpoints: readonly Endpoint[], limitOf: (endpoint: Endpoint) => number): RouteInfo[] {
  const seen = new Set<string>();
  const routes: RouteInfo[] = [];
  for (const endpoint of endpoints) {
    const key = `${endpoint.method} ${endpoint.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    routes.push({ method: endpoint.method, path: endpoint.path, maxBytes: limitOf(endpoint) });
  }
  return routes;
}

export function createHttpFront(deps: FrontDeps): HttpFront {
  const endpoints = withPatchForPut(deps.endpoints);
  const router = new Router(endpoints);
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_BYTES;
  const limitOf = (endpoint: Endpoint) => endpoint.payload?.maxBytes ?? maxBytes;
  const logFailure = (method: string, path: string) => (err: unknown) => deps.logger.error({ err, method, path }, 'request failed');
  const kept = new KeptAnswers();
  const now = deps.now ?? Date.now;
  /** Whose answer it is: anonymous ones under their URL, a person's under their account too
   * (a token for an application alone keeps nothing); null when none is kept. */
  const keyOf = (url: string, lookup: TokenLookup): string | null => {
    if (lookup.kind === 'none') return url;
    if (lookup.kind !== 'valid' || lookup.account === null || deps.readerChangesAt === undefined) return null;
    return `${lookup.account.id}\n${url}`;
  };
  /** How long an answer made now may live, by time alone. */
  const untilFor = async (lookup: TokenLookup): Promise<Millis> =>
    lookup.kind === 'valid' && lookup.account !== null && deps.readerChangesAt !== undefined ? deps.readerChangesAt(lookup.account.id) : Infinity;
  // A transport asks bodyLimit and then handle for the same request: it is routed once.
  let lastRoute: { method: string; path: string; match: RouteMatch } | null = null;
  const route = (method: string, path: string): RouteMatch => {
    if (lastRoute !== null && lastRoute.method === method && lastRoute.path === path) return lastRoute.match;
    const match = router.match(method, path);
    lastRoute = { method, path, match };
    return match;
  };

  /** The answers answerAsGet gave, already rendered: sent as they are. */
  const madeAsGet = new WeakMap<ApiResponse, RawResponse>();
  const asGiven = (raw: RawResponse): ApiResponse => {
    const response: ApiResponse = { status: raw.status, body: null };
    madeAsGet.set(response, raw);
    return response;
  };
  /** ApiRequest.answerAsGet: only when the request's reads found the store as it was at
   * `stamp`, taken before it read anything, and it committed nothing, is GET `path`'s answer
   * kept at `stamp` this request's answer too: the action then decided on that very state. */
  async function answerAsGet(request: ApiRequest, lookup: TokenLookup, stamp: StoreStamp, path: string, make: () => Promise<ApiResponse>): Promise<ApiResponse> {
    const key = keyOf(path, lookup);
    if (key === null || deps.stamp === undefined) return make();
    const seen = deps.stampSeen !== undefined ? deps.stampSeen() : await deps.stamp();
    if (seen !== stamp) return make();
    const ready = kept.get(key, stamp, now());
    if (ready !== undefined) return asGiven(ready);
    const note = (request.keep = { until: await untilFor(lookup) });
    const made = await make();
    return made.status === 200 ? asGiven(kept.keep(key, stamp, note.until, render(made))) : made;
  }

  /** `early`: the stamp handle() took for a request it saw to be anonymous, whose kept answer
   * it looked for already. */
  async function serve(endpoint: Endpoint, rawParams: Record<string, string>, raw: RawRequest, target: Target, early?: StoreStamp | null): Promise<RawResponse> {
    try {
      const limit = limitOf(endpoint);
      if (!ignoresBody(endpoint) && raw.body !== null && raw.body.byteLength > limit) throw new RookeryError(413, frontTexts.tooLarge(limit));
      const params = decodePathParams(rawParams);
      const query = parseUrlEncoded(target.search, 'the query string');
      const rawBody = endpoint.rawBody === true && !ignoresBody(endpoint);
      const readsParams = !ignoresBody(endpoint) && !rawBody;
      let body: Params = {};
      if (readsParams) body = raw.form === undefined ? parseBody(raw.body, raw.headers['content-type'], raw.headers['content-encoding']) : nestParams(raw.form.parts);
      const headers = flattenHeaders(raw.headers);
      // A public endpoint does not look at tokens, so none is looked up.
      const token = endpoint.auth === 'public' ? null : bearerToken(headers['authorization'], query, body);
      // The store's stamp, taken before anything is read: kept token lookups and kept answers
      // are served only at it.
      const stamp = early !== undefined ? early : deps.stamp !== undefined && (token !== null || endpoint.keep === true) ? await deps.stamp() : null;
      const lookup = endpoint.auth === 'public' ? NO_TOKEN : await deps.lookupToken(token, stamp);
      // Counted before the endpoint runs or refuses, as Mastodon's Rack::Attack counts.
      const verdict =
        deps.rateLimiter == null
          ? null
          : await deps.rateLimiter.before({
              route: `${endpoint.method} ${endpoint.path}`,
              path: target.path,
              params: { ...query, ...body },
              accountId: lookup.kind === 'valid' ? (lookup.account?.id ?? null) : null,
              tokenId: lookup.kind === 'valid' ? lookup.token.id : null,
              remoteAddress: raw.remoteAddress,
              forwardedFor: headers['x-forwarded-for'],
            });
      if (verdict?.limited) throw new RookeryError(429, rateLimitTexts.tooMany, {}, verdict.headers);
      const caller = deps.authorize(endpoint, lookup);
      // A GET of an endpoint that keeps its answers, anonymous or by a person: served from them
      // when nothing was written since (kept.ts); else made, and kept.
      const keptKey = stamp === null || endpoint.keep !== true ? null : keyOf(raw.url, lookup);
      if (keptKey !== null && early === undefined) {
        const ready = kept.get(keptKey, stamp as StoreStamp, now());
        if (ready !== undefined) {
          if (verdict != null) addHeaders(ready, await deps.rateLimiter?.after(verdict, ready.status, null));
          return ready;
        }
      }
      const request: ApiRequest = {
        method: endpoint.method,
        path: target.path,
        params,
        query,
        body,
        headers,
        cookies: parseCookies(raw.headers['cookie']),
        caller,
        remoteAddress: raw.remoteAddress,
        search: target.search,
      };
      if (rawBody) request.rawBody = raw.body ?? new Uint8Array();
      if (stamp !== null && endpoint.keep !== true) request.answerAsGet = (path, make) => answerAsGet(request, lookup, stamp, path, make);
      const note = keptKey === null ? undefined : (request.keep = { until: await untilFor(lookup) });
      let response: ApiResponse;
      try {
        // A file the transport stopped reading at its limit: refused now that the caller is known.
        if (readsParams && raw.form?.refusal !== undefined) throw raw.form.refusal;
        response = await endpoint.handle(request);
      } catch (err) {
        // An endpoint's refusal carries the limits' headers too (Mastodon sends them on a 422).
        if (verdict != null && err instanceof RookeryError && err.status < 500) {
          throw new RookeryError(err.status, err.message, { ...err.extra }, { ...verdict.headers, ...err.headers });
        }
        throw err;
      }
      // Kept before the rate limits' headers, which are the request's own.
      const rendered =
        madeAsGet.get(response) ?? (note !== undefined && keptKey !== null && stamp !== null && response.status === 200 ? kept.keep(keptKey, stamp, note.until, render(response)) : render(response));
      if (verdict != null) addHeaders(rendered, await deps.rateLimiter?.after(verdict, response.status, response.body));
      return rendered;
    } catch (err) {
      return renderFailure(err, logFailure(raw.method.toUpperCase(), target.path), endpoint.oauthErrors === true);
    }
  }

  return {
    maxBytes,
    routes: uniqueRoutes(endpoints, limitOf),

    bodyLimit(method: string, url: string): BodyLimit | null {
      const target = splitUrl(url);
      if (target === null) return null;
      const match = route(routingMethod(method), target.path);
      if (match.kind === 'endpoint') return ignoresBody(match.endpoint) ? 'ignore' : limitOf(match.endpoint);
      return match.kind === 'none' && !isApiPath(target.path) ? null : 'ignore';
    },

    formRules(request: RawHead): FormRules | null {
      const target = splitUrl(request.url);
      if (target === null || !isStreamableForm(request.headers)) return null;
      const match = route(routingMethod(request.method), target.path);
      if (match.kind !== 'endpoint' || ignoresBody(match.endpoint) || match.endpoint.rawBody === true) return null;
      const { endpoint } = match;
      const limit = limitOf(endpoint);
      return {
        maxBytes: limit,
        maxFieldBytes: Math.min(limit, MAX_FIELD_BYTES),
        maxParts: MAX_PARAMS,
        maxFiles: MAX_FILES,
        fileLimit: (field, head) => endpoint.payload?.fileLimit?.(field, head) ?? null,
      };
    },

    async handle(raw: RawRequest): Promise<RawResponse | null> {
      const target = splitUrl(raw.url);
      if (target === null) return null;
      deps.freshen?.();
      const method = routingMethod(raw.method);
      const origin = headerOf(raw.headers, 'origin');
      const requested = headerOf(raw.headers, 'access-control-request-method');
      if (method === 'OPTIONS' && origin !== undefined && requested !== undefined) {
        const asked = router.match(routingMethod(requested), target.path);
        if (corsFor(asked, target.path)) return preflight(origin);
      }
      const match = route(method, target.path);
      if ((match.kind !== 'none' || isApiPath(target.path)) && (await deps.accessRefused?.(raw.remoteAddress, headerOf(raw.headers, 'x-forwarded-for')))) {
        return { status: 403, headers: { 'content-type': 'text/plain' }, body: 'Forbidden\n' };
      }
      if (match.kind === 'endpoint') {
        // Plainly anonymous, and no limits to count: a kept answer is found before anything
        // of the request is parsed (its path and query were valid when it was made).
        const early = match.endpoint.keep === true && deps.rateLimiter == null && plainlyAnonymous(raw, target) ? ((await deps.stamp?.()) ?? null) : undefined;
        if (early != null) {
          const ready = kept.get(raw.url, early, now());
          if (ready !== undefined) return withCors(ready, origin);
        }
        const response = await serve(match.endpoint, match.params, raw, target, early);
        return match.endpoint.cors === false ? response : withCors(response, origin);
      }
      if (match.kind === 'none' && !isApiPath(target.path)) return null;
      const notFound = errorResponse(404, oauthFor(match) ? oauthBody(404, { error: frontTexts.notFound }) : { error: frontTexts.notFound });
      return corsFor(match, target.path) ? withCors(notFound, origin) : notFound;
    },

    refuse(request: RawHead, status: number, message: string, cause?: unknown): RawResponse {
      const target = splitUrl(request.url);
      const path = target?.path ?? '';
      const match = target === null ? null : router.match(routingMethod(request.method), path);
      let body: Record<string, unknown>;
      if (status >= 500) {
        logFailure(request.method.toUpperCase(), path)(cause ?? new Error(message));
        body = { error: SERVER_ERROR };
      } else {
        body = { error: message };
      }
      // An empty url: the transport could not tell which path was asked for (the request line
      // went by before its headers overflowed), so the body is one both kinds of client read:
      // the text as Mastodon's error and as RFC 6749's description.
      if (request.url === '') body = { ...body, error_description: body['error'] };
      const response = errorResponse(status, match !== null && oauthFor(match) ? oauthBody(status, body) : body);
      return match !== null && corsFor(match, path) ? withCors(response, headerOf(request.headers, 'origin')) : response;
    },
  };
}
