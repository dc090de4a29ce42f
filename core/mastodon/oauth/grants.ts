// The grants of the token endpoint (authorization code, password, client credentials; refresh
// tokens when configured: docs/behaviour.md, "OAuth"). Each checks its parameters in the order Mastodon
// servers do — missing parameters (invalid_request), the client (invalid_client), the grant
// (invalid_grant), the scopes (invalid_scope) — and returns the token to issue.

import type { AppCore } from '../context.ts';
import type { Application } from '../../domain/model.ts';
import { str, type Params } from '../../domain/params.ts';
import { consumeCode, revokeReplayedCode } from './codes.ts';
import { invalidGrant, invalidScope, missingParameter } from './oauth-errors.ts';
import { verifierMatches } from './pkce.ts';
import { requestedScopes } from './requested-scopes.ts';
import { findByRefreshToken, issueToken, type IssuedToken } from './tokens.ts';
import { checkLogin } from './user-credentials.ts';

/** Authenticates the client from the request, or throws invalid_client. */
export type ClientAuthenticator = () => Promise<Application>;

export type GrantHandler = (core: AppCore, params: Params, authenticate: ClientAuthenticator) => Promise<IssuedToken>;

function required(params: Params, name: string): string {
  const value = str(params, name);
  if (value === undefined || value === '') throw missingParameter(name);
  return value;
}

/** A code or refresh token only turns into a token while its user may still sign in. */
async function refuseDisabledUser(core: AppCore, accountId: string): Promise<void> {
  const [user, account] = await Promise.all([core.storage.accounts.getUser(accountId), core.storage.accounts.get(accountId)]);
  if (user === null || user.disabled || account === null || account.deletedAt !== null) throw invalidGrant();
}

/** RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.6). The token gets the code's scopes; a `scope`
 * parameter is ignored. A code is used up by the first attempt, even a failed one. */
export const authorizationCode: GrantHandler = async (core, params, authenticate) => {
  const code = required(params, 'code');
  const redirectUri = required(params, 'redirect_uri');
  const client = await authenticate();
  const grant = await consumeCode(core, code);
  if (grant === null) {
    await revokeReplayedCode(core, code);
    throw invalidGrant();
  }
  if (grant.applicationId !== client.id || grant.redirectUri !== redirectUri) throw invalidGrant();
  const verifier = str(params, 'code_verifier') ?? '';
  if (grant.codeChallenge !== null) {
    if (verifier === '') throw missingParameter('code_verifier');
    if (!verifierMatches(core, grant.codeChallenge, verifier)) throw invalidGrant();
  } else if (verifier !== '') {
    throw invalidGrant(); // a verifier for a code issued without a challenge proves nothing
  }
  await refuseDisabledUser(core, grant.accountId);
  return issueToken(core, client.id, grant.accountId, grant.scopes, grant.id);
};

/** RFC 6749 §4.3: username is the e-mail address or the username. Kept (the founding spec has it;
 * docs/behaviour.md, "Where the founding spec wins") for
 * bots and single-user apps, although Mastodon 4.3 removed it. */
export const password: GrantHandler = async (core, params, authenticate) => {
  const client = await authenticate();
  const login = await checkLogin(core, str(params, 'username') ?? '', str(params, 'password') ?? '');
  if (!login.ok) throw invalidGrant();
  const scopes = requestedScopes(params, client.scopes);
  if (scopes === null) throw invalidScope();
  return issueToken(core, client.id, login.account.id, scopes);
};

/** RFC 6749 §4.4: a token of the application itself, acting for no user. */
export const clientCredentials: GrantHandler = async (core, params, authenticate) => {
  const client = await authenticate();
  const scopes = requestedScopes(params, client.scopes);
  if (scopes === null) throw invalidScope();
  return issueToken(core, client.id, null, scopes);
};

/** RFC 6749 §6, rotating: the access token the refresh token came with is revoked and a new
 * pair issued; using a refresh token twice fails. The new scopes may only narrow the old ones. */
export const refreshToken: GrantHandler = async (core, params, authenticate) => {
  const presented = required(params, 'refresh_token');
  const client = await authenticate();
  const previous = await findByRefreshToken(core, presented);
  if (previous === null || previous.revokedAt !== null || previous.accountId === null || previous.applicationId !== client.id) throw invalidGrant();
  const scopes = requestedScopes({ scope: str(params, 'scope') || previous.scopes.join(' ') }, previous.scopes);
  if (scopes === null) throw invalidScope();
  await refuseDisabledUser(core, previous.accountId);
  // The atomic step: of two concurrent refreshes with one token, only one gets past here.
  const revoked = await core.storage.oauth.revokeTokenByRefreshHash(previous.refreshTokenHash ?? '', core.clock.now(), (old) =>
    old === null ? [] : core.record({ type: 'token.revoked', tokenId: old.id, accountId: old.accountId }),
  );
  if (revoked === null) throw invalidGrant();
  return issueToken(core, client.id, previous.accountId, scopes);
};
