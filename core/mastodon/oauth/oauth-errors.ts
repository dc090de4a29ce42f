// The OAuth endpoints' RFC 6749 §5.2 errors with the descriptions Mastodon servers send, so
// clients see exactly what they know (docs/behaviour.md, "OAuth").

import { oauthError, type RookeryError } from '../../domain/errors.ts';

export const descriptions = {
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  unsupported_response_mode: 'The authorization server does not support this response mode.',
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_redirect_uri: 'The redirect uri included is not valid.',
  access_denied: 'The resource owner or authorization server denied the request.',
  code_challenge_method: 'The code_challenge_method must be S256.',
  revoke_unauthorized: 'You are not authorized to revoke this token',
} as const;

export const missingParam = (name: string) => `Missing required parameter: ${name}.`;

/** Token responses must never be cached (RFC 6749 §5.1); errors of the token endpoint neither. */
export const NO_STORE: Readonly<Record<string, string>> = { 'cache-control': 'no-store', pragma: 'no-cache' };

export function invalidClient(): RookeryError {
  // RFC 6749 §5.2 wants a challenge on 401; a Bearer one (as Mastodon servers send) keeps browsers
  // from popping up a Basic login dialog over a web client's failed fetch.
  const challenge = `Bearer realm="Rookery", error="invalid_client", error_description="${descriptions.invalid_client}"`;
  return oauthError(401, 'invalid_client', descriptions.invalid_client, { ...NO_STORE, 'www-authenticate': challenge });
}

export const invalidGrant = () => oauthError(400, 'invalid_grant', descriptions.invalid_grant, { ...NO_STORE });
export const invalidScope = () => oauthError(400, 'invalid_scope', descriptions.invalid_scope, { ...NO_STORE });
export const unsupportedGrantType = () => oauthError(400, 'unsupported_grant_type', descriptions.unsupported_grant_type, { ...NO_STORE });
export const missingParameter = (name: string) => oauthError(400, 'invalid_request', missingParam(name), { ...NO_STORE });
export const revokeRefused = () => oauthError(403, 'unauthorized_client', descriptions.revoke_unauthorized);
