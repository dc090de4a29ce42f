// Checking a person's login (e-mail address or username) and password: shared by the sign-in
// page and the password grant.

import { maySignIn } from '../../domain/policy.ts';
import type { AppCore } from '../context.ts';
import { MAX_LENGTH } from '../../domain/lengths.ts';
import type { Account, User } from '../../domain/model.ts';

export type LoginOutcome = { ok: true; account: Account; user: User } | { ok: false; reason: 'invalid' | 'disabled' };

// A hash to verify against when no user matches, so that an unknown login costs as much time
// as a wrong password and does not reveal which logins exist.
const decoys = new WeakMap<AppCore, Promise<string>>();

function decoyHash(core: AppCore): Promise<string> {
  let hash = decoys.get(core);
  if (hash === undefined) {
    hash = core.secrets.hashPassword(core.secrets.randomToken(16));
    decoys.set(core, hash);
  }
  return hash;
}

async function byUsername(core: AppCore, username: string): Promise<{ account: Account; user: User } | null> {
  const account = await core.storage.accounts.findByUsername(username, null);
  const user = account === null ? null : await core.storage.accounts.getUser(account.id);
  return account !== null && user !== null ? { account, user } : null;
}

/** An e-mail address, a username, or the person's handle here (@name, name@this.domain). */
async function findUser(core: AppCore, login: string): Promise<{ account: Account; user: User } | null> {
  const handle = /^@?([A-Za-z0-9_]+)(?:@(.+))?$/.exec(login);
  if (!login.includes('@') || (login.startsWith('@') && handle?.[2] === undefined)) return byUsername(core, handle?.[1] ?? login);
  const user = await core.storage.accounts.findUserByEmail(login.replace(/^@/, ''));
  const account = user === null ? null : await core.storage.accounts.get(user.accountId);
  if (user !== null && account !== null) return { account, user };
  const here = handle?.[2]?.toLowerCase() === core.config.domain.toLowerCase();
  return here && handle?.[1] !== undefined ? byUsername(core, handle[1]) : null;
}

export async function checkLogin(core: AppCore, login: string, password: string): Promise<LoginOutcome> {
  // Longer than any login or password can be: refused before a lookup or a hash (scrypt's
  // cost grows with the password's length), and saying so reveals nothing about anyone.
  if (login.length > MAX_LENGTH.login || password.length > MAX_LENGTH.password) return { ok: false, reason: 'invalid' };
  const trimmed = login.trim();
  const found = trimmed === '' ? null : await findUser(core, trimmed);
  const valid = await core.secrets.verifyPassword(password, found?.user.passwordHash ?? (await decoyHash(core)));
  if (found === null || !valid || password === '' || found.account.deletedAt !== null) return { ok: false, reason: 'invalid' };
  if (!maySignIn(found.account, found.user)) return { ok: false, reason: 'disabled' };
  return { ok: true, ...found };
}
