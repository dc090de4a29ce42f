// The hapi plugin: routes on the host app's server that hand each request to the core's HTTP
// front and copy its answer back. hapi parses nothing (payload and cookie parsing are off): it
// hands over the body as a stream, read as the node handler reads it (adapters/node/body.ts:
// multipart files streamed to temporary files). Its own refusals, such as a declared length
// over the limit, and node's (a request it cannot parse), come out in the front's error shape.
// Register it without a route prefix: clients expect /api and /oauth at the root.

import type { Readable } from 'node:stream';
import type { Plugin, Request, ResponseToolkit, RouteOptions, ServerRoute } from '@hapi/hapi';
import { frontTexts } from '../../core/mastodon/http/front.ts';
import type { RawHead, RawResponse } from '../../core/mastodon/http/types.ts';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { streamingRoutes, type HapiStreamingOptions } from './sse.ts';
import { answer, defaultUploadDirectory } from '../node/body.ts';
import { SSE_OPTIONS } from '../node/sse.ts';
import { checkOptions, option } from '../../core/domain/options.ts';
import { answerClientError, readClientError } from '../node/client-errors.ts';
import type { Server as NodeServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpFront } from '../../core/mastodon/http/types.ts';

export interface RookeryHapiOptions {
  rookery: Rookery;
  /** Server-sent events on this server's port (default true; false when a streaming server
   * such as rookery/uws serves them elsewhere). */
  streaming?: boolean | HapiStreamingOptions;
  /** Where the files of multipart bodies wait while their request lasts (default: the
   * system's temporary directory); each is removed when its request ends. */
  uploadDirectory?: string;
}

/** Mastodon-style :params → hapi's {params}. */
export function toHapiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function headOf(request: Request): RawHead {
  const { req } = request.raw;
  return { method: req.method ?? request.method.toUpperCase(), url: req.url ?? request.path, headers: req.headers, remoteAddress: request.info.remoteAddress };
}

/** hapi's own routes for requests that match none (notFound, badRequest): method '_special',
 * which its types do not list. */
function isSpecialRoute(request: Request): boolean {
  return (request.route.method as string) === '_special';
}

function isReadable(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function' && typeof (payload as Readable).on === 'function';
}

function reply(h: ResponseToolkit, raw: RawResponse) {
  const body = typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body.buffer, raw.body.byteOffset, raw.body.byteLength);
  const response = h.response(body).code(raw.status);
  for (const [name, value] of Object.entries(raw.headers)) {
    for (const item of typeof value === 'string' ? [value] : value) response.header(name, item, { append: true });
  }
  return response;
}

/** node's own refusals (bytes its parser rejects, headers too large) of requests for Rookery's
 * paths are answered by the front, in their path's shape, as on the node handler; hapi's own
 * answer is a bare "400 Bad Request" without a body. Those of the host's paths stay hapi's, as
 * does a broken body of a request under way when hapi answers it through the request's
 * lifecycle (its cleanStop, the default), where onPreResponse below shapes it. */
function answerRefusedRequests(listener: NodeServer, http: HttpFront, hapiAnswersUnderWay: boolean): void {
  const hapis = listener.listeners('clientError') as ((err: Error, socket: Duplex) => void)[];
  listener.removeAllListeners('clientError');
  listener.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const refused = readClientError(err, socket);
    const ours = refused !== null && !(refused.underWay && hapiAnswersUnderWay) && refused.head.url !== '' && http.bodyLimit(refused.head.method, refused.head.url) !== null;
    if (ours) answerClientError(http, refused, socket);
    else for (const handler of hapis) handler.call(listener, err, socket);
  });
}

export const rookeryHapi: Plugin<RookeryHapiOptions> = {
  name: 'rookery',
  version: '0.1.0',
  register(server, options) {
    checkOptions('rookeryHapi', options, {
      rookery: option.required({ what: 'a Rookery (createRookery, createNodeRookery)', test: (v) => typeof v === 'object' && v !== null && typeof (v as { http?: { handle?: unknown } }).http?.handle === 'function' }),
      streaming: option.either(option.boolean(), option.object('rookeryHapi', SSE_OPTIONS)),
      uploadDirectory: option.nonEmptyString('a directory path'),
    });
    const { rookery, streaming = true, uploadDirectory = defaultUploadDirectory() } = options;
    const { http } = rookery;
    answerRefusedRequests(server.listener, http, server.settings.operations?.cleanStop !== false);
    if (streaming !== false) {
      const sse = streamingRoutes(rookery, streaming === true ? {} : streaming);
      server.route(sse.routes);
      server.ext('onPreStop', () => sse.close());
    }
    const handler = async (request: Request, h: ResponseToolkit) => {
      const head = headOf(request);
      const limit = http.bodyLimit(head.method, head.url) ?? 'ignore';
      const source = isReadable(request.payload) ? request.payload : null;
      const answered = await answer(http, head, limit, source, uploadDirectory);
      // The client went away before its body was read: nobody to answer.
      if (answered === null) return h.close;
      // hapi closes the connection itself when the body was not read to its end.
      return reply(h, answered.response);
    };
    // The host's route defaults (cors, say) must not add to what the front decides.
    const base: RouteOptions = { cors: false, state: { parse: false }, handler };
    const routes: ServerRoute[] = http.routes.map(({ method, path, maxBytes }) => ({
      method,
      path: toHapiPath(path),
      // override: hapi never reads the content type (the front does, and refuses a bad one in
      // its own words, as it does for the node handler); maxBytes: hapi refuses a declared
      // length over it before the handler runs, body.ts counts the rest.
      options: method === 'GET' ? base : { ...base, payload: { parse: false, output: 'stream', maxBytes, override: 'application/octet-stream' } },
    }));
    // Preflights, other methods on our paths and unknown /api paths: the front answers them
    // without a body, so hapi does not read one. One route per path shape (hapi refuses two).
    const others = new Map([['/api/{any*}', '/api/{any*}']]);
    for (const { path } of routes) if (!path.startsWith('/api/')) others.set(path.replace(/\{[^}]*\}/g, '{}'), path);
    const other: RouteOptions = { ...base, payload: { parse: false, output: 'stream', override: 'application/octet-stream' } };
    server.route([...routes, ...[...others.values()].map((path) => ({ method: '*' as const, path, options: other }))]);
    server.ext(
      'onPreResponse',
      (request, h) => {
        const response = request.response;
        if (!('isBoom' in response) || !response.isBoom) return h.continue;
        return reply(h, http.refuse(headOf(request), response.output.statusCode, response.message, response));
      },
      { sandbox: 'plugin' },
    );
    // Requests hapi refuses before any route (a path it cannot decode, or one its dot-segment
    // normalization sends nowhere) reach no route of ours: on Rookery's paths the front still
    // answers them, as it answers the node handler. Everything else stays the host's.
    server.ext('onPreResponse', async (request, h) => {
      const response = request.response;
      if (!('isBoom' in response) || !response.isBoom || !isSpecialRoute(request)) return h.continue;
      const head = headOf(request);
      const limit = http.bodyLimit(head.method, head.url);
      if (limit === null) return h.continue;
      // The front answers these without their body (hapi read none).
      if (limit === 'ignore') return reply(h, (await http.handle({ ...head, body: null })) ?? http.refuse(head, 404, frontTexts.notFound));
      const status = response.output.statusCode;
      return reply(h, http.refuse(head, status, status === 404 ? frontTexts.notFound : response.message, response));
    });
  },
};
