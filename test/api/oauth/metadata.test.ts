// GET /.well-known/oauth-authorization-server (RFC 8414; docs/behaviour.md, "OAuth").

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { ALL_SCOPES } from '../../../core/mastodon/oauth/scopes.ts';

t.test('the authorization server metadata', async (t) => {
  const h = await harness({ config: { baseUrl: 'https://social.example' } });
  t.teardown(() => h.close());
  const res = await h.request('GET', '/.well-known/oauth-authorization-server');
  t.equal(res.statusCode, 200);
  t.same(res.json, {
    issuer: 'https://social.example/',
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: 'https://social.example/oauth/authorize',
    token_endpoint: 'https://social.example/oauth/token',
    app_registration_endpoint: 'https://social.example/api/v1/apps',
    revocation_endpoint: 'https://social.example/oauth/revoke',
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'password', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  });
  t.ok(res.json.scopes_supported.includes('profile'), 'clients look for profile here');
  const cors = await h.request('GET', '/.well-known/oauth-authorization-server', { headers: { origin: 'https://elk.zone' } });
  t.ok(cors.headers['access-control-allow-origin'], 'readable cross-origin by web clients');
});

t.test('open in limited-federation mode, like every OAuth endpoint', async (t) => {
  const h = await harness({ config: { limitedFederation: true } });
  t.teardown(() => h.close());
  t.equal((await h.request('GET', '/.well-known/oauth-authorization-server')).statusCode, 200);
  t.equal((await h.request('POST', '/api/v1/apps', { payload: { client_name: 'A', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } })).statusCode, 200);
});
