// POST /oauth/token (RFC 6749 §3.2): picks the grant, authenticates the client when the grant
// asks for it, and answers with a token that must not be cached. Form and JSON bodies both
// work; as on Mastodon servers, parameters in the query string count too.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { str } from '../../domain/params.ts';
import { authenticateClient, clientCredentials } from './client-auth.ts';
import * as grants from './grants.ts';
import { invalidClient, missingParameter, NO_STORE, unsupportedGrantType } from './oauth-errors.ts';
import { renderToken } from './tokens.ts';

const GRANTS: Readonly<Record<string, grants.GrantHandler>> = {
  authorization_code: grants.authorizationCode,
  password: grants.password,
  client_credentials: grants.clientCredentials,
  refresh_token: grants.refreshToken,
};

export function supportedGrantTypes(core: AppCore): string[] {
  return Object.keys(GRANTS).filter((type) => type !== 'refresh_token' || core.config.refreshTokens);
}

export async function tokenEndpoint(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const params = { ...request.query, ...request.body };
  const grantType = str(params, 'grant_type');
  if (grantType === undefined || grantType === '') throw missingParameter('grant_type');
  const grant = supportedGrantTypes(core).includes(grantType) ? GRANTS[grantType] : undefined;
  if (grant === undefined) throw unsupportedGrantType();
  const authenticate = async () => {
    const client = await authenticateClient(core, clientCredentials(request.headers, params));
    if (client === null) throw invalidClient();
    return client;
  };
  const issued = await grant(core, params, authenticate);
  return { status: 200, type: 'json', body: renderToken(issued), headers: { ...NO_STORE } };
}
