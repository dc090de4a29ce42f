// Account endpoints (registration, credentials, profiles, follows, relationships).

import type { Core } from '../core.ts';
import type { Endpoint } from './types.ts';

export function accountEndpoints(_core: Core): Endpoint[] {
  return [];
}
