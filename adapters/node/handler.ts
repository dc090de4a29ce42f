// Rookery for node:http, and for any framework that hands out (req, res[, next]) such as
// Express or Connect. It reads the body as the front asks (body.ts: within the front's limit,
// multipart files streamed to temporary files), asks the front, and writes the answer. Requests that are not
// Rookery's go to next() when there is one, else get a JSON 404. Streams under
// /api/v1/streaming are served as server-sent events (sse.ts) unless `streaming: false`.
//
// What a connection may hold is bounded: a client that does not read its responses (or
// pipelines requests faster than it reads) has its connection closed once it owes more than
// maxBufferedBytes of earlier responses, and a response the client has not taken within
// writeTimeoutMs closes its connection too. Without that, every response such a client asks
// for waits in this process's memory for ever.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { frontTexts } from '../../core/mastodon/http/front.ts';
import type { HttpFront, RawHead, RawResponse } from '../../core/mastodon/http/types.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import { answer, defaultUploadDirectory } from './body.ts';
import { createSseStreams, isStreamingPath, SSE_OPTIONS, type SseOptions } from './sse.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

export interface NodeHandlerOptions {
  /** Server-sent events on this server (default true); false where a streaming server
   * (rookery/uws) serves them. Options tune them. */
  streaming?: boolean | SseOptions;
  /** Bytes of earlier responses a connection may still owe its client when a new response is
   * written (default 1 MiB): past that the client is not reading, and the connection is closed
   * instead of queueing more. One response of any size is always written. */
  maxBufferedBytes?: number;
  /** How long a written response may wait for the client to take it (default 30 s) before its
   * connection is closed. */
  writeTimeoutMs?: number;
  /** Where the files of multipart bodies wait while their request lasts (default: the
   * system's temporary directory); each is removed when its request ends. */
  uploadDirectory?: string;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

interface Limits {
  maxBufferedBytes: number;
  writeTimeoutMs: number;
  uploadDirectory: string;
  logger: Logger;
}

/** Bytes each connection owes its client: written by this handler, not yet handed to the OS. */
const owed = new WeakMap<Socket, number>();
/** Per connection, the request being answered: pipelined requests are answered one after the
 * other, so a client that sends many at once and reads none has at most one made for it. */
const turns = new WeakMap<Socket, Promise<void>>();

/** Settles at the end of this turn of the event loop, once for every request answered in it. */
let turnEnd: Promise<void> | null = null;
/** Bytes of answers waiting for the end of this turn. */
let waitingBytes = 0;
/** What answers may wait for the end of a turn, in all: past it, an answer is written at once,
 * so that many large answers made in one turn are never all held at the same time. */
const MAX_WAITING_BYTES = 1024 * 1024;

/** Whether node keeps this connection open for the answers still to come when its client
 * half-closes (limitNodeServer turns that on). Elsewhere node ends it at the client's FIN and an
 * answer not yet written is lost, so none waits for the turn's end. */
function answersOutliveHalfClose(socket: Socket): boolean {
  return (socket as Socket & { server?: { httpAllowHalfOpen?: unknown } }).server?.httpAllowHalfOpen === true;
}

/** null: write now. */
function endOfTurn(socket: Socket, bytes: number): Promise<void> | null {
  if (waitingBytes + bytes > MAX_WAITING_BYTES || !answersOutliveHalfClose(socket)) return null;
  waitingBytes += bytes;
  turnEnd ??= new Promise((resolve) =>
    setImmediate(() => {
      turnEnd = null;
      waitingBytes = 0;
      resolve();
    }),
  );
  return turnEnd;
}

/** `close` ends the connection afterwards, so that an unread body is not read on. */
function write(req: IncomingMessage, res: ServerResponse, raw: RawResponse, limits: Limits, close = false): void {
  const body = typeof raw.body === 'string' ? Buffer.from(raw.body) : raw.body;
  const socket = req.socket;
  const owing = owed.get(socket) ?? 0;
  if (owing > 0 && owing + body.byteLength > limits.maxBufferedBytes) {
    // The client has not taken what it asked for before: it gets no more.
    limits.logger.info({ remoteAddress: socket.remoteAddress, owedBytes: owing }, 'connection closed: the client does not read its responses');
    socket.destroy();
    return;
  }
  const headers: Record<string, string | string[]> = { ...raw.headers, 'content-length': String(body.byteLength) };
  if (close) headers['connection'] = 'close';
  res.writeHead(raw.status, headers);
  res.end(body);
  // Most responses are handed to the OS as they are written: then nothing is owed, and there is
  // nothing to time. (A response waiting behind a pipelined one holds its bytes itself: counted.)
  if (res.writableLength === 0) return;
  owed.set(socket, owing + body.byteLength);
  let settled = false;
  const timer = setTimeout(() => {
    limits.logger.info({ remoteAddress: socket.remoteAddress, owedBytes: owed.get(socket) ?? 0 }, 'connection closed: a response was not taken in time');
    socket.destroy();
  }, limits.writeTimeoutMs);
  timer.unref();
  const settle = () => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    owed.set(socket, Math.max(0, (owed.get(socket) ?? 0) - body.byteLength));
  };
  res.once('finish', settle).once('close', settle);
}

async function serve(http: HttpFront, head: RawHead, limit: number | 'ignore', req: IncomingMessage, res: ServerResponse, limits: Limits): Promise<void> {
  // The client went away, or still owes more than it may: nothing is made for it.
  if (req.socket.destroyed) return;
  const owing = owed.get(req.socket) ?? 0;
  if (owing > limits.maxBufferedBytes) {
    limits.logger.info({ remoteAddress: req.socket.remoteAddress, owedBytes: owing }, 'connection closed: the client does not read its responses');
    req.socket.destroy();
    return;
  }
  const answered = await answer(http, head, limit, req, limits.uploadDirectory);
  // The client went away while the answer was made: nothing to write it to.
  if (answered === null || req.socket.destroyed) return;
  // The answers made in one turn are written together at its end: under load a turn answers
  // many requests, and writing them in one burst costs the process (and, on loopback, the
  // clients it wakes) less than a write and a wake-up between each. Measured with the bench's
  // harness: about a quarter less CPU per request. An idle server waits one turn, microseconds.
  // Large answers beyond a bound are written at once (MAX_WAITING_BYTES), and so are all answers
  // on a server that ends a half-closed connection at once (answersOutliveHalfClose).
  const body = answered.response.body;
  const waiting = endOfTurn(req.socket, typeof body === 'string' ? body.length : body.byteLength);
  if (waiting !== null) {
    await waiting;
    if (req.socket.destroyed) return;
  }
  write(req, res, answered.response, limits, answered.unread);
}

const HANDLER_OPTIONS: OptionSpec = {
  streaming: option.either(option.boolean(), option.object('createNodeHandler', SSE_OPTIONS)),
  maxBufferedBytes: option.integer(1024, 1024 * 1024 * 1024),
  writeTimeoutMs: option.integer(1, 3_600_000),
  uploadDirectory: option.nonEmptyString('a directory path'),
};

export function createNodeHandler(rookery: Rookery, options: NodeHandlerOptions = {}): NodeHandler {
  checkOptions('createNodeHandler', options, HANDLER_OPTIONS);
  const { http } = rookery;
  const limits: Limits = {
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    writeTimeoutMs: options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
    uploadDirectory: options.uploadDirectory ?? defaultUploadDirectory(),
    logger: rookery.core.logger,
  };
  const streams = options.streaming === false ? null : createSseStreams(rookery, options.streaming === true ? {} : options.streaming);
  return (req, res, next) => {
    const head: RawHead = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '' };
    if (streams !== null && head.method === 'GET' && head.url.startsWith('/api/v1/streaming')) {
      const url = new URL(head.url, 'http://rookery.invalid');
      if (isStreamingPath(url.pathname)) {
        // The first of repeated parameters, as Mastodon reads them.
        streams.serve(req, res, url.pathname, (name) => url.searchParams.get(name) ?? undefined).catch((err: unknown) => {
          if (res.headersSent) res.destroy();
          else write(req, res, http.refuse(head, 500, 'An unexpected error occurred', err), limits, true);
        });
        return;
      }
    }
    const limit = http.bodyLimit(head.method, head.url);
    if (limit === null) {
      if (next) next();
      else write(req, res, http.refuse(head, 404, frontTexts.notFound), limits);
      return;
    }
    const socket = req.socket;
    const previous = turns.get(socket);
    const run = () =>
      serve(http, head, limit, req, res, limits).catch((err: unknown) => {
        if (res.headersSent) res.destroy();
        else write(req, res, http.refuse(head, 500, 'request failed', err), limits, true);
      });
    const turn = previous === undefined ? run() : previous.then(run);
    turns.set(socket, turn);
    void turn.finally(() => {
      if (turns.get(socket) === turn) turns.delete(socket);
    });
  };
}
