// Rookery for node:http, and for any framework that hands out (req, res[, next]) such as
// Express or Connect. It reads the body within the front's limit (Content-Length first, then
// counting while it streams), asks the front, and writes the answer. Requests that are not
// Rookery's go to next() when there is one, else get a JSON 404. Streams under
// /api/v1/streaming are served as server-sent events (sse.ts) unless `streaming: false`.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { frontTexts } from '../../core/http/front.ts';
import type { HttpFront, RawHead, RawResponse } from '../../core/http/types.ts';
import type { Rookery } from '../../core/rookery.ts';
import { createSseStreams, isStreamingPath, type SseOptions } from './sse.ts';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

export interface NodeHandlerOptions {
  /** Server-sent events on this server (default true); false where a streaming server
   * (rookery/uws) serves them. Options tune them. */
  streaming?: boolean | SseOptions;
}

const TOO_LARGE = Symbol('too large');
const ABORTED = Symbol('aborted');

/** `close` ends the connection afterwards, so that an unread body is not read on. */
function write(res: ServerResponse, raw: RawResponse, close = false): void {
  const body = typeof raw.body === 'string' ? Buffer.from(raw.body) : raw.body;
  const headers: Record<string, string | string[]> = { ...raw.headers, 'content-length': String(body.byteLength) };
  if (close) headers['connection'] = 'close';
  res.writeHead(raw.status, headers);
  res.end(body);
}

/** The body; TOO_LARGE as soon as it passes `limit` (reading stops there); ABORTED when the
 * client went away. */
function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | null | typeof TOO_LARGE | typeof ABORTED> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: Uint8Array | null | typeof TOO_LARGE | typeof ABORTED) => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.pause();
        settle(TOO_LARGE);
      }
    };
    const onEnd = () => settle(size === 0 ? null : Buffer.concat(chunks, size));
    const onAbort = () => settle(ABORTED);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

async function serve(http: HttpFront, head: RawHead, limit: number | 'ignore', req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Uint8Array | null = null;
  if (limit !== 'ignore') {
    const read = Number(req.headers['content-length']) > limit ? TOO_LARGE : await readBody(req, limit);
    if (read === ABORTED) return;
    if (read === TOO_LARGE) return write(res, http.refuse(head, 413, frontTexts.tooLarge(limit)), true);
    body = read;
  }
  write(res, (await http.handle({ ...head, body })) ?? http.refuse(head, 404, frontTexts.notFound));
}

export function createNodeHandler(rookery: Rookery, options: NodeHandlerOptions = {}): NodeHandler {
  const { http } = rookery;
  const streams = options.streaming === false ? null : createSseStreams(rookery, options.streaming === true ? {} : options.streaming);
  return (req, res, next) => {
    const head: RawHead = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '' };
    if (streams !== null && head.method === 'GET' && head.url.startsWith('/api/v1/streaming')) {
      const url = new URL(head.url, 'http://rookery.invalid');
      if (isStreamingPath(url.pathname)) {
        // The first of repeated parameters, as Mastodon reads them.
        streams.serve(req, res, url.pathname, (name) => url.searchParams.get(name) ?? undefined).catch((err: unknown) => {
          if (res.headersSent) res.destroy();
          else write(res, http.refuse(head, 500, 'An unexpected error occurred', err), true);
        });
        return;
      }
    }
    const limit = http.bodyLimit(head.method, head.url);
    if (limit === null) {
      if (next) next();
      else write(res, http.refuse(head, 404, frontTexts.notFound));
      return;
    }
    serve(http, head, limit, req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else write(res, http.refuse(head, 500, 'request failed', err), true);
    });
  };
}
