// The API around statuses that clients call (timelines, notifications, lists, markers, filters …).

import type { Core } from '../core.ts';
import type { Endpoint } from './types.ts';

export function supportingEndpoints(_core: Core): Endpoint[] {
  return [];
}
