// Applies an endpoint's auth rule to the credentials the adapter found, in Mastodon's order:
// token (401), scope (403), a user where one is needed (422), the user's state (403).

import type { RookeryConfig } from '../../domain/config.ts';
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

/** A local user must be confirmed, approved and enabled to act (checked in Mastodon's order). */
function refuseUnusableUser(caller: Caller): void {
  const user = caller.user;
  if (user === null) return;
  if (user.confirmedAt === null) throw new RookeryError(403, texts.unconfirmed);
  if (!user.approved) throw new RookeryError(403, texts.pending);
  if (user.disabled) throw new RookeryError(403, texts.disabled);
}
