// The settings of a node:http server that serves Rookery (the standalone instance's, or an
// embedder's own): time limits for slow or silent clients, and node's own refusals (a request
// it cannot parse, headers too large, a request too slow) in Mastodon's error shape instead of
// a bare "400 Bad Request" without a body.

import type { Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { checkOptions, option } from '../../core/domain/options.ts';

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

const REFUSALS: Readonly<Record<string, [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};
const METHOD = /^([A-Z]{1,20}) /;
/** The path of the request line (a query too long to read in full is left out). */
const REQUEST_PATH = /^[A-Z]{1,20} (\/[^ ?\r\n]*)[ ?]/;
const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** Applies the limits and answers node's own refusals with {"error": …}. */
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
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection cannot be followed by another.
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
      socket.destroy();
      return;
    }
    const [status, text] = REFUSALS[err.code ?? ''] ?? [400, 'Bad Request'];
    // The request line, when the bytes node could not parse begin with one: the front then
    // answers as that path does (RFC 6749 errors on the token endpoint, CORS under /api).
    const packet = (err as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket;
    const start = packet === undefined ? '' : packet.subarray(0, 16_384).toString('latin1');
    const method = METHOD.exec(start)?.[1] ?? 'GET';
    const url = REQUEST_PATH.exec(start)?.[1] ?? '';
    const raw = rookery.http.refuse({ method, url, headers: {}, remoteAddress: socket instanceof Socket ? (socket.remoteAddress ?? '') : '' }, status, text);
    // A HEAD request gets its answer without a body (its client reads none).
    const body = method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body));
    const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? text}`];
    for (const [name, value] of Object.entries(raw.headers)) for (const item of typeof value === 'string' ? [value] : value) lines.push(`${name}: ${item}`);
    lines.push(`content-length: ${body.byteLength}`, 'connection: close');
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
  });
  return server;
}
