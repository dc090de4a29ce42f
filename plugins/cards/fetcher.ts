// The PageFetcher port and its node:http(s) implementation. Every hop (redirects included) is
// resolved first and refused when any address it resolves to is private, loopback, link-local
// or otherwise not public, and the connection goes to the address that was checked (so a second
// DNS answer cannot swap it). Bounded: total time, body size, number of redirects.

import { checkOptions, option, type OptionSpec } from 'rookery/plugin-kit';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export interface PageFetcher {
  fetch(url: string, accept: string): Promise<FetchedPage>;
}

export interface FetcherOptions {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** true: any address; a function: those it accepts. Default: public addresses only. For tests. */
  allowPrivateAddresses?: boolean | ((address: string) => boolean);
}

export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

function v4Private(address: string): boolean {
  const [a = 0, b = 0, c = 0] = address.split('.').map(Number);
  return (
    a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && c === 0) || (a === 192 && b === 0 && c === 2) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113) || a >= 224
  );
}

/** Not a public unicast address: private, loopback, link-local, unique-local, multicast, reserved. */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return v4Private(address);
  if (kind !== 6) return true;
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped?.[1]) return v4Private(mapped[1]);
  if (lower === '::' || lower === '::1') return true;
  const first = parseInt(lower.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00 || lower.startsWith('64:ff9b:') || lower.startsWith('2001:db8:');
}

export const FETCHER_OPTIONS: OptionSpec = {
  timeoutMs: option.integer(1, 600_000),
  maxBytes: option.integer(1024, 100 * 1024 * 1024),
  maxRedirects: option.integer(0, 20),
  allowPrivateAddresses: option.either(option.boolean(), option.function()),
};

export function nodeFetcher(options: FetcherOptions = {}): PageFetcher {
  checkOptions('nodeFetcher', options, FETCHER_OPTIONS);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 1_048_576;
  const maxRedirects = options.maxRedirects ?? 3;
  const allow = options.allowPrivateAddresses;
  const allowed = (address: string) => !isPrivateAddress(address) || allow === true || (typeof allow === 'function' && allow(address));

  const resolve = (hostname: string): Promise<LookupAddress> =>
    new Promise((done, fail) => {
      const bare = hostname.replace(/^\[|\]$/g, '');
      if (isIP(bare)) {
        if (!allowed(bare)) return fail(new FetchRefused(`refused: ${bare} is not a public address`));
        return done({ address: bare, family: isIP(bare) });
      }
      dnsLookup(bare, { all: true }, (err, addresses) => {
        if (err) return fail(err);
        const refused = addresses.find((a) => !allowed(a.address));
        if (refused) return fail(new FetchRefused(`refused: ${bare} resolves to ${refused.address}, which is not a public address`));
        const first = addresses[0];
        return first ? done(first) : fail(new FetchRefused(`refused: ${bare} does not resolve`));
      });
    });

  const hop = (url: URL, accept: string, deadline: number): Promise<{ response: IncomingMessage; body: string | null }> =>
    resolve(url.hostname).then(
      (address) =>
        new Promise((done, fail) => {
          const remaining = deadline - Date.now();
          if (remaining <= 0) return fail(new FetchRefused('timed out'));
          const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
          const req = send(
            url,
            {
              method: 'GET',
              headers: { accept, 'user-agent': 'Rookery (preview cards)', 'accept-encoding': 'identity' },
              timeout: remaining,
              // Connect to the address that was checked, whatever DNS says now.
              lookup: (_host, opts, callback) => {
                if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [address]);
                else callback(null, address.address, address.family);
              },
            },
            (response) => {
              const status = response.statusCode ?? 0;
              if (status >= 300 && status < 400) {
                response.resume();
                return done({ response, body: null });
              }
              const chunks: Buffer[] = [];
              let size = 0;
              response.on('data', (chunk: Buffer) => {
                size += chunk.length;
                if (size > maxBytes) {
                  req.destroy(new FetchRefused(`refused: the body is larger than ${maxBytes} bytes`));
                  return;
                }
                chunks.push(chunk);
              });
              response.on('end', () => done({ response, body: Buffer.concat(chunks).toString('utf8') }));
              response.on('error', fail);
            },
          );
          const timer = setTimeout(() => req.destroy(new FetchRefused('timed out')), remaining);
          req.on('close', () => clearTimeout(timer));
          req.on('timeout', () => req.destroy(new FetchRefused('timed out')));
          req.on('error', fail);
          req.end();
        }),
    );

  return {
    async fetch(raw, accept) {
      const deadline = Date.now() + timeoutMs;
      let url = new URL(raw);
      for (let redirects = 0; ; redirects += 1) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefused(`refused: ${url.protocol} is not http(s)`);
        const { response, body } = await hop(url, accept, deadline);
        const status = response.statusCode ?? 0;
        if (body === null) {
          const location = response.headers.location;
          if (location === undefined) throw new FetchRefused('a redirect without a location');
          if (redirects >= maxRedirects) throw new FetchRefused(`refused: more than ${maxRedirects} redirects`);
          url = new URL(location, url);
          continue;
        }
        return { url: url.toString(), status, contentType: String(response.headers['content-type'] ?? ''), body };
      }
    },
  };
}
