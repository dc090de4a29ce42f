// Finding accounts the way the API exposes them: by id (GET /api/v1/accounts/:id and every
// endpoint that names a target account) and by acct (lookup, search).

import type { Core } from '../context.ts';
import { notFound, RookeryError } from '../errors.ts';
import { isId } from '../ids.ts';
import type { Account } from '../model.ts';

/** An account clients may see: local users who are not yet confirmed or approved do not
 * exist yet (GET /api/v1/accounts/:id answers 404 for them, as Mastodon does), and a deleted
 * account exists no more. */
export async function findAccount(core: Core, id: string): Promise<Account> {
  if (!isId(id)) throw notFound();
  const [account, user] = await Promise.all([core.storage.accounts.get(id), core.storage.accounts.getUser(id)]);
  if (account === null || account.deletedAt !== null) throw notFound();
  if (user !== null && (user.confirmedAt === null || !user.approved)) throw notFound();
  return account;
}

/** findAccount for lists that skip what is not found instead of failing. */
export async function findAccountOrNull(core: Core, id: string): Promise<Account | null> {
  try {
    return await findAccount(core, id);
  } catch (err) {
    if (err instanceof RookeryError && err.status === 404) return null;
    throw err;
  }
}

/** `user`, `@user`, `user@domain` or `@user@domain`; our own domain means a local account. */
export function parseAcct(core: Core, acct: string): { username: string; domain: string | null } | null {
  const [username = '', domain, ...rest] = acct.trim().replace(/^@/, '').split('@');
  if (username === '' || rest.length > 0 || domain === '') return null;
  if (domain === undefined || domain.toLowerCase() === core.config.domain.toLowerCase()) return { username, domain: null };
  return { username, domain };
}

export async function lookupAccount(core: Core, acct: string): Promise<Account> {
  const parsed = parseAcct(core, acct);
  const account = parsed === null ? null : await core.storage.accounts.findByUsername(parsed.username, parsed.domain);
  if (account === null) throw notFound();
  return findAccount(core, account.id);
}
