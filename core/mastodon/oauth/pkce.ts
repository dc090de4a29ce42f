// PKCE (RFC 7636). Only S256 is offered: `plain` protects nothing once the authorization
// request leaks, and Mastodon refuses it too.

import type { AppCore } from '../context.ts';

export const CODE_CHALLENGE_METHODS: readonly string[] = ['S256'];

/** BASE64URL(SHA-256(verifier)) compared with the stored challenge in constant time. */
export function verifierMatches(core: AppCore, challenge: string, verifier: string): boolean {
  return core.secrets.equal(core.secrets.sha256(verifier), challenge);
}
