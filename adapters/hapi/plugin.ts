// The hapi plugin: mounts the core's endpoints on the host app's server. It only translates:
// request → ApiRequest (Rack-style keys nested with qs, files annotated), the bearer token →
// the core's token lookup, ApiResponse → hapi response, RookeryError → Boom → {"error": …}.
// Every rule (auth, scopes, status codes, texts) lives in the core.

import Boom from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, ResponseObject, RouteOptions, Server } from '@hapi/hapi';
import type { ApiRequest, ApiResponse, Endpoint, HttpMethod, TokenLookup } from '../../core/api/types.ts';
import { RookeryError } from '../../core/errors.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { Rookery } from '../../core/rookery.ts';
import { bearerScheme, lookupOf } from './auth.ts';
import { parseBody, parseQuery } from './params.ts';

export interface RookeryHapiOptions {
  rookery: Rookery;
  /** Answer unknown /api/* paths with Mastodon's 404 {"error":"Not Found"} (default true). */
  apiNotFound?: boolean;
  /** Largest request body in bytes (default 16 MiB). */
  maxBytes?: number;
}

/** Browser clients (Elk, Phanpy) call the API from other origins, as Mastodon allows. */
const CORS = {
  origin: ['*'],
  credentials: false,
  additionalHeaders: ['idempotency-key', 'x-requested-with'],
  additionalExposedHeaders: ['link', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'],
};

/** HTML pages and the page that handles forms are same-origin only. */
function isBrowserPage(path: string): boolean {
  return path === '/oauth/authorize' || path.startsWith('/oauth/authorize/') || path.startsWith('/auth/');
}

export function toHapiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function toBoom(err: unknown): Boom.Boom {
  if (err instanceof RookeryError) {
    const boom = new Boom.Boom(err.message, { statusCode: err.status, data: err.extra });
    for (const [name, value] of Object.entries(err.headers)) boom.output.headers[name] = value;
    return boom;
  }
  if (Boom.isBoom(err)) return err;
  return Boom.boomify(err instanceof Error ? err : new Error(String(err)), { statusCode: 500 });
}

/** Mastodon's error body: {"error": text} plus any extra members (error_description, details).
 * A server error shows the client nothing of its cause; the logger gets it (path only: the
 * query string may carry a token). */
const renderError = (logger: Logger) => (request: Request, h: ResponseToolkit) => {
  const response = request.response;
  if (!Boom.isBoom(response)) return h.continue;
  const status = response.output.statusCode;
  const extra = (response.data ?? {}) as Record<string, unknown>;
  if (status >= 500) logger.error({ err: response, method: request.method.toUpperCase(), path: request.path }, 'request failed');
  const body = { error: status >= 500 ? 'Internal server error' : response.message, ...(status >= 500 ? {} : extra) };
  const reply = h.response(body).code(status);
  for (const [name, value] of Object.entries(response.output.headers)) {
    if (value !== undefined) reply.header(name, String(value));
  }
  return reply;
};

function toHapiResponse(h: ResponseToolkit, response: ApiResponse): ResponseObject {
  let reply: ResponseObject;
  switch (response.type) {
    case 'html':
      reply = h.response(String(response.body)).type('text/html; charset=utf-8');
      break;
    case 'text':
      reply = h.response(String(response.body)).type('text/plain; charset=utf-8');
      break;
    case 'png':
      reply = h.response(Buffer.from(String(response.body), 'base64')).type('image/png');
      break;
    case 'binary': {
      const bytes = response.body instanceof Uint8Array ? response.body : new Uint8Array();
      reply = h.response(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).type(response.headers?.['content-type'] ?? 'application/octet-stream');
      break;
    }
    default:
      reply = h.response(response.body === undefined ? {} : (response.body as object)).type('application/json; charset=utf-8');
  }
  reply.code(response.status);
  if (response.location !== undefined) reply.location(response.location);
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  for (const cookie of response.cookies ?? []) reply.header('set-cookie', cookie, { append: true });
  return reply;
}

function toApiRequest(request: Request, lookup: TokenLookup, rookery: Rookery, endpoint: Endpoint): ApiRequest {
  const caller = rookery.authorize(endpoint, lookup);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : undefined;
  }
  return {
    method: endpoint.method,
    path: request.path,
    params: request.params as Record<string, string>,
    query: parseQuery(request.url.search),
    body: parseBody(request),
    headers,
    cookies: (request.state ?? {}) as Record<string, string>,
    caller,
    remoteAddress: request.info.remoteAddress,
  };
}

function routeFor(endpoint: Endpoint, rookery: Rookery, maxBytes: number) {
  const hasBody = endpoint.method !== 'GET';
  const options: RouteOptions = {
    auth: { strategy: 'rookery', mode: 'required' },
    state: { parse: true, failAction: 'ignore' },
    ext: { onPreResponse: { method: renderError(rookery.core.logger) } },
    handler: async (request, h) => {
      try {
        const api = toApiRequest(request, lookupOf(request), rookery, endpoint);
        return toHapiResponse(h, await endpoint.handle(api));
      } catch (err) {
        throw toBoom(err);
      }
    },
  };
  if (!isBrowserPage(endpoint.path)) options.cors = CORS;
  if (hasBody) {
    options.payload = {
      parse: true,
      output: 'data',
      multipart: { output: 'annotated' },
      allow: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      maxBytes: endpoint.payload?.maxBytes ?? maxBytes,
      failAction: (_request, _h, err) => {
        throw err ?? Boom.badRequest();
      },
    };
  }
  return { method: endpoint.method satisfies HttpMethod, path: toHapiPath(endpoint.path), options };
}

export const rookeryHapi: Plugin<RookeryHapiOptions> = {
  name: 'rookery',
  version: '0.1.0',
  register(server: Server, options: RookeryHapiOptions) {
    const { rookery } = options;
    server.auth.scheme('rookery-bearer', bearerScheme(rookery));
    server.auth.strategy('rookery', 'rookery-bearer');
    const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    server.route(rookery.endpoints.map((endpoint) => routeFor(endpoint, rookery, maxBytes)));
    if (options.apiNotFound ?? true) {
      server.route({
        method: '*',
        path: '/api/{any*}',
        options: {
          cors: CORS,
          ext: { onPreResponse: { method: renderError(rookery.core.logger) } },
          handler: () => {
            throw Boom.notFound('Not Found');
          },
        },
      });
    }
  },
};
