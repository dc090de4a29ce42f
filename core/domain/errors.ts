// Errors the core raises, each carrying the HTTP status and the exact text clients see.
// The HTTP front (core/http) renders them as Mastodon's {"error": "…"} body; nothing else
// of an error reaches a client. The texts are those of docs/behaviour.md, "Errors".

export class RookeryError extends Error {
  readonly status: number;
  /** Extra members of the error body (OAuth's error_description, registration details …). */
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'RookeryError';
    this.status = status;
    this.extra = extra;
    this.headers = headers;
  }
}

export const texts = {
  invalidToken: 'The access token is invalid',
  outsideScopes: 'This action is outside the authorized scopes',
  needsUser: 'This method requires an authenticated user',
  whitelistMode: 'This API requires an authenticated user',
  notFound: 'Record not found',
  notAllowed: 'This action is not allowed',
  pinOthers: "Validation failed: Someone else's toot cannot be pinned",
  pinNonPublic: 'Validation failed: Non-public toot cannot be pinned',
  pinBoost: 'Validation failed: A boost cannot be pinned',
  pinLimit: 'Validation failed: You have already pinned the maximum number of posts',
  unconfirmed: 'Your login is missing a confirmed e-mail address',
  pending: 'Your login is currently pending approval',
  disabled: 'Your login is currently disabled',
  tooMany: 'Too many requests',
  replyMissing: 'The post you are trying to reply to does not appear to exist.',
  textBlank: "Validation failed: Text can't be blank",
  textTooLong: (max: number) => `Validation failed: Text character limit of ${max} exceeded`,
  visibilityInvalid: 'Validation failed: Visibility is not included in the list',
  visibilityReserved: 'Validation failed: Visibility is reserved',
  quotedMissing: 'The post you are trying to quote does not appear to exist.',
  quotedNotMentioned: 'Validation failed: Cannot quote a non-mentioned user in a Private Mention post.',
  // Rookery's own (an edit cannot lower the visibility as publish does; Mastodon has no such edit).
  quotedPrivateInPublic: 'Validation failed: Cannot quote a private post in a public or unlisted post.',
  recordInvalid: 'Record invalid',
} as const;

/** One failed validation of a record, as Rails reports it: the attribute (the key of
 * `details`), its human label, the error type (ERR_TOO_LONG …) and its description. */
export interface FieldError {
  field: string;
  label: string;
  code: string;
  description: string;
}

/** 422 {"error": "Validation failed: <Label> <description>, …", "details": {field: [{error,
 * description}]}}: Mastodon's ValidationErrorFormatter (registration, update_credentials). */
export function validationFailed(errors: readonly FieldError[]): RookeryError {
  const message = `Validation failed: ${errors.map((e) => `${e.label} ${e.description}`).join(', ')}`;
  const details: Record<string, { error: string; description: string }[]> = {};
  for (const e of errors) (details[e.field] ??= []).push({ error: e.code, description: e.description });
  return new RookeryError(422, message, { details });
}

export const notFound = () => new RookeryError(404, texts.notFound);
export const invalidToken = () => new RookeryError(401, texts.invalidToken);
export const outsideScopes = () => new RookeryError(403, texts.outsideScopes);
export const forbidden = (message: string = texts.notAllowed) => new RookeryError(403, message);
export const unprocessable = (message: string, extra: Record<string, unknown> = {}) => new RookeryError(422, message, extra);
export const badRequest = (message: string) => new RookeryError(400, message);

/** RFC 6749 §5.2 error of the OAuth endpoints: {"error": code, "error_description": text}. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): RookeryError {
  return new RookeryError(status, error, { error_description: description }, headers);
}
