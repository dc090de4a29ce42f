// The settings of a node:http server that serves Rookery (the standalone instance's, or an
// embedder's own): time limits for slow or silent clients, and node's own refusals (a request
// it cannot parse, headers too large, a request too slow) in the front's error shape instead of
// a bare "400 Bad Request" without a body (client-errors.ts).

import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { checkOptions, option } from '../../core/domain/options.ts';
import { answerClientError, readClientError } from './client-errors.ts';

export interface NodeServerLimits {
  /** The request's headers must arrive within this (default 10 s). */
  headersTimeoutMs?: number;
  /** The whole request, body included, within this (default 30 s). */
  requestTimeoutMs?: number;
  /** An idle kept-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** A connection on which nothing moves either way is closed after this (default 60 s). */
  idleTimeoutMs?: number;
}

/** Applies the limits and answers node's own refusals in the front's error shape. */
export function limitNodeServer(server: Server, rookery: Rookery, limits: NodeServerLimits = {}): Server {
  checkOptions('limitNodeServer', limits, {
    headersTimeoutMs: option.integer(1, 3_600_000),
    requestTimeoutMs: option.integer(1, 3_600_000),
    keepAliveTimeoutMs: option.integer(1, 3_600_000),
    idleTimeoutMs: option.integer(1, 3_600_000),
  });
  server.headersTimeout = limits.headersTimeoutMs ?? 10_000;
  server.requestTimeout = limits.requestTimeoutMs ?? 30_000;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? 5_000;
  // No 'timeout' listener: node destroys a socket that stays idle this long.
  server.timeout = limits.idleTimeoutMs ?? 60_000;
  // A client that half-closes after its requests still gets their answers: node then ends the
  // connection after the last one, instead of at once, dropping every answer not yet written.
  // (node's own switch, undocumented but read by its http server since its first versions; the
  // handler writes a turn's answers at its end only where it is on.)
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const refused = readClientError(err, socket);
    if (refused === null) socket.destroy();
    else answerClientError(rookery.http, refused, socket);
  });
  return server;
}
