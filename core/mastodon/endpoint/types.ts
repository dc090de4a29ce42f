// Transport-neutral endpoints. The core declares every route with its auth rule and accepted
// scopes (the rules), and a handler from a plain request to a plain response; core/http serves
// them and transports only move bytes. Plugins add endpoints through the plugin host.

import type { AccessToken, Account, Application, Millis, User } from '../../domain/model.ts';
import type { FileLimit, Params } from '../../domain/params.ts';

export type { FileLimit, Params };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the adapter found in the request's credentials (Authorization header or access_token). */
export type TokenLookup =
  | { kind: 'none' }
  | { kind: 'unknown' }
  | { kind: 'revoked' }
  | { kind: 'valid'; token: AccessToken; application: Application; account: Account | null; user: User | null };

/** The caller as an endpoint sees it after the auth rule passed. */
export interface Caller {
  token: AccessToken | null;
  application: Application | null;
  /** The signed-in account; null for anonymous callers and app tokens. */
  account: Account | null;
  user: User | null;
}

/** A file of a multipart body. The transport keeps it for the request only (a temporary file
 * when it streamed the body, memory when it read the body whole) and removes it when the request
 * ends: an endpoint that keeps a file copies it before answering. */
export interface UploadedFile {
  filename: string;
  /** As the part declared it (RFC 7578's default, text/plain, or application/octet-stream,
   * when it declared none): a hint, never proof of what the bytes are. */
  contentType: string;
  /** In bytes. */
  size: number;
  /** The temporary file holding it, when the transport streamed it to disk (sharp and copies
   * read it from there); null when it is held in memory. */
  path: string | null;
  /** Up to `length` bytes from `offset` (fewer past the end). */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** All its bytes: for a file known to be small enough to hold (one within its limit). */
  bytes(): Promise<Uint8Array>;
}

/** How many of a file's first bytes a FileLimit rule is given (all of a shorter file). */
export const FILE_HEAD_BYTES = 64;

export interface ApiRequest {
  method: HttpMethod;
  /** Path without the query string, e.g. /api/v1/statuses/123. */
  path: string;
  params: Record<string, string>;
  /** Query parameters, Rack-style keys already nested (a[]=1 → {a: ['1']}). */
  query: Params;
  /** Form, multipart or JSON body, nested the same way; files as UploadedFile. */
  body: Params;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  cookies: Record<string, string>;
  caller: Caller;
  remoteAddress: string;
  /** The query string as received, without '?' (still percent-encoded). */
  search?: string;
  /** The body's bytes exactly as received, for endpoints that declare `rawBody` (an inbox
   * checks them against a signed digest); `body` is then empty. */
  rawBody?: Uint8Array;
  /** Present when the answer will be kept ready (an endpoint that declares `keep`, called
   * anonymously): what renders it notes there when it will read differently by time alone. */
  keep?: KeepNote;
  /** Set by the front for a caller whose answers it keeps (see answerAsGet below). */
  answerAsGet?(path: string, make: () => Promise<ApiResponse>): Promise<ApiResponse>;
}

/** An endpoint whose answer, when the request committed nothing, is what GET `path` answers
 * the same caller (a repeated favourite answers the status as its reader sees it): that
 * answer kept ready when there is one, else `make`'s, made with `request.keep` and kept for
 * both (http/kept.ts). Where nothing is kept, `make`'s. `make` must give exactly that GET's
 * answer: the same status, by the same renderer, whose visibility the endpoint checked. */
export function answerAsGet(request: ApiRequest, path: string, make: () => Promise<ApiResponse>): Promise<ApiResponse> {
  return request.answerAsGet === undefined ? make() : request.answerAsGet(path, make);
}

/** Filled while an answer that will be kept ready is made (http/kept.ts): the time from which
 * it may read differently though nothing was written (Infinity: never). */
export interface KeepNote {
  until: Millis;
}

export interface ApiResponse {
  status: number;
  /** A JSON value, the text of an html/text response, or the bytes (Uint8Array) of a binary
   * one (its content-type in `headers`). */
  body: unknown;
  /** json-text: `body` is JSON already encoded (a string), sent as it is. */
  type?: 'json' | 'json-text' | 'html' | 'text' | 'png' | 'binary';
  headers?: Record<string, string>;
  /** Set-Cookie values. */
  cookies?: string[];
  /** Redirect target for 302/303 responses. */
  location?: string;
}

/**
 * - public: no token needed; a token, if any, is not looked at.
 * - optional: anonymous allowed; a revoked token is refused, an unknown one is ignored, a valid
 *   one must carry an accepted scope. Refused anonymously in limited-federation mode.
 * - user: a valid token of a signed-in, usable user with an accepted scope.
 * - app: any valid token (app or user).
 * - client: a valid app token (client_credentials), not a user's.
 */
export type AuthRule = 'public' | 'optional' | 'user' | 'app' | 'client';

export interface Endpoint {
  method: HttpMethod;
  /** Mastodon-style path with :params, e.g. /api/v1/statuses/:id. */
  path: string;
  auth: AuthRule;
  /** Accepted scopes; holding any one suffices (scope hierarchy applies). Empty: none needed. */
  scopes: readonly string[];
  /** Body limits, for uploads. */
  payload?: {
    maxBytes?: number;
    /** The limit of the file sent as `field`, told from its first FILE_HEAD_BYTES bytes (an
     * image and a video may have different ones); null: the body's limit only. A transport
     * that streams the body stops reading a file as soon as it passes `maxBytes`, and the
     * request is answered with `refusal` once the caller passed the auth rule and the rate
     * limits. */
    fileLimit?(field: string, head: Uint8Array): FileLimit | null;
  };
  /** Hand the body over unparsed as `request.rawBody` (any content type, at most
   * payload.maxBytes, else 413): for endpoints that verify its digest. */
  rawBody?: boolean;
  /** Whether the endpoint is reachable without a user in limited-federation mode. */
  openInLimitedMode?: boolean;
  /** Whether browsers may call it from other origins (default true; HTML pages say false). */
  cors?: boolean;
  /** Errors in RFC 6749 §5.2's shape (the OAuth endpoints): a refusal of the front or the
   * transport (a body it cannot read, a limit, another method on its path) comes out as
   * {"error": "invalid_request", "error_description": text}, like the endpoint's own errors. */
  oauthErrors?: boolean;
  /** Its anonymous answer (200) depends only on what the store holds, and on the time only
   * through what its renderers note in `request.keep`: it may be kept ready and served again
   * while nothing is written (http/kept.ts). */
  keep?: boolean;
  handle(request: ApiRequest): Promise<ApiResponse>;
}

export function json(body: unknown, status = 200, headers?: Record<string, string>): ApiResponse {
  return headers ? { status, body, type: 'json', headers } : { status, body, type: 'json' };
}

/** A JSON answer already encoded (statuses assembled from kept fragments: present/cache). */
export function jsonText(text: string, status = 200, headers?: Record<string, string>): ApiResponse {
  return headers ? { status, body: text, type: 'json-text', headers } : { status, body: text, type: 'json-text' };
}
