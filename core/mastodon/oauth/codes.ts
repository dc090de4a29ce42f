// Authorization codes: random, stored only as a digest, single use (the store consumes them
// atomically), short-lived, and bound to the client, the redirect URI, the scopes and the PKCE
// challenge they were issued with.

import type { AppCore } from '../context.ts';
import type { AuthorizationCode, Id } from '../../domain/model.ts';

export interface CodeGrant {
  applicationId: Id;
  accountId: Id;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string | null;
}

/** Returns the code itself, shown once to the user agent and never stored. */
export async function issueCode(core: AppCore, grant: CodeGrant): Promise<string> {
  const code = core.secrets.randomToken(32);
  const now = core.clock.now();
  const record: AuthorizationCode = {
    id: core.ids.next(),
    codeHash: core.secrets.sha256(code),
    applicationId: grant.applicationId,
    accountId: grant.accountId,
    redirectUri: grant.redirectUri,
    scopes: [...grant.scopes],
    codeChallenge: grant.codeChallenge,
    createdAt: now,
    expiresAt: now + core.config.limits.authorizationCodeSeconds * 1000,
    usedAt: null,
  };
  await core.storage.oauth.createCode(record);
  return code;
}

/** The code's grant, used up by this call; null when unknown, already used or expired. */
export function consumeCode(core: AppCore, code: string): Promise<AuthorizationCode | null> {
  return core.storage.oauth.consumeCode(core.secrets.sha256(code), core.clock.now());
}

/** RFC 6749 §4.1.2: a code used a second time is refused, and the tokens issued for it are
 * revoked (whoever replays it may have stolen it), each revocation recorded as for
 * /oauth/revoke so that live streams opened with them close. */
export async function revokeReplayedCode(core: AppCore, code: string): Promise<void> {
  await core.storage.oauth.revokeTokensOfCode(core.secrets.sha256(code), core.clock.now(), (revoked) =>
    revoked.flatMap((token) => core.record({ type: 'token.revoked', tokenId: token.id, accountId: token.accountId })),
  );
}
