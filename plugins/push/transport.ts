// How an encrypted push message reaches a push service: the PushTransport port and its
// node:http(s) implementation. The endpoints come from clients, so by default only https
// endpoints on public addresses are reached: the address a host name resolves to is checked
// and the connection goes to that address. Bounded: a timeout, and the answer's body is not
// read beyond a few kilobytes.

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface PushRequest {
  endpoint: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface PushTransport {
  /** Posts the message; resolves with the push service's status code. */
  send(request: PushRequest): Promise<number>;
}

export interface PushTransportOptions {
  timeoutMs?: number;
  /** Allow http:// endpoints and private or loopback addresses: for tests with a local push
   * service only. */
  allowLocalEndpoints?: boolean;
}

export class PushRefused extends Error {
  override name = 'PushRefused';
}

/** Addresses that are not public unicast ones: loopback, private, link-local, unique-local,
 * carrier-grade NAT, documentation, multicast and reserved ranges. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 127], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32]] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Is this endpoint one the transport may reach at all (before any lookup)? */
export function endpointAllowed(endpoint: string, allowLocal: boolean): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.hostname === '') return false;
  return url.protocol === 'https:' || (allowLocal && url.protocol === 'http:');
}

export function nodePushTransport(options: PushTransportOptions = {}): PushTransport {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const allowLocal = options.allowLocalEndpoints ?? false;

  // The connection goes to the address checked here, so a second DNS answer cannot swap it.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = allowLocal ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new PushRefused(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new PushRefused(`${hostname} does not resolve`), '', 0);
      return callback(null, first.address, first.family);
    });
  };

  return {
    send(push) {
      return new Promise((resolve, reject) => {
        if (!endpointAllowed(push.endpoint, allowLocal)) return reject(new PushRefused('the endpoint is not an https URL'));
        const url = new URL(push.endpoint);
        const literal = url.hostname.replace(/^\[|\]$/g, '');
        if (isIP(literal) && !allowLocal && !isPublicAddress(literal)) return reject(new PushRefused(`${literal} is not a public address`));
        const requestOptions: RequestOptions = {
          method: 'POST',
          headers: { ...push.headers, 'content-length': String(push.body.byteLength) },
          lookup: guardedLookup,
          timeout: timeoutMs,
        };
        const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, requestOptions, (res) => {
          let read = 0;
          res.on('data', (chunk: Uint8Array) => {
            read += chunk.byteLength;
            if (read > 16_384) res.destroy();
          });
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('close', () => resolve(res.statusCode ?? 0));
          res.on('error', () => resolve(res.statusCode ?? 0));
        });
        req.on('timeout', () => req.destroy(new PushRefused(`no answer within ${timeoutMs} ms`)));
        req.on('error', reject);
        req.end(push.body);
      });
    },
  };
}
