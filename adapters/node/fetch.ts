// The one way Rookery's requests leave for other servers (preview cards, ActivityPub documents
// and WebFinger, Web Push): node:http(s) under one address policy and with limits.
//
// Which addresses may be reached is core/domain/ip.ts's judgement, applied wherever an address
// becomes known: the literal in the URL; every DNS answer, inside the lookup the connection
// itself uses (so the address judged is the address dialled, and no second DNS answer can swap
// it); the address the socket did connect to; and all of that again on every redirect. A test
// setting relaxes the judgement (every address, or those a function accepts) and nothing else:
// the same code runs. Bounded: one deadline for the whole fetch (redirects and body included),
// a body read no further than maxBytes (refused as soon as it passes, or cut, as asked), a
// number of redirects. Every request says who sends it (the User-Agent).

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { nonPublicRange, parseIp } from '../../core/domain/ip.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

/** A request the policy or a limit stopped: a non-public address, a body too large, too many
 * redirects, no answer in time, a URL that is not http(s). */
export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

export interface FetcherOptions {
  /** Sent with every request: rookeryUserAgent(baseUrl) says who we are. */
  userAgent: string;
  /** For tests only: true reaches any address; a function, those addresses it accepts (the
   * address as dialled, e.g. '127.0.0.1'). Default: public addresses only. */
  allowPrivateAddresses?: boolean | ((address: string) => boolean);
  /** Defaults of each fetch: its whole time, in ms (10 s) … */
  timeoutMs?: number;
  /** … the most body bytes read (1 MiB) … */
  maxBytes?: number;
  /** … and the most redirects followed (5). */
  maxRedirects?: number;
}

export const FETCHER_OPTIONS: OptionSpec = {
  userAgent: option.required(option.nonEmptyString()),
  allowPrivateAddresses: option.either(option.boolean(), option.function()),
  timeoutMs: option.integer(1, 600_000),
  maxBytes: option.integer(1, 1024 * 1024 * 1024),
  maxRedirects: option.integer(0, 20),
};

/** One hop of a fetch, as `sign` sees it. */
export interface Hop {
  method: string;
  url: URL;
  headers: Record<string, string>;
}

export interface FetchRequest {
  /** GET (default), HEAD or POST; only GET and HEAD follow redirects. */
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  timeoutMs?: number;
  maxBytes?: number;
  /** A longer body is cut at maxBytes instead of refused. */
  truncate?: boolean;
  maxRedirects?: number;
  /** Only https: URLs, redirects included. */
  httpsOnly?: boolean;
  signal?: AbortSignal;
  /** The headers of each hop, given those it would send (to sign each hop's own URL). */
  sign?: (hop: Hop) => Promise<Record<string, string>>;
}

export interface FetchedResponse {
  /** The URL after redirects, without its fragment. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Fetcher {
  fetch(url: string | URL, request?: FetchRequest): Promise<FetchedResponse>;
  /** Resolves when the policy lets a request reach this URL (an http(s) URL whose literal, or
   * every address its name resolves to, may be reached); a FetchRefused otherwise. For requests
   * another library sends, which this fetcher cannot dial itself: the library's own lookup may
   * still get another DNS answer. */
  judge(url: string | URL): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function decoderFor(encoding: string | undefined): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/** The body, decoded, read no further than `limit` bytes (decoded bytes: no bomb passes). */
function readBody(response: IncomingMessage, limit: number, truncate: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const decoder = decoderFor(response.headers['content-encoding']);
    const declared = Number(response.headers['content-length']);
    const tooLarge = () => new FetchRefused(`refused: the body is larger than ${limit} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (error: Error | null) => {
      if (settled) return;
      settled = true;
      if (error === null) resolve(Buffer.concat(chunks, size));
      else reject(error);
      response.destroy();
      decoder?.destroy();
    };
    if (decoder === null && !truncate && Number.isFinite(declared) && declared > limit) return stop(tooLarge());
    const source: Readable = decoder === null ? response : response.pipe(decoder);
    source.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = limit - size;
      if (chunk.length > room) {
        if (!truncate) return stop(tooLarge());
        chunks.push(chunk.subarray(0, room));
        size = limit;
        return stop(null);
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    source.on('end', () => stop(null));
    source.on('error', (error: Error) => stop(error));
    response.on('error', (error: Error) => stop(error));
    const cutShort = () => stop(new Error('the connection closed before the body ended'));
    source.on('close', cutShort);
    response.on('close', () => {
      if (!response.complete) cutShort();
    });
  });
}

export function createFetcher(options: FetcherOptions): Fetcher {
  checkOptions('createFetcher', options, FETCHER_OPTIONS);
  const { userAgent, allowPrivateAddresses: allow = false } = options;
  const defaults = { timeoutMs: options.timeoutMs ?? 10_000, maxBytes: options.maxBytes ?? 1024 * 1024, maxRedirects: options.maxRedirects ?? 5 };

  /** Why this address may not be reached, or null when it may. */
  const refusal = (address: string): string | null => {
    const ip = parseIp(address);
    const range = ip === null ? 'not an IP address' : nonPublicRange(ip);
    if (range === null || allow === true || (typeof allow === 'function' && allow(address))) return null;
    return range;
  };

  // What every connection resolves its host name with: all answers judged, and the socket
  // connects only to those (Node asks for all of them when it tries several addresses).
  const judgedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const range = refusal(address);
        if (range !== null) return callback(new FetchRefused(`refused: ${hostname} resolves to ${address}, which is not a public address (${range})`), '', 0);
      }
      const first = addresses[0];
      if (first === undefined) return callback(new FetchRefused(`refused: ${hostname} does not resolve`), '', 0);
      if (lookupOptions.all === true) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };

  const checkUrl = (url: URL, httpsOnly: boolean) => {
    if (url.protocol !== 'https:' && (httpsOnly || url.protocol !== 'http:')) throw new FetchRefused(`refused: ${url.protocol} is not ${httpsOnly ? 'https' : 'http(s)'}`);
    if (url.username !== '' || url.password !== '') throw new FetchRefused('refused: a URL with credentials');
    // An address literal is dialled without a lookup: judged here (and again once connected).
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const range = parseIp(literal) === null ? null : refusal(literal);
    if (range !== null) throw new FetchRefused(`refused: ${literal} is not a public address (${range})`);
  };

  const send = (url: URL, method: string, headers: Record<string, string>, body: Uint8Array | string | undefined, signal: AbortSignal): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers, signal, agent: false, lookup: judgedLookup }, resolve);
      // The address actually connected to, whatever resolved it.
      req.on('socket', (socket: Socket) => {
        const judge = () => {
          const remote = socket.remoteAddress ?? '';
          const range = refusal(remote);
          if (range !== null) req.destroy(new FetchRefused(`refused: connected to ${remote}, which is not a public address (${range})`));
        };
        // Before the request's own listener writes to the socket.
        if (socket.connecting) socket.prependOnceListener('connect', judge);
        else judge();
      });
      req.on('error', reject);
      req.end(body);
    });

  const parse = (target: string | URL): URL => {
    try {
      return new URL(target);
    } catch {
      throw new FetchRefused('refused: not a URL');
    }
  };

  return {
    async judge(target) {
      const url = parse(target);
      checkUrl(url, false);
      if (parseIp(url.hostname.replace(/^\[(.*)\]$/, '$1')) !== null) return;
      await new Promise<void>((judged, refused) => judgedLookup(url.hostname, { all: true }, (error) => (error ? refused(error) : judged())));
    },

    async fetch(target, request = {}) {
      const method = request.method ?? 'GET';
      const timeoutMs = request.timeoutMs ?? defaults.timeoutMs;
      const maxBytes = request.maxBytes ?? defaults.maxBytes;
      const maxRedirects = request.maxRedirects ?? defaults.maxRedirects;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
      let url = parse(target);
      try {
        for (let redirects = 0; ; redirects += 1) {
          checkUrl(url, request.httpsOnly === true);
          const base = { 'user-agent': userAgent, 'accept-encoding': 'gzip, deflate, br', ...request.headers };
          const headers = request.sign ? await request.sign({ method, url, headers: base }) : base;
          signal.throwIfAborted();
          const response = await send(url, method, headers, request.body, signal);
          const status = response.statusCode ?? 0;
          const location = response.headers.location;
          if (REDIRECTS.has(status) && location !== undefined && (method === 'GET' || method === 'HEAD')) {
            response.destroy();
            if (redirects >= maxRedirects) throw new FetchRefused(`refused: more than ${maxRedirects} redirects`);
            try {
              url = new URL(location, url);
            } catch {
              throw new FetchRefused('refused: a redirect to something that is not a URL');
            }
            continue;
          }
          const body = method === 'HEAD' ? Buffer.alloc(0) : await readBody(response, maxBytes, request.truncate === true);
          // As fetch() reports it: a fragment is never sent, and not part of what answered.
          const answered = new URL(url);
          answered.hash = '';
          return { url: answered.href, status, headers: response.headers, body };
        }
      } catch (error) {
        if (timeout.aborted && !(error instanceof FetchRefused)) throw new FetchRefused(`refused: no complete answer within ${timeoutMs} ms`);
        throw error;
      }
    },
  };
}
