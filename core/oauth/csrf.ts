// Cross-site request forgery protection of the sign-in and consent forms: each form carries
// the session's token, and a post is only acted on when it sends that token back.

import type { Core } from '../core.ts';
import type { WebSession } from '../model.ts';
import { str, type Params } from '../params.ts';

/** The name Rails uses, which people reading the form will recognise. */
export const CSRF_FIELD = 'authenticity_token';

export function csrfValid(core: Core, session: WebSession | null, params: Params): boolean {
  const sent = str(params, CSRF_FIELD) ?? '';
  if (session === null || sent === '') return false;
  return core.secrets.equal(sent, session.csrfToken);
}
