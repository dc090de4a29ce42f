// OAuth endpoints (apps, authorize, token, revoke, server metadata).

import type { Core } from '../core.ts';
import type { Endpoint } from './types.ts';

export function oauthEndpoints(_core: Core): Endpoint[] {
  return [];
}
