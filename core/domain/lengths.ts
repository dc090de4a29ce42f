// How long the free texts a client stores may be, in one place: Mastodon's limit where it has
// one, Rookery's own where it has none (so that no value grows without bound), and the 422 in
// Rails' words either way. Counts are in characters as JavaScript counts them (UTF-16 units),
// which is never less than the code points Rails counts.

import { unprocessable, type RookeryError } from './errors.ts';

export const MAX_LENGTH = {
  /** Mastodon: none. */
  listTitle: 256,
  /** Mastodon: none. */
  filterTitle: 256,
  /** Mastodon: none; a keyword is a word or a phrase, and every keyword of an account's
   * filters goes into one compiled matcher. */
  filterKeyword: 64,
  /** Mastodon's UserInviteRequest. */
  signUpReason: 420,
  /** Mastodon's Account (accounts made from code: the host API, the CLI). */
  displayName: 30,
  /** OAuth parameters carried through the sign-in and consent forms and echoed to the client
   * (state, scope …). Mastodon: bounded only by its proxy's URL length. */
  authorizeParam: 2000,
  /** An e-mail address (RFC 5321's path limit). */
  email: 254,
  /** Longest login (an e-mail address or a handle) and password (Mastodon: 72) the sign-in
   * form or the password grant looks at; longer ones cannot belong to anybody. */
  login: 320,
  password: 72,
} as const;

export function tooLongText(label: string, max: number): string {
  return `${label} is too long (maximum is ${max} characters)`;
}

/** A 422 `Validation failed: <label> is too long (maximum is <max> characters)`. */
export function tooLong(label: string, max: number): RookeryError {
  return unprocessable(`Validation failed: ${tooLongText(label, max)}`);
}

/** Throws tooLong when `value` is longer than `max`. */
export function checkLength(value: string | undefined, max: number, label: string): void {
  if (value !== undefined && value.length > max) throw tooLong(label, max);
}
