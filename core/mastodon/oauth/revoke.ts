// POST /oauth/revoke (RFC 7009) as Mastodon servers answer it: the client must authenticate
// (else 403); a blank or unknown token is "revoked" already (200 {}); a token of another
// application is refused (403). The bearer guard then answers 401 for the revoked token, and
// the recorded 'token.revoked' ends the streams open with it.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import { json } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { str } from '../../domain/params.ts';
import { authenticateClient, clientCredentials } from './client-auth.ts';
import { revokeRefused } from './oauth-errors.ts';
import { findByRefreshToken } from './tokens.ts';

export async function revokeEndpoint(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const params = { ...request.query, ...request.body };
  const client = await authenticateClient(core, clientCredentials(request.headers, params));
  if (client === null) throw revokeRefused();
  const token = str(params, 'token') ?? '';
  if (token === '') return json({});
  // The token may be an access token or (when they are on) a refresh token; revoking either
  // ends the access token, and only its own application may do it.
  const accessToken = (await core.storage.oauth.findTokenByHash(core.secrets.sha256(token))) ?? (await findByRefreshToken(core, token));
  if (accessToken === null) return json({});
  if (accessToken.applicationId !== client.id) throw revokeRefused();
  await core.storage.oauth.revokeToken(accessToken.id, core.clock.now(), (revoked) =>
    revoked ? core.record({ type: 'token.revoked', tokenId: accessToken.id, accountId: accessToken.accountId }) : [],
  );
  return json({});
}
