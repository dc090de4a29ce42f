// The tokens of the links mailed for a confirmation or a password reset. Nothing is stored:
// a token is `<account id>.<expiry, in seconds>.<HMAC>`, signed under the instance's secret key
// over its purpose, account and expiry and over the state it acts on (the address waiting for
// confirmation; the password hash), compared in constant time. So it expires by itself, and it
// serves once: confirming the address, or setting a password (a fresh salted hash), changes
// what it was signed over, and every link mailed before stops working with it.

import type { Core } from '../context.ts';
import type { User } from '../model.ts';

export type EmailTokenPurpose = 'confirm' | 'reset';

/** Devise's confirm_within, as Mastodon sets it; a reset link is short-lived. */
export const TOKEN_LIFETIME_MS: Record<EmailTokenPurpose, number> = { confirm: 7 * 86_400_000, reset: 3_600_000 };

const TOKEN = /^([0-9]{1,20})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

function boundTo(purpose: EmailTokenPurpose, user: User): string {
  return purpose === 'confirm' ? `email:${user.email}` : `password:${user.passwordHash}`;
}

function signature(core: Core, purpose: EmailTokenPurpose, user: User, expires: number): string {
  return core.secrets.sign(`${purpose}:${user.accountId}:${expires}:${boundTo(purpose, user)}`);
}

export function emailToken(core: Core, purpose: EmailTokenPurpose, user: User): string {
  const expires = Math.ceil((core.clock.now() + TOKEN_LIFETIME_MS[purpose]) / 1000);
  return `${user.accountId}.${expires}.${signature(core, purpose, user, expires)}`;
}

/** The user a token was made for, while it is good (unexpired, its state unchanged, and for a
 * confirmation, the address still unconfirmed); null otherwise. */
export async function userOfToken(core: Core, purpose: EmailTokenPurpose, token: string): Promise<User | null> {
  const match = TOKEN.exec(token);
  if (match === null) return null;
  const [, accountId = '', expiresText = '', sent = ''] = match;
  const expires = Number(expiresText);
  if (expires * 1000 <= core.clock.now()) return null;
  const user = await core.storage.accounts.getUser(accountId);
  if (user === null || user.disabled) return null;
  if (purpose === 'confirm' && user.confirmedAt !== null) return null;
  return core.secrets.equal(sent, signature(core, purpose, user, expires)) ? user : null;
}
