// A host app's own sign-in behind /oauth/authorize. Without it, Rookery shows its sign-in form
// and keeps its own session; with it, the host says who is signed in (from its own session
// cookie, say) and where to send someone who is not. Rookery's session cookie then only holds
// the CSRF token of the consent form, and /auth/sign_in is left to the host.

import type { ApiRequest } from '../endpoint/types.ts';
import type { Id } from '../../domain/model.ts';

export interface SignInPort {
  /** The local account signed in to the host app for this request, or null. */
  currentAccountId(request: ApiRequest): Promise<Id | null>;
  /** Where to send someone who must sign in first. `returnTo` is the path and query of the
   * authorize request to come back to once signed in (same origin). */
  signInUrl(returnTo: string): string;
}
