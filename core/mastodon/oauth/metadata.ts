// GET /.well-known/oauth-authorization-server (RFC 8414), which clients probe to learn that
// PKCE and the `profile` scope are available (docs/behaviour.md, "OAuth"). It lists only what this
// server really does: the query response mode, and the password grant the spec keeps.

import type { AppCore } from '../context.ts';
import { supportedGrantTypes } from './token-endpoint.ts';
import { CODE_CHALLENGE_METHODS } from './pkce.ts';
import { ALL_SCOPES } from './scopes.ts';

export function serverMetadata(core: AppCore) {
  const base = core.config.baseUrl;
  return {
    issuer: `${base}/`,
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    app_registration_endpoint: `${base}/api/v1/apps`,
    revocation_endpoint: `${base}/oauth/revoke`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: supportedGrantTypes(core),
    code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  };
}
