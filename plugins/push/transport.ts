// How an encrypted push message reaches a push service: the PushTransport port and its
// implementation on rookery/node's fetcher, which every outgoing request of the instance goes
// through. The endpoints come from clients, so by default only https endpoints on public
// addresses are reached (the literal, every DNS answer, the address connected to). Bounded: a
// time limit, no redirect followed, and the answer's body not read beyond a few kilobytes.

import { ROOKERY_VERSION } from 'rookery';
import { createFetcher, FetchRefused } from 'rookery/node';

export { FetchRefused as PushRefused, isPublicAddress } from 'rookery/node';

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
  /** What the requests say they are (the plugin passes rookeryUserAgent(baseUrl)). */
  userAgent?: string;
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
  const allowLocal = options.allowLocalEndpoints ?? false;
  const fetcher = createFetcher({
    userAgent: options.userAgent ?? `Rookery/${ROOKERY_VERSION}`,
    allowPrivateAddresses: allowLocal,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: 16_384,
    maxRedirects: 0,
  });
  return {
    async send(push) {
      if (!endpointAllowed(push.endpoint, allowLocal)) throw new FetchRefused('refused: the endpoint is not an https URL');
      const answer = await fetcher.fetch(push.endpoint, {
        method: 'POST',
        headers: { ...push.headers, 'content-length': String(push.body.byteLength) },
        body: push.body,
        httpsOnly: !allowLocal,
        truncate: true,
      });
      return answer.status;
    },
  };
}
