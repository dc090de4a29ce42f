// Requests node:http refuses itself (its parser rejects the bytes, the headers are too large,
// the request is too slow), answered by the front in the shape of the path they were for:
// RFC 6749's on the OAuth endpoints, Mastodon's elsewhere, instead of node's bare
// "400 Bad Request". Used by limitNodeServer (a server that is Rookery's) and by the hapi
// plugin (for Rookery's paths on the host's server).
//
// Which path: the request under way on the connection when its body is what broke, else the
// request line at the start of the bytes that failed. When the request line went by in an
// earlier packet and no request was made of it (headers that overflow after it), node keeps
// it out of reach: the url is then '' and the front answers in a shape both clients read.

import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HttpFront, RawHead } from '../../core/mastodon/http/types.ts';

const REFUSALS: Readonly<Record<string, [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};
/** Methods are case-sensitive in HTTP, but a lower-case one still says which path was meant. */
const METHOD = /^([A-Za-z]{1,20}) /;
/** The path of the request line (a query too long to read in full is left out). */
const REQUEST_PATH = /^[A-Za-z]{1,20} (\/[^ ?\r\n]*)[ ?]/;
const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

type ClientSocket = Duplex & { _httpMessage?: ServerResponse | null };

export interface ClientError {
  status: number;
  text: string;
  head: RawHead;
  /** A request was under way on the connection (its body is what broke). */
  underWay: boolean;
}

/** The refusal for a parser error, or null when the connection can only be dropped (the peer
 * reset it, or a response is already being written on it). */
export function readClientError(err: NodeJS.ErrnoException, socket: Duplex): ClientError | null {
  const current = (socket as ClientSocket)._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) return null;
  const [status, text] = REFUSALS[err.code ?? ''] ?? [400, 'Bad Request'];
  const remoteAddress = socket instanceof Socket ? (socket.remoteAddress ?? '') : '';
  const req = current?.req;
  if (req !== undefined) {
    return { status, text, head: { method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers, remoteAddress }, underWay: true };
  }
  const packet = (err as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket;
  const start = packet === undefined ? '' : packet.subarray(0, 16_384).toString('latin1');
  const method = METHOD.exec(start)?.[1] ?? 'GET';
  const url = REQUEST_PATH.exec(start)?.[1] ?? '';
  return { status, text, head: { method, url, headers: {}, remoteAddress }, underWay: false };
}

/** Writes the front's answer for `refused` straight to the connection and closes it. */
export function answerClientError(http: HttpFront, refused: ClientError, socket: Duplex): void {
  const { status, text, head } = refused;
  const raw = http.refuse(head, status, text);
  // A HEAD request gets its answer without a body (its client reads none).
  const body = head.method.toUpperCase() === 'HEAD' ? Buffer.alloc(0) : Buffer.from(typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body));
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? text}`];
  for (const [name, value] of Object.entries(raw.headers)) for (const item of typeof value === 'string' ? [value] : value) lines.push(`${name}: ${item}`);
  lines.push(`content-length: ${body.byteLength}`, 'connection: close');
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}
