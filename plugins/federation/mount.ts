// Federation requests served as core endpoints, so that every transport (hapi, the node
// handler, any other) gets them with the core's routing and limits: the ApiRequest becomes a
// Web Request for federation.fetch, and its Response an ApiResponse. A browser asking for an
// actor or a status (Accept: text/html) is sent to the account's or the status's page; every
// refusal is Mastodon's {"error": …} with Fedify's status.

import { type ApiRequest, type ApiResponse, type PluginHost, type Endpoint, type HttpMethod, rateLimitTexts } from 'rookery/plugin-kit';
import type { Federation } from '@fedify/fedify';
import { refusedFetch } from './authorized-fetch.ts';

/** An inbox body (an activity) is small; more is refused with a 413. */
export const INBOX_MAX_BYTES = 1024 * 1024;

/** Inbox requests read, verified and queued at once in one process (see MountOptions). */
export const DEFAULT_INBOX_CONCURRENCY = 64;

/** When the inboxes are full, a sender is asked to come back this much later (seconds). */
const INBOX_RETRY_AFTER = '30';

const DROPPED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export const mountTexts = {
  notFound: 'Record not found',
  blocked: 'This domain is blocked by the instance',
  invalid: 'Invalid activity',
};

export interface MountOptions {
  /** Whether activities signed from this domain are refused (403). */
  isBlocked?(domain: string): Promise<boolean>;
  /** At most this many inbox POSTs in progress at once; more are answered 429 with
   * Retry-After (senders retry them later, as they retry any delivery). This bounds the work a
   * flood makes: key fetches from addresses its senders chose, signature checks, JSON-LD
   * processing. (Its bodies are read, each within INBOX_MAX_BYTES, before this: the
   * transport's connection limits bound how many.) */
  inboxConcurrency?: number;
  /** Told of every inbox request Fedify accepted (signatures.ts learns from it). */
  accepted?(request: ApiRequest): Promise<void>;
  /** Asked about an inbox request Fedify refused with a 401 (its signer is not its actor): a
   * relay's forward is taken (relays.ts); null leaves the refusal. */
  forwarded?(request: Request, body: unknown): Promise<{ status: number } | null>;
}

function toWebRequest(host: PluginHost, request: ApiRequest): Request {
  const url = new URL(`${request.path}${request.search ? `?${request.search}` : ''}`, host.config.baseUrl);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) {
      try {
        headers.set(name, value);
      } catch {
        // A header value fetch will not carry: left out.
      }
    }
  }
  const init: RequestInit = { method: request.method, headers };
  if (request.rawBody !== undefined) init.body = request.rawBody as unknown as NonNullable<RequestInit['body']>;
  return new Request(url, init);
}

function errorOf(status: number, text: string): ApiResponse {
  return { status, body: { error: text }, type: 'json' };
}

async function toApiResponse(response: Response): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED.has(name)) headers[name] = value;
  });
  const type = headers['content-type'] ?? '';
  if (response.status >= 400 && !/json/i.test(type)) {
    const text = (await response.text()).trim().slice(0, 200);
    return errorOf(response.status, response.status === 404 ? mountTexts.notFound : text || response.statusText || 'Error');
  }
  return { status: response.status, body: new Uint8Array(await response.arrayBuffer()), type: 'binary', headers };
}

function bodyOf(request: ApiRequest): unknown {
  try {
    return JSON.parse(Buffer.from(request.rawBody ?? new Uint8Array()).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** The host of the actor that claims to send an activity: the signature's key id, else the body's actor. */
function claimedDomains(request: ApiRequest): string[] {
  const hosts: string[] = [];
  const signature = `${request.headers['signature'] ?? ''} ${request.headers['signature-input'] ?? ''}`;
  for (const match of signature.matchAll(/keyid="([^"]+)"/gi)) {
    try {
      hosts.push(new URL(match[1] ?? '').host);
    } catch {
      // not a URL: the signature check refuses it
    }
  }
  try {
    const body = JSON.parse(Buffer.from(request.rawBody ?? new Uint8Array()).toString('utf8')) as { actor?: unknown };
    const actor = typeof body.actor === 'string' ? body.actor : typeof (body.actor as { id?: unknown })?.id === 'string' ? (body.actor as { id: string }).id : null;
    if (actor !== null) hosts.push(new URL(actor).host);
  } catch {
    // malformed: Fedify answers 400
  }
  return hosts.map((host) => host.toLowerCase());
}

export function federationEndpoints(host: PluginHost, federation: Federation<PluginHost>, options: MountOptions = {}): Endpoint[] {
  const inboxConcurrency = options.inboxConcurrency ?? DEFAULT_INBOX_CONCURRENCY;
  let inboxesInProgress = 0;

  async function serve(request: ApiRequest, fallback: ((request: ApiRequest) => Promise<ApiResponse>) | null): Promise<ApiResponse> {
    if (request.method !== 'POST') return forward(request, fallback);
    if (inboxesInProgress >= inboxConcurrency) return { ...errorOf(429, rateLimitTexts.tooMany), headers: { 'retry-after': INBOX_RETRY_AFTER } };
    inboxesInProgress += 1;
    try {
      return await forward(request, fallback);
    } finally {
      inboxesInProgress -= 1;
    }
  }

  async function forward(request: ApiRequest, fallback: ((request: ApiRequest) => Promise<ApiResponse>) | null): Promise<ApiResponse> {
    if (request.method === 'POST' && options.isBlocked) {
      for (const domain of claimedDomains(request)) if (await options.isBlocked(domain)) return errorOf(403, mountTexts.blocked);
    }
    let fallThrough = false;
    let response: Response;
    try {
      response = await federation.fetch(toWebRequest(host, request), {
        contextData: host,
        onNotFound: () => new Response(mountTexts.notFound, { status: 404 }),
        onNotAcceptable: () => {
          fallThrough = fallback !== null;
          return new Response('Not acceptable', { status: 406, headers: { vary: 'Accept' } });
        },
        onUnauthorized: refusedFetch,
      });
    } catch (err) {
      // What a sender's activity makes Fedify throw (a JSON-LD context it cannot use, say) is
      // the sender's fault: a 400, not a server error.
      if (request.method !== 'POST') throw err;
      host.logger.warn({ err }, 'federation: an inbox request could not be read');
      return errorOf(400, mountTexts.invalid);
    }
    if (fallThrough && fallback !== null) return fallback(request);
    if (request.method === 'POST' && response.ok && options.accepted) {
      // What is learnt from an accepted request never turns it into a failure.
      await options.accepted(request).catch((err: unknown) => host.logger.warn({ err }, 'federation: could not learn from an inbox request'));
    }
    if (request.method === 'POST' && response.status === 401 && options.forwarded) {
      const taken = await options.forwarded(toWebRequest(host, request), bodyOf(request));
      if (taken !== null) return { status: taken.status, body: '', type: 'text' };
    }
    return toApiResponse(response);
  }

  const endpoint = (method: HttpMethod, path: string, fallback: ((request: ApiRequest) => Promise<ApiResponse>) | null = null): Endpoint => ({
    method,
    path,
    auth: 'public',
    scopes: [],
    openInLimitedMode: true,
    ...(method === 'POST' ? { rawBody: true, payload: { maxBytes: INBOX_MAX_BYTES } } : {}),
    handle: (request) => serve(request, fallback),
  });

  // What a browser gets instead of ActivityStreams: the account's page, or the status's.
  const toProfile = async (request: ApiRequest): Promise<ApiResponse> => ({ status: 302, body: '', type: 'text', location: `${host.config.baseUrl}/@${request.params['username']}` });
  const toStatus = async (request: ApiRequest): Promise<ApiResponse> => ({
    status: 302,
    body: '',
    type: 'text',
    location: `${host.config.baseUrl}/@${request.params['username']}/${request.params['id']}`,
  });

  return [
    endpoint('GET', '/.well-known/webfinger'),
    endpoint('GET', '/users/:username', toProfile),
    endpoint('GET', '/users/:username/outbox', toProfile),
    endpoint('GET', '/users/:username/followers', toProfile),
    endpoint('GET', '/users/:username/following', toProfile),
    endpoint('GET', '/users/:username/collections/featured', toProfile),
    endpoint('GET', '/users/:username/statuses/:id', toStatus),
    endpoint('GET', '/users/:username/quote_authorizations/:id'),
    endpoint('POST', '/users/:username/inbox'),
    endpoint('POST', '/inbox'),
    {
      method: 'GET',
      path: '/.well-known/host-meta',
      auth: 'public',
      scopes: [],
      openInLimitedMode: true,
      handle: async () => ({
        status: 200,
        type: 'text',
        headers: { 'content-type': 'application/xrd+xml; charset=utf-8', 'access-control-allow-origin': '*' },
        body:
          '<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n' +
          `  <Link rel="lrdd" template="${host.config.baseUrl}/.well-known/webfinger?resource={uri}"/>\n</XRD>\n`,
      }),
    },
  ];
}
