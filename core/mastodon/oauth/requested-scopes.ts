// The `scope` parameter of the OAuth endpoints (docs/behaviour.md, "OAuth"): space separated (a `+` in a
// query string is a space too), default `read`, and every scope must be known and appear
// literally among the application's registered scopes.

import type { Params } from '../../domain/params.ts';
import { DEFAULT_SCOPES, isSubset, parseScopes } from './scopes.ts';

/** The requested scopes, or null when the parameter is malformed or asks for too much. */
export function requestedScopes(params: Params, allowed: readonly string[]): string[] | null {
  const raw = params['scope'];
  if (raw !== undefined && raw !== null && typeof raw !== 'string') return null;
  const scopes = typeof raw === 'string' && raw.trim() !== '' ? parseScopes(raw) : [...DEFAULT_SCOPES];
  return isSubset(scopes, allowed) ? scopes : null;
}
