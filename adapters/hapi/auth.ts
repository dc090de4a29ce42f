// The bearer-token auth scheme. It only finds the token (Authorization: Bearer …, else the
// access_token query or body parameter) and asks the core what it is; whether the endpoint
// accepts that is the core's guard's decision, so every route authenticates "successfully"
// with the lookup as its credentials.

import type { Request, ServerAuthScheme } from '@hapi/hapi';
import type { TokenLookup } from '../../core/api/types.ts';
import type { Rookery } from '../../core/rookery.ts';

interface Credentials {
  lookup: TokenLookup;
  [key: string]: unknown;
}

function bearerToken(request: Request): string | null {
  const header = request.headers['authorization'];
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1]) return match[1];
  }
  const query = request.query['access_token'];
  return typeof query === 'string' && query !== '' ? query : null;
}

export function bearerScheme(rookery: Rookery): ServerAuthScheme {
  return () => ({
    options: { payload: true },
    async authenticate(request, h) {
      const lookup = await rookery.lookupToken(bearerToken(request));
      return h.authenticated({ credentials: { lookup } satisfies Credentials });
    },
    // Form posts may carry the token in the body (Doorkeeper reads it from any parameter).
    async payload(request, h) {
      const credentials = request.auth.credentials as Credentials;
      const payload = request.payload as Record<string, unknown> | null;
      const token = payload !== null && typeof payload === 'object' ? payload['access_token'] : undefined;
      if (credentials.lookup.kind === 'none' && typeof token === 'string' && token !== '') {
        credentials.lookup = await rookery.lookupToken(token);
      }
      return h.continue;
    },
  });
}

export function lookupOf(request: Request): TokenLookup {
  return (request.auth.credentials as Credentials | null)?.lookup ?? { kind: 'none' };
}
