// Refresh tokens (opt-in: config.refreshTokens; Mastodon issues none). The storage port has
// no table of their own, so a refresh token lives in the authorization-code table, which
// already gives what rotation needs: a digest at rest and atomic single use. Its digest is
// taken over a prefixed value, so a refresh token can never pass for a code or vice versa,
// and its record names the access token it came with (by that token's digest).

import type { Core } from '../core.ts';
import type { AccessToken, AuthorizationCode } from '../model.ts';

const LINK_PREFIX = 'urn:rookery:refresh-token:';
/** Refresh tokens do not expire on their own; they end when used or revoked. */
const LIFETIME_MS = 100 * 365 * 24 * 3600 * 1000;

const digest = (core: Core, refreshToken: string) => core.secrets.sha256(`refresh:${refreshToken}`);

export async function issueRefreshToken(core: Core, accessToken: AccessToken): Promise<string> {
  if (accessToken.accountId === null) throw new Error('refresh tokens are only issued for users');
  const refreshToken = core.secrets.randomToken(32);
  const now = core.clock.now();
  await core.storage.oauth.createCode({
    id: core.ids.next(),
    codeHash: digest(core, refreshToken),
    applicationId: accessToken.applicationId,
    accountId: accessToken.accountId,
    redirectUri: `${LINK_PREFIX}${accessToken.tokenHash}`,
    scopes: [...accessToken.scopes],
    codeChallenge: null,
    createdAt: now,
    expiresAt: now + LIFETIME_MS,
    usedAt: null,
  });
  return refreshToken;
}

export interface UsedRefreshToken {
  record: AuthorizationCode;
  /** The access token issued with it; null when it no longer exists. */
  accessToken: AccessToken | null;
}

/** Uses the refresh token up; null when it is unknown or already used. */
export async function consumeRefreshToken(core: Core, refreshToken: string): Promise<UsedRefreshToken | null> {
  const record = await core.storage.oauth.consumeCode(digest(core, refreshToken), core.clock.now());
  if (record === null || !record.redirectUri.startsWith(LINK_PREFIX)) return null;
  const accessToken = await core.storage.oauth.findTokenByHash(record.redirectUri.slice(LINK_PREFIX.length));
  return { record, accessToken };
}
