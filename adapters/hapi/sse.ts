// Server-sent events on the host app's own hapi server, for hosts that embed Rookery without a
// second port for streaming. The streams themselves are the node adapter's (adapters/node/sse.ts,
// on sse-channel): hapi hands over the raw request and response and steps aside.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { createSseStreams, type SseOptions } from '../node/sse.ts';

export type HapiStreamingOptions = SseOptions;

function first(value: unknown): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' ? one : undefined;
}

export function streamingRoutes(rookery: Rookery, options: HapiStreamingOptions = {}): { routes: ServerRoute[]; close(): void } {
  const streams = createSseStreams(rookery, options);
  const handler = async (request: Request, h: ResponseToolkit) => {
    const query = request.query as Record<string, unknown>;
    await streams.serve(request.raw.req, request.raw.res, request.path, (name) => first(query[name]));
    return h.abandon;
  };
  // A stream lasts: no hapi timeout may end it.
  const options_ = { cors: false, state: { parse: false }, timeout: { socket: false as const }, handler };
  return {
    routes: [
      { method: 'GET', path: '/api/v1/streaming', options: options_ },
      { method: 'GET', path: '/api/v1/streaming/{path*}', options: options_ },
    ],
    close: () => streams.close(),
  };
}
