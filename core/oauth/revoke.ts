// POST /oauth/revoke (RFC 7009) as Doorkeeper answers it: the client must authenticate
// (else 403); a blank or unknown token is "revoked" already (200 {}); a token of another
// application is refused (403). The bearer guard then answers 401 for the revoked token.

import type { ApiRequest, ApiResponse } from '../api/types.ts';
import { json } from '../api/types.ts';
import type { Core } from '../core.ts';
import { str } from '../params.ts';
import { authenticateClient, clientCredentials } from './client-auth.ts';
import { revokeRefused } from './oauth-errors.ts';
import { consumeRefreshToken } from './refresh.ts';

export async function revokeEndpoint(core: Core, request: ApiRequest): Promise<ApiResponse> {
  const params = { ...request.query, ...request.body };
  const client = await authenticateClient(core, clientCredentials(request.headers, params));
  if (client === null) throw revokeRefused();
  const token = str(params, 'token') ?? '';
  if (token === '') return json({});
  const now = core.clock.now();
  const accessToken = await core.storage.oauth.findTokenByHash(core.secrets.sha256(token));
  if (accessToken !== null) {
    if (accessToken.applicationId !== client.id) throw revokeRefused();
    await core.storage.oauth.revokeToken(accessToken.id, now);
    return json({});
  }
  if (core.config.refreshTokens) {
    // A refresh token ends with the access token it came with.
    const used = await consumeRefreshToken(core, token);
    if (used !== null && used.record.applicationId !== client.id) throw revokeRefused();
    if (used?.accessToken) await core.storage.oauth.revokeToken(used.accessToken.id, now);
  }
  return json({});
}
