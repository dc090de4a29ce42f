// Sign-up and the signed-in account's own credentials (POST /api/v1/accounts,
// GET /api/v1/accounts/verify_credentials).

import type { Core } from '../core.ts';
import type { Endpoint } from './types.ts';

export function registrationEndpoints(_core: Core): Endpoint[] {
  return [];
}
