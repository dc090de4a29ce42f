// Applies an endpoint's auth rule to the credentials the adapter found, in Mastodon's order:
// token (401), scope (403), a user where one is needed (422), the user's state (403).

import type { RookeryConfig } from '../../domain/config.ts';
import { maySignIn } from '../../domain/policy.ts';
import { invalidToken, outsideScopes, RookeryError, texts, unprocessable } from '../../domain/errors.ts';
import { satisfiesAny } from '../oauth/scopes.ts';
import type { Caller, Endpoint, TokenLookup } from '../endpoint/types.ts';

const ANONYMOUS: Caller = { token: null, application: null, account: null, user: null };

export function authorize(endpoint: Pick<Endpoint, 'auth' | 'scopes' | 'openInLimitedMode'>, lookup: TokenLookup, config: RookeryConfig): Caller {
  if (endpoint.auth === 'public') return ANONYMOUS;
  if (lookup.kind === 'revoked') throw invalidToken();
  if (lookup.kind !== 'valid') {
    if (endpoint.auth !== 'optional') throw invalidToken();
    if (config.limitedFederation && !endpoint.openInLimitedMode) throw new RookeryError(401, texts.whitelistMode);
    return ANONYMOUS;
  }
  const caller: Caller = { token: lookup.token, application: lookup.application, account: lookup.account, user: lookup.user };
  if (!satisfiesAny(lookup.token.scopes, endpoint.scopes)) throw outsideScopes();
  // A suspended account's or a disabled user's token is refused on every call, whatever the
  // endpoint asks for (an admin endpoint takes an optional token, but must not act for them).
  // (User endpoints check it last, in Mastodon's order.)
  if (endpoint.auth !== 'user' && lookup.account !== null && lookup.user !== null && !maySignIn(lookup.account, lookup.user)) throw new RookeryError(403, texts.disabled);
  switch (endpoint.auth) {
    case 'client':
      if (lookup.account !== null) throw new RookeryError(403, 'This method requires an client credentials authentication');
      return caller;
    case 'user':
      if (lookup.account === null) throw unprocessable(texts.needsUser);
      refuseUnusableUser(caller);
      return caller;
    case 'optional':
      if (config.limitedFederation && !endpoint.openInLimitedMode && lookup.account === null) {
        throw new RookeryError(401, texts.whitelistMode);
      }
      return caller;
    case 'app':
      return caller;
  }
}

/** A local user must be confirmed, approved, enabled and not suspended to act (checked in
 * Mastodon's order). */
function refuseUnusableUser(caller: Caller): void {
  const user = caller.user;
  if (user === null) return;
  if (user.confirmedAt === null) throw new RookeryError(403, texts.unconfirmed);
  if (!user.approved) throw new RookeryError(403, texts.pending);
  if (caller.account !== null && !maySignIn(caller.account, user)) throw new RookeryError(403, texts.disabled);
}
