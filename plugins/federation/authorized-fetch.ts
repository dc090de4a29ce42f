// AUTHORIZED_FETCH, Mastodon's secure mode: the instance's actors, statuses and collections are
// given only to a GET signed by a key that verifies and whose server is not blocked; anything
// else is a 401, as Mastodon answers it. What Mastodon serves unsigned in that mode stays open:
// the instance actor (whose key others need to check its signed fetches), WebFinger, host-meta
// and NodeInfo (none of which goes through these predicates).

import type { PluginHost } from 'rookery/plugin-kit';
import type { RequestContext } from '@fedify/fedify';

export const authorizedFetchTexts = {
  /** Mastodon's words for a fetch without a signature. */
  notSigned: 'Request not signed',
  /** A signature that does not verify, or a reader who may not see the object. */
  refused: 'Unauthorized',
};

export interface AuthorizedFetchOptions {
  enabled: boolean;
  isBlocked(domain: string): Promise<boolean>;
}

/** Whether a fetch may be answered (Fedify's authorize predicate of every dispatcher). */
export function fetchAuthorizer(options: AuthorizedFetchOptions): (ctx: RequestContext<PluginHost>) => Promise<boolean> {
  return async (ctx) => {
    if (!options.enabled) return true;
    const key = await ctx.getSignedKey();
    if (key?.id == null) return false;
    return !(await options.isBlocked(key.id.host.toLowerCase()));
  };
}

/** The 401 of a refused fetch: Mastodon's `{"error": "Request not signed"}` when it had no
 * signature. */
export function refusedFetch(request: Request): Response {
  const signed = request.headers.has('signature') || request.headers.has('signature-input');
  return new Response(JSON.stringify({ error: signed ? authorizedFetchTexts.refused : authorizedFetchTexts.notSigned }), {
    status: 401,
    headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Accept, Signature' },
  });
}
