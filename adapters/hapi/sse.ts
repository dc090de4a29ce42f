// Server-sent events on the host app's own port, for hosts that embed Rookery without a second
// port for streaming. The core's stream entry (rookery.streaming) decides everything; this only
// moves bytes. sse-channel (the card's package) keeps the registry of open streams, sets their
// sockets up, drops them when they close and drives one heartbeat timer for all of them. Where
// it falls short it is wrapped, not forked:
// - its headers (`Cache-Control: no-cache`, and a `Connection` header HTTP/2 forbids) are
//   replaced by the documented ones (docs/behaviour.md, "Streaming") as it writes them;
// - its ping (`:\n`) is replaced by the documented `:thump` heartbeat;
// - events never go through its string broadcast: each connection gets the hub's bytes,
//   encoded once for everyone, and a connection whose unsent bytes pass a bound is ended
//   (sse-channel ignores backpressure, so a client that stops reading would grow memory);
// - its history and Last-Event-ID replay stay unused: Mastodon's events carry no ids;
// - its ping timer is unref'd, so that it alone never keeps a process alive.

import type { ServerResponse } from 'node:http';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import SseChannel from 'sse-channel';
import type { Rookery } from '../../core/rookery.ts';
import type { StreamConnection } from '../../core/streaming/hub.ts';

export interface HapiStreamingOptions {
  /** Heartbeat interval (default 15 s, as Mastodon). */
  heartbeatMs?: number;
  /** Unsent bytes a connection may hold before it is ended (default 1 MiB). */
  maxBufferedBytes?: number;
}

const HEARTBEAT = Buffer.from(':thump\n\n');
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'private, no-store',
  'access-control-allow-origin': '*',
};

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function streamingRoutes(rookery: Rookery, options: HapiStreamingOptions = {}): { routes: ServerRoute[]; close(): void } {
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const open = new Set<StreamConnection>();

  /** Writes unless the client fell too far behind; then the connection ends. */
  const send = (res: ServerResponse, bytes: Uint8Array): void => {
    if (res.writableEnded || res.destroyed) return;
    if (res.writableLength + bytes.byteLength > maxBuffered) {
      res.destroy();
      return;
    }
    res.write(bytes);
  };
  // sse-channel binds its ping when it starts its timer: a subclass is how to replace it.
  class HeartbeatChannel extends SseChannel {
    override ping(): void {
      for (const res of this.connections) send(res, HEARTBEAT);
    }
  }
  const channel = new HeartbeatChannel({ pingInterval: options.heartbeatMs ?? 15_000 });
  (channel as unknown as { timer?: { unref?: () => void } }).timer?.unref?.();

  const stream = async (request: Request, h: ResponseToolkit) => {
    const { req, res } = request.raw;
    const query = request.query as Record<string, string | string[] | undefined>;
    const opened = await rookery.streaming.openSse(
      request.path,
      { only_media: first(query['only_media']), tag: first(query['tag']), list: first(query['list']) },
      { authorization: first(req.headers.authorization), accessToken: first(query['access_token']) },
      {
        deliver: (event) => send(res, event.sse()),
        kill: () => res.end(),
      },
    );
    if ('error' in opened) {
      return h.response({ error: opened.error }).code(opened.status).header('access-control-allow-origin', '*').type('application/json; charset=utf-8');
    }
    open.add(opened);
    const end = () => {
      open.delete(opened);
      void opened.close();
    };
    res.once('close', end);
    // sse-channel writes its own head: the documented headers replace its choices.
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number) => writeHead(status, SSE_HEADERS)) as typeof res.writeHead;
    channel.addClient(req, res);
    return h.abandon;
  };

  const routes: ServerRoute[] = [
    {
      method: 'GET',
      path: '/api/v1/streaming/health',
      options: { cors: false, state: { parse: false } },
      handler: (_request, h) => h.response('OK').type('text/plain; charset=utf-8').header('cache-control', 'private, no-store').header('access-control-allow-origin', '*'),
    },
    {
      method: 'GET',
      path: '/api/v1/streaming/{path*}',
      // A stream lasts: no hapi timeout may end it.
      options: { cors: false, state: { parse: false }, timeout: { socket: false }, handler: stream },
    },
  ];
  return {
    routes,
    close() {
      channel.close();
      for (const connection of open) void connection.close();
      open.clear();
    },
  };
}
