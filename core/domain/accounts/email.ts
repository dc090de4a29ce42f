// A new e-mail address for a user whose address is still unconfirmed (the confirmation resend
// with `email`): checked as at sign-up, then set at once. While unconfirmed the account cannot
// act, so there is no confirmed address to keep until the new one is confirmed; the links
// mailed to the old address stop working (their tokens were signed over it).

import type { Core } from '../context.ts';
import { validationFailed } from '../errors.ts';
import { MAX_LENGTH } from '../lengths.ts';
import type { User } from '../model.ts';
import { StorageConflict } from '../ports/storage.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const emailError = (code: string, description: string) => validationFailed([{ field: 'email', label: 'Email', code, description }]);

export async function changeUnconfirmedEmail(core: Core, user: User, email: string): Promise<User> {
  if (email === '') throw emailError('ERR_BLANK', "can't be blank");
  // Length first: the pattern backtracks on long inputs.
  if (email.length > MAX_LENGTH.email || !EMAIL.test(email)) throw emailError('ERR_INVALID', 'is invalid');
  if (email === user.email) return user;
  try {
    const changed = await core.storage.accounts.changeEmail(user.accountId, email);
    if (changed === null) throw new Error('the user of a signed-in account is missing');
    return changed;
  } catch (err) {
    if (err instanceof StorageConflict && err.rule === 'email') throw emailError('ERR_TAKEN', 'is already taken');
    throw err;
  }
}
