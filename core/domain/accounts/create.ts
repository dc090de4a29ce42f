// Creating a local account with its user: the validations and texts of Mastodon's sign-up
// (docs/behaviour.md, "OAuth" and "Limits"), reported all at once as Mastodon does:
// 422 {"error": "Validation failed: …, …", "details": {"username": [{"error": "ERR_TAKEN", …}]}}.

import type { RoleName } from '../moderation/roles.ts';
import type { Core } from '../context.ts';
import { forbidden, validationFailed, type FieldError } from '../errors.ts';
import type { ParsedIp } from '../ip.ts';
import { ipSeverities } from '../moderation/ip-blocks.ts';
import { MAX_LENGTH } from '../lengths.ts';
import type { Account, Id, User } from '../model.ts';
import { StorageConflict } from '../ports/storage.ts';
import { emailBlockErrors } from '../moderation/email-blocks.ts';
import { sendConfirmation } from '../mail/messages.ts';

export interface NewLocalAccount {
  username: string;
  email: string;
  password: string;
  displayName?: string;
  locale?: string;
  /** Whether the agreement to the rules was given (registration requires it). */
  agreement?: boolean;
  /** Why the person wants to join; required when sign-ups need approval. */
  reason?: string;
  reasonRequired?: boolean;
  confirmed?: boolean;
  approved?: boolean;
  bot?: boolean;
  /** A staff role (the operator's CLI gives one); none by default. */
  role?: RoleName | null;
  applicationId?: Id | null;
  /** Where a public sign-up comes from: the admins' IP blocks refuse it (sign_up_block,
   * no_access) or hold it for approval (sign_up_requires_approval). */
  signUpIp?: ParsedIp | null;
}

const SUPPORTED_LOCALES = new Set(['ar', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'en-GB', 'eo', 'es', 'eu', 'fa', 'fi', 'fr', 'ga', 'gd', 'gl', 'he', 'hu', 'id', 'is', 'it', 'ja', 'ko', 'nl', 'nn', 'no', 'pl', 'pt', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh-CN', 'zh-TW']);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LABELS: Record<string, string> = { username: 'Username', email: 'Email', password: 'Password', agreement: 'Agreement', locale: 'Locale', reason: 'Reason', display_name: 'Display name' };

function fieldError(field: string, code: string, description: string): FieldError {
  return { field, label: LABELS[field] ?? field, code, description };
}

function validate(core: Core, input: NewLocalAccount, requireAgreement: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const username = input.username;
  if (username === '') errors.push(fieldError('username', 'ERR_BLANK', "can't be blank"));
  else if (!/^[a-z0-9_]+$/i.test(username)) errors.push(fieldError('username', 'ERR_INVALID', 'must contain only letters, numbers and underscores'));
  else if (username.length > 30) errors.push(fieldError('username', 'ERR_TOO_LONG', 'is too long (maximum is 30 characters)'));
  else if (core.config.reservedUsernames.includes(username.toLowerCase())) errors.push(fieldError('username', 'ERR_RESERVED', 'is reserved'));
  if (input.email === '') errors.push(fieldError('email', 'ERR_BLANK', "can't be blank"));
  // Length first: the pattern backtracks on long inputs.
  else if (input.email.length > MAX_LENGTH.email || !EMAIL.test(input.email)) errors.push(fieldError('email', 'ERR_INVALID', 'is invalid'));
  if (input.password === '') errors.push(fieldError('password', 'ERR_BLANK', "can't be blank"));
  else if (input.password.length < 8) errors.push(fieldError('password', 'ERR_TOO_SHORT', 'is too short (minimum is 8 characters)'));
  else if (input.password.length > 72) errors.push(fieldError('password', 'ERR_TOO_LONG', 'is too long (maximum is 72 characters)'));
  if (requireAgreement && input.agreement !== true) errors.push(fieldError('agreement', 'ERR_ACCEPTED', 'must be accepted'));
  if (input.locale !== undefined && input.locale !== '' && !SUPPORTED_LOCALES.has(input.locale)) {
    errors.push(fieldError('locale', 'ERR_INCLUSION', 'is not included in the list'));
  }
  if ((input.displayName ?? '').length > MAX_LENGTH.displayName) {
    errors.push(fieldError('display_name', 'ERR_TOO_LONG', `is too long (maximum is ${MAX_LENGTH.displayName} characters)`));
  }
  if (input.reasonRequired === true && (input.reason ?? '').trim() === '') errors.push(fieldError('reason', 'ERR_BLANK', "can't be blank"));
  else if ((input.reason ?? '').length > MAX_LENGTH.signUpReason) {
    errors.push(fieldError('reason', 'ERR_TOO_LONG', `is too long (maximum is ${MAX_LENGTH.signUpReason} characters)`));
  }
  return errors;
}

/** Validates and creates the account and its user in one atomic write. With `requireAgreement`
 * (public sign-up) the rules must have been accepted. */
export async function createLocalAccount(core: Core, input: NewLocalAccount, requireAgreement = false): Promise<{ account: Account; user: User }> {
  // As Mastodon's AppSignUpService: refused before anything is validated.
  const severities = input.signUpIp === undefined ? new Set<string>() : await ipSeverities(core, input.signUpIp);
  if (severities.has('sign_up_block') || severities.has('no_access')) throw forbidden();
  const errors = validate(core, input, requireAgreement);
  const taken = errors.some((e) => e.field === 'username') ? null : await core.storage.accounts.findByUsername(input.username, null);
  if (taken) errors.push(fieldError('username', 'ERR_TAKEN', 'is already taken'));
  const emailTaken = errors.some((e) => e.field === 'email') ? null : await core.storage.accounts.findUserByEmail(input.email);
  if (emailTaken) errors.push(fieldError('email', 'ERR_TAKEN', 'is already taken'));
  // Public sign-up (the API and the web form) honours the admins' e-mail blocks.
  else if (requireAgreement && !errors.some((e) => e.field === 'email')) errors.push(...(await emailBlockErrors(core, input.email)));
  if (errors.length > 0) throw validationFailed(sortByField(errors));

  const now = core.clock.now();
  const account: Account = {
    id: core.ids.next(),
    username: input.username,
    domain: null,
    displayName: input.displayName ?? '',
    note: '',
    locked: false,
    bot: input.bot ?? false,
    discoverable: true,
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    url: null,
    uri: null,
    createdAt: now,
    statusesCount: 0,
    followersCount: 0,
    followingCount: 0,
    lastStatusAt: null,
    role: input.role ?? null,
    deletedAt: null,
    movedToAccountId: null,
    alsoKnownAs: [],
  };
  const user: User = {
    accountId: account.id,
    email: input.email,
    passwordHash: await core.secrets.hashPassword(input.password),
    createdAt: now,
    confirmedAt: input.confirmed === false ? null : now,
    approved: severities.has('sign_up_requires_approval') ? false : (input.approved ?? true),
    disabled: false,
    locale: input.locale !== undefined && input.locale !== '' ? input.locale : 'en',
    createdByApplicationId: input.applicationId ?? null,
    settings: { defaultVisibility: 'public', defaultSensitive: false, defaultLanguage: null, expandMedia: 'default', expandSpoilers: false },
  };
  try {
    await core.storage.accounts.create(account, user);
  } catch (err) {
    // Lost a race with another sign-up between the checks above and the write.
    if (err instanceof StorageConflict && (err.rule === 'username' || err.rule === 'email')) {
      throw validationFailed([fieldError(err.rule, 'ERR_TAKEN', 'is already taken')]);
    }
    throw err;
  }
  // After the write: the storage port records no events with a new account, and the one
  // listener (federation's keys) has a fallback, so a crash in between loses nothing.
  await core.enqueue(core.record({ type: 'account.created', account }));
  // An address waiting for confirmation gets its link (a mail job, sent after this answer).
  if (user.confirmedAt === null) await sendConfirmation(core, user, account.username);
  return { account, user };
}

function sortByField(errors: FieldError[]): FieldError[] {
  const order = ['username', 'email', 'password', 'agreement', 'locale', 'reason', 'display_name'];
  return [...errors].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
}
