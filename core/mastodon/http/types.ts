// The transport-neutral HTTP contract. A transport (hapi, node:http, anything) hands the front a
// RawRequest and writes back the RawResponse; everything Mastodon clients see on the wire
// (routing, parameters, auth, CORS, the {"error": …} body) is decided in core/http.
//
// Plain objects rather than WHATWG Request/Response: those cost allocations and stream plumbing
// on every request. Bodies are bytes, except multipart ones, which a transport may parse as
// they stream in (formRules says how) and hand over as parts, files kept in temporary files.

import type { Caller, Endpoint, FileLimit, HttpMethod, TokenLookup, UploadedFile } from '../endpoint/types.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { Millis } from '../../domain/model.ts';
import type { StoreStamp } from '../../domain/ports/storage.ts';
import type { RateLimiter } from '../rate-limits.ts';

export interface RawRequest {
  method: string;
  /** Path plus ?query exactly as received (still percent-encoded). */
  url: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  remoteAddress: string;
  /** The whole body; null when there is none, the transport did not read it, or it hands the
   * body over as `form`. */
  body: Uint8Array | null;
  /** A multipart body the transport parsed as it streamed in, by the front's formRules. */
  form?: StreamedForm;
}

/** A multipart body as a transport parsed it while it streamed in. */
export interface StreamedForm {
  /** Its parts in order: text fields as strings, files as UploadedFile. */
  parts: [string, string | UploadedFile][];
  /** Set when a file passed its limit (FileLimit.refusal): the transport stopped reading there
   * (`parts` holds those before it), and the front answers with it once the caller passed the
   * endpoint's auth rule and the rate limits. */
  refusal?: unknown;
}

/** How a transport reads a multipart body as it streams in. Text fields are kept (within
 * maxFieldBytes); each file goes to a temporary file as its bytes arrive, checked against
 * fileLimit, so that memory stays bounded whatever the body's size. */
export interface FormRules {
  /** The whole body's limit: past it, 413 as for any body. */
  maxBytes: number;
  /** All text fields together: past it, 413. */
  maxFieldBytes: number;
  /** Parts (fields and files): past it, 400. */
  maxParts: number;
  /** File parts: past it, 400. */
  maxFiles: number;
  /** The endpoint's limit for the file sent as `field` (Endpoint.payload.fileLimit). */
  fileLimit(field: string, head: Uint8Array): FileLimit | null;
}

/** A request before its body is read. */
export type RawHead = Omit<RawRequest, 'body'>;

export interface RawResponse {
  status: number;
  /** Lower-case names; set-cookie as a list. */
  headers: Record<string, string | string[]>;
  body: string | Uint8Array;
}

/** How to treat a request's body before reading it: read at most this many bytes (more is a
 * 413), or 'ignore' it because the front answers without it (a GET, an unknown /api path). */
export type BodyLimit = number | 'ignore';

/** A route a routing transport (hapi) registers so that it shows in the host's route table. */
export interface RouteInfo {
  method: HttpMethod;
  /** Mastodon-style, with :params. */
  path: string;
  maxBytes: number;
}

export interface HttpFront {
  /** The response, or null when the request is not Rookery's (the host app serves it). */
  handle(request: RawRequest): Promise<RawResponse | null>;
  /** null when the request is not Rookery's: a transport passes it on without reading it. */
  bodyLimit(method: string, url: string): BodyLimit | null;
  /** How to stream the request's body when it is multipart/form-data (with a boundary, not
   * compressed) and the endpoint reads it; null otherwise: read it whole within bodyLimit (a
   * transport may always do that, and the front parses it itself). */
  formRules(request: RawHead): FormRules | null;
  /** A transport's own refusal (a body over the limit, a timeout) in Mastodon's error shape,
   * or RFC 6749's on the OAuth endpoints; a 5xx hides the message and logs `cause`. A url of
   * '' says the path is not known: the body then carries both shapes' members. */
  refuse(request: RawHead, status: number, message: string, cause?: unknown): RawResponse;
  readonly routes: readonly RouteInfo[];
  /** The largest body an endpoint takes unless it sets its own payload.maxBytes. */
  readonly maxBytes: number;
}

/** What the front needs from a Rookery (built by core/rookery.ts, which core/http never imports). */
export interface FrontDeps {
  endpoints: readonly Endpoint[];
  /** `stamp`: the store's stamp taken for this request (a lookup kept at it may be served). */
  lookupToken(raw: string | null, stamp?: StoreStamp | null): Promise<TokenLookup>;
  authorize(endpoint: Endpoint, lookup: TokenLookup): Caller;
  logger: Logger;
  /** Default 16 MiB. */
  maxBytes?: number;
  /** Mastodon's rate limits; none when absent (config.rateLimits false). */
  rateLimiter?: RateLimiter | null;
  /** Called as each request begins: its reads must see what was committed before it arrived
   * (Storage.freshen). */
  freshen?: () => void;
  /** Whether the admins' IP blocks shut this client out (no_access): then every request the
   * front would answer gets Rack::Attack's 403 "Forbidden". */
  accessRefused?: (remoteAddress: string, forwardedFor: string | undefined) => Promise<boolean>;
  /** The store's stamp (Storage.stamp): with it, anonymous answers of endpoints that declare
   * `keep` are kept ready (kept.ts); without it, none are. */
  stamp?: () => StoreStamp | null | Promise<StoreStamp | null>;
  /** Storage.stampSeen: what answerAsGet compares with the request's stamp. Default `stamp`. */
  stampSeen?: () => StoreStamp | null;
  /** When what a signed-in account is shown changes with nothing written (a mute or a filter
   * that ends): the life of the answers kept for it. Without it, only anonymous answers are kept. */
  readerChangesAt?: (accountId: string) => Promise<Millis>;
  /** The clock kept answers' time limits are read on (default Date.now). */
  now?: () => Millis;
}
