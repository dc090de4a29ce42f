// The streaming server: uWebSockets.js on its own port, serving Mastodon's streaming API
// (docs/behaviour.md, "Streaming") from a Rookery's stream hub. SSE on every /api/v1/streaming/<path>,
// WebSocket upgrades on any path, /api/v1/streaming/health, CORS for browsers. It holds no
// rule of its own: rookery.streaming decides every answer and encodes every event once.

import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket } from 'uWebSockets.js';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { queryOf } from './http.ts';
import { loadUws } from './load.ts';
import { SseStream } from './sse.ts';
import { everyInTurn, Rota, turnsFor } from './rota.ts';
import { noneUnsent, websocketBehavior, type WsClient, type WsContext } from './websocket.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

export interface StreamingServerOptions {
  /** 0 lets the system pick a free port (see StreamingServer.port). */
  port: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** SSE heartbeat (`:thump`) interval in ms (default 15 000, as Mastodon). */
  heartbeatMs?: number;
  /** WebSocket ping interval in ms (default 30 000, as Mastodon); a client that has not answered
   * the previous ping when the next is due is terminated. */
  pingMs?: number;
  /** Bytes one connection may have waiting for a client that reads too slowly before it is
   * disconnected (default 1 MiB): uWS's maxBackpressure for WebSockets, the queue for SSE. */
  maxBackpressure?: number;
  /** Largest client message, in bytes (default 16 KiB); a bigger one closes the socket. */
  maxPayloadLength?: number;
  /** Subscriptions one WebSocket may hold (default 256); asking for more closes it with 1008. */
  maxSubscriptions?: number;
  /** Default: the Rookery's logger. */
  logger?: Logger;
}

export interface StreamingServer {
  /** The port it listens on (the chosen one when 0 was asked for). */
  readonly port: number;
  readonly host: string;
  /** Open streams by transport, and the bytes SSE streams hold for clients that read slowly. */
  stats(): { sse: number; websocket: number; sseQueuedBytes: number };
  /** Stops listening, ends every stream (SSE: the response ends; WebSocket: 1001) and waits
   * until the hub has let go of them. */
  close(): Promise<void>;
}

const DEFAULTS = { host: '127.0.0.1', heartbeatMs: 15_000, pingMs: 30_000, maxBackpressure: 1024 * 1024, maxPayloadLength: 16 * 1024, maxSubscriptions: 256 };

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT (uWS.js's ListenOptions, a type only in its typings). */
const LISTEN_EXCLUSIVE_PORT = 1;

interface ListensWithOptions {
  listen(host: string, port: number, options: number, callback: (listenSocket: us_listen_socket | false) => void): unknown;
}

const HEALTH_PATH = '/api/v1/streaming/health';
const NOT_FOUND = JSON.stringify({ error: 'Not Found' });

function isUpgrade(req: HttpRequest): boolean {
  return req.getHeader('upgrade').toLowerCase() === 'websocket';
}

/** Starts the streaming server. Throws, with what the machine needs, when uWebSockets.js
 * cannot load, and when the port cannot be listened on: there is no fallback transport. */
const SERVER_OPTIONS: OptionSpec = {
  port: option.required(option.integer(0, 65_535)),
  host: option.nonEmptyString('an address'),
  heartbeatMs: option.integer(1, 3_600_000),
  pingMs: option.integer(1, 3_600_000),
  maxBackpressure: option.integer(1024, 1024 * 1024 * 1024),
  maxPayloadLength: option.integer(16, 16 * 1024 * 1024),
  maxSubscriptions: option.integer(1, 100_000),
  logger: option.implementing('a Logger', ['debug', 'info', 'warn', 'error']),
};

export async function startStreamingServer(rookery: Rookery, options: StreamingServerOptions): Promise<StreamingServer> {
  checkOptions('startStreamingServer', options, SERVER_OPTIONS);
  const uws = loadUws();
  const host = options.host ?? DEFAULTS.host;
  const logger = options.logger ?? rookery.core.logger;
  const closing = new Set<Promise<void>>();
  const heartbeatMs = options.heartbeatMs ?? DEFAULTS.heartbeatMs;
  const pingMs = options.pingMs ?? DEFAULTS.pingMs;
  const sse = new Rota<SseStream>(turnsFor(heartbeatMs));
  const context: WsContext = {
    hub: rookery.streaming,
    logger,
    maxBackpressure: options.maxBackpressure ?? DEFAULTS.maxBackpressure,
    maxPayloadLength: options.maxPayloadLength ?? DEFAULTS.maxPayloadLength,
    maxSubscriptions: options.maxSubscriptions ?? DEFAULTS.maxSubscriptions,
    compression: uws.DISABLED,
    sse,
    ws: new Rota<WsClient>(turnsFor(pingMs)),
    unsent: noneUnsent(),
    track(promise) {
      const tracked = promise.catch((err: unknown) => logger.error({ err }, 'closing a stream failed')).finally(() => closing.delete(tracked));
      closing.add(tracked);
    },
  };

  const app: TemplatedApp = uws.App();

  app.get(HEALTH_PATH, (res) => {
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'text/plain').writeHeader('Cache-Control', 'private, no-store').writeHeader('Access-Control-Allow-Origin', '*').end('OK');
    });
  });

  const serveSse = (res: HttpResponse, req: HttpRequest): void => {
    // A WebSocket upgrade on a streaming path belongs to the ws route (any path upgrades).
    if (isUpgrade(req)) {
      req.setYield(true);
      return;
    }
    const path = req.getUrl();
    const query = queryOf(req.getQuery());
    const authorization = req.getHeader('authorization');
    const stream = new SseStream(res, context);
    res.onAborted(() => stream.aborted());
    void stream.open(path, query, { authorization: authorization === '' ? undefined : authorization, accessToken: query['access_token'] });
  };
  app.get('/api/v1/streaming', serveSse);
  app.get('/api/v1/streaming/*', serveSse);

  // Browsers preflight an EventSource polyfill that sends Authorization.
  app.options('/*', (res) => {
    res.cork(() => {
      res
        .writeStatus('204 No Content')
        .writeHeader('Access-Control-Allow-Origin', '*')
        .writeHeader('Access-Control-Allow-Headers', 'Authorization, Accept, Cache-Control, Last-Event-ID')
        .writeHeader('Access-Control-Allow-Methods', 'GET, OPTIONS')
        .writeHeader('Access-Control-Max-Age', '86400')
        .endWithoutBody();
    });
  });

  app.ws('/*', websocketBehavior(context));

  app.any('/*', (res, req) => {
    if (isUpgrade(req)) {
      req.setYield(true);
      return;
    }
    res.cork(() => {
      res.writeStatus('404 Not Found').writeHeader('Content-Type', 'application/json; charset=utf-8').writeHeader('Access-Control-Allow-Origin', '*').end(NOT_FOUND);
    });
  });

  // Exclusively: on a port it is given, uSockets otherwise sets SO_REUSEPORT, and a second
  // server there (another instance's, a test run's) would not fail but get a share of the
  // connections. uWS.js takes a host with the options, though its types list no such overload.
  const listenSocket = await new Promise<us_listen_socket | false>((resolve) => {
    (app as unknown as ListensWithOptions).listen(host, options.port, LISTEN_EXCLUSIVE_PORT, resolve);
  });
  if (listenSocket === false) {
    app.close();
    throw new Error(`The streaming server could not listen on ${host}:${options.port} (is the port in use?)`);
  }
  // us_socket_local_port takes a listen socket too (its documentation says so; its type does not).
  const port = uws.us_socket_local_port(listenSocket as unknown as us_socket);

  const heartbeat = everyInTurn(sse, heartbeatMs, (stream) => stream.heartbeat());
  const ping = everyInTurn(context.ws, pingMs, (client) => client.pingOrTerminate());

  let closed: Promise<void> | null = null;
  return {
    port,
    host,
    stats() {
      let sseQueuedBytes = 0;
      for (const stream of sse) sseQueuedBytes += stream.queued;
      return { sse: sse.size, websocket: context.ws.size, sseQueuedBytes };
    },
    close() {
      closed ??= (async () => {
        clearInterval(heartbeat);
        clearInterval(ping);
        uws.us_listen_socket_close(listenSocket);
        for (const stream of [...sse]) stream.end();
        for (const client of [...context.ws]) client.end(1001);
        // Whatever is still open (idle keep-alive sockets, closing handshakes) is cut.
        app.close();
        while (closing.size > 0) await Promise.all([...closing]);
      })();
      return closed;
    },
  };
}
