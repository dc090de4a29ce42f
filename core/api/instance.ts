// Instance information (v1 and v2) and the placeholder images.

import type { Core } from '../core.ts';
import type { Endpoint } from './types.ts';

export function instanceEndpoints(_core: Core): Endpoint[] {
  return [];
}
