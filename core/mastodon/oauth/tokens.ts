// Access tokens: issued as random strings, stored only as digests, looked up by digest.

import type { TokenLookup } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import type { AccessToken, Id } from '../../domain/model.ts';
import type { StoreStamp } from '../../domain/ports/storage.ts';
import { noteActivity } from '../../domain/moderation/activity.ts';
import { forgetOldest } from '../../domain/maps.ts';

export async function lookupToken(core: AppCore, raw: string | null | undefined): Promise<TokenLookup> {
  if (raw === null || raw === undefined || raw === '') return { kind: 'none' };
  return lookupTokenHash(core, core.secrets.sha256(raw));
}

async function lookupTokenHash(core: AppCore, hash: string): Promise<TokenLookup> {
  const token = await core.storage.oauth.findTokenByHash(hash);
  if (token === null) return { kind: 'unknown' };
  if (token.revokedAt !== null) return { kind: 'revoked' };
  // The three reads start together (a store may serve them from one snapshot check).
  const accountId = token.accountId;
  const [application, account, user] = await Promise.all([
    core.storage.oauth.getApplication(token.applicationId),
    accountId === null ? null : core.storage.accounts.get(accountId),
    accountId === null ? null : core.storage.accounts.getUser(accountId),
  ]);
  if (application === null) return { kind: 'unknown' };
  if (accountId === null) return { kind: 'valid', token, application, account: null, user: null };
  // A deleted account's tokens were revoked with it; one that escaped is refused all the same.
  if (account === null || account.deletedAt !== null) return { kind: 'unknown' };
  // A local user using the API is active today (the admin dashboard's figures).
  if (user !== null) await noteActivity(core, account.id);
  return { kind: 'valid', token, application, account, user };
}

/** Lookups kept per process (by digest), and served while the store's stamp stays: what a
 * token names (token, application, account, user) is read again only after a write, so a
 * revocation, a suspension or a deletion counts at once. */
const KEPT_LOOKUPS = 10_000;

export type KeptTokenLookup = (raw: string | null | undefined, stamp?: StoreStamp | null) => Promise<TokenLookup>;

export function keptTokenLookups(core: AppCore): KeptTokenLookup {
  const kept = new Map<string, { stamp: StoreStamp; found: TokenLookup }>();
  return async (raw, stamp = null) => {
    if (raw === null || raw === undefined || raw === '') return { kind: 'none' };
    if (stamp === null) return lookupToken(core, raw);
    const hash = core.secrets.sha256(raw);
    const hit = kept.get(hash);
    if (hit !== undefined && hit.stamp === stamp) {
      // Still today's activity, as a lookup from the store would note it.
      if (hit.found.kind === 'valid' && hit.found.user !== null && hit.found.account !== null) await noteActivity(core, hit.found.account.id);
      return hit.found;
    }
    const found = frozen(await lookupTokenHash(core, hash));
    if (kept.size >= KEPT_LOOKUPS && hit === undefined) forgetOldest(kept, KEPT_LOOKUPS);
    kept.set(hash, { stamp, found });
    return found;
  };
}

/** A lookup shared by requests: nothing may change it. */
function frozen(found: TokenLookup): TokenLookup {
  if (found.kind !== 'valid') return Object.freeze(found);
  for (const part of [found.token, found.application, found.account, found.user]) if (part !== null) Object.freeze(part);
  return Object.freeze(found);
}

export interface IssuedToken {
  /** The token itself: shown once, never stored. */
  accessToken: string;
  /** With config.refreshTokens, for user tokens (RFC 6749 §4.4.3: none for client credentials). */
  refreshToken: string | null;
  token: AccessToken;
}

/** `authorizationCodeId`: the code the token is issued for, so that a replay can revoke it. */
export async function issueToken(core: AppCore, applicationId: Id, accountId: Id | null, scopes: readonly string[], authorizationCodeId?: Id): Promise<IssuedToken> {
  const accessToken = core.secrets.randomToken(32);
  const refreshToken = core.config.refreshTokens && accountId !== null ? core.secrets.randomToken(32) : null;
  const token: AccessToken = {
    id: core.ids.next(),
    tokenHash: core.secrets.sha256(accessToken),
    applicationId,
    accountId,
    scopes: [...scopes],
    refreshTokenHash: refreshToken === null ? null : core.secrets.sha256(refreshToken),
    createdAt: core.clock.now(),
    revokedAt: null,
  };
  if (authorizationCodeId !== undefined) token.authorizationCodeId = authorizationCodeId;
  await core.storage.oauth.createToken(token);
  return { accessToken, refreshToken, token };
}

/** The token a refresh token was issued with (revoked or not), when refresh tokens are on. */
export async function findByRefreshToken(core: AppCore, refreshToken: string): Promise<AccessToken | null> {
  if (!core.config.refreshTokens || refreshToken === '') return null;
  return core.storage.oauth.findTokenByRefreshHash(core.secrets.sha256(refreshToken));
}

/** The token endpoint's response: token_type Bearer, the scopes space separated, created_at in
 * epoch seconds. */
export function renderToken(issued: IssuedToken): Record<string, string | number> {
  const body: Record<string, string | number> = {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    scope: issued.token.scopes.join(' '),
    created_at: Math.floor(issued.token.createdAt / 1000),
  };
  if (issued.refreshToken !== null) body['refresh_token'] = issued.refreshToken;
  return body;
}
