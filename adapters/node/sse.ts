// Server-sent events on a node:http server (the host app's own port, or the standalone
// instance's web processes), for hapi and for the plain node handler alike. The core's stream
// entry (rookery.streaming) decides everything; this only moves bytes. sse-channel (the card's
// package) keeps the registry of open streams, sets their sockets up, drops them when they
// close and drives one heartbeat timer for all of them. Where it falls short it is wrapped, not
// forked:
// - its headers (`Cache-Control: no-cache`, and a `Connection` header HTTP/2 forbids) are
//   replaced by Mastodon's as it writes them;
// - its ping (`:\n`) is replaced by Mastodon's `:thump` heartbeat;
// - events never go through its string broadcast: each connection gets the hub's bytes,
//   encoded once for everyone, and a connection whose unsent bytes pass a bound is ended
//   (sse-channel ignores backpressure, so a client that stops reading would grow memory);
// - its history and Last-Event-ID replay stay unused: Mastodon's events carry no ids;
// - its ping timer is unref'd, so that it alone never keeps a process alive.

import type { IncomingMessage, ServerResponse } from 'node:http';
import SseChannel from 'sse-channel';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import type { StreamConnection } from '../../core/mastodon/streaming/hub.ts';
import { option, type OptionSpec } from '../../core/domain/options.ts';

export const SSE_OPTIONS: OptionSpec = {
  heartbeatMs: option.integer(1, 3_600_000),
  maxBufferedBytes: option.integer(1024, 1024 * 1024 * 1024),
};

export interface SseOptions {
  /** Heartbeat interval (default 15 s, as Mastodon). */
  heartbeatMs?: number;
  /** Unsent bytes a connection may hold before it is ended (default 1 MiB). */
  maxBufferedBytes?: number;
}

export interface SseStreams {
  /** Answers a GET under /api/v1/streaming: the health check, a stream, or the hub's refusal. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: (name: string) => string | undefined): Promise<void>;
  /** Ends every open stream and the heartbeat. */
  close(): void;
}

export const SSE_HEALTH_PATH = '/api/v1/streaming/health';

/** Whether a path is one this serves (everything else belongs to the API). */
export function isStreamingPath(path: string): boolean {
  return path === '/api/v1/streaming' || path.startsWith('/api/v1/streaming/');
}

const HEARTBEAT = Buffer.from(':thump\n\n');
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'private, no-store',
  'access-control-allow-origin': '*',
};

function answer(res: ServerResponse, status: number, type: string, body: string): void {
  const bytes = Buffer.from(body);
  res.writeHead(status, {
    'content-type': type,
    'content-length': String(bytes.byteLength),
    'cache-control': 'private, no-store',
    'access-control-allow-origin': '*',
  });
  res.end(bytes);
}

export function createSseStreams(rookery: Rookery, options: SseOptions = {}): SseStreams {
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

  return {
    async serve(req, res, path, query) {
      if (path === SSE_HEALTH_PATH) return answer(res, 200, 'text/plain; charset=utf-8', 'OK');
      const authorization = req.headers.authorization;
      const opened = await rookery.streaming.openSse(
        path,
        { only_media: query('only_media'), tag: query('tag'), list: query('list') },
        { authorization, accessToken: query('access_token') },
        { deliver: (event) => send(res, event.sse()), kill: () => res.end() },
      );
      if ('error' in opened) return answer(res, opened.status, 'application/json; charset=utf-8', JSON.stringify({ error: opened.error }));
      // The client may have gone while the stream was being opened.
      if (res.destroyed) return void opened.close();
      open.add(opened);
      res.once('close', () => {
        open.delete(opened);
        void opened.close();
      });
      // sse-channel writes its own head: Mastodon's headers replace its choices.
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((status: number) => writeHead(status, SSE_HEADERS)) as typeof res.writeHead;
      channel.addClient(req, res);
    },
    close() {
      channel.close();
      for (const connection of open) void connection.close();
      open.clear();
    },
  };
}
