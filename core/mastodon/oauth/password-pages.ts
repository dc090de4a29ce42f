// Password reset from the sign-in page, as Mastodon's: /auth/password/new asks for the e-mail
// address and always gives the same answer, whether or not an account has it (nobody learns
// who is registered); an account that has it gets a mail with a link that serves once and
// expires within an hour (core/domain/mail/email-tokens.ts). The link opens
// /auth/password/edit, whose form sets the new password under the sign-up's length rules. A
// new password ends the account's browser sessions and revokes all its access tokens: whoever
// held the old one is out everywhere.
//
// The forms carry the CSRF token of the sign-in form (formToken) and their posts count on the
// sign-in's limits per address (POST /auth/… in core/mastodon/rate-limits.ts), plus a limit
// per e-mail address on the mails asked for.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { TOKEN_LIFETIME_MS, userOfToken } from '../../domain/mail/email-tokens.ts';
import type { CounterStore } from '../../domain/ports/counters.ts';
import { sendPasswordReset } from '../../domain/mail/messages.ts';
import { MAX_LENGTH } from '../../domain/lengths.ts';
import { obj, str, type Params } from '../../domain/params.ts';
import { escapeHtml as e } from '../../domain/text/index.ts';
import { CSRF_FIELD } from './csrf.ts';
import { page, refusedPage } from './pages.ts';
import { currentSession } from './sessions.ts';
import { formPosted, formToken } from './web-flow.ts';

export const PASSWORD_NEW_PATH = '/auth/password/new';
export const PASSWORD_PATH = '/auth/password';

export const passwordTexts = {
  sent: "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes. Please check your spam folder if you didn't receive this email.",
  changed: 'Your password has been changed successfully.',
  invalidToken: 'Reset password token is invalid',
  blank: "Password can't be blank",
  tooShort: 'Password is too short (minimum is 8 characters)',
  tooLong: 'Password is too long (maximum is 72 characters)',
  mismatch: "Password confirmation doesn't match Password",
} as const;

/** Longer than any token we make: what a form or link may carry. */
const MAX_TOKEN = 200;

function userParams(params: Params): Params {
  return obj(params, 'user') ?? {};
}

function newForm(csrfToken: string, message = ''): string {
  return `${message === '' ? '' : `<p role="status">${e(message)}</p>\n`}<p>Enter the e-mail address of your account: we will mail you a link to choose a new password.</p>
<form method="post" action="${PASSWORD_PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${e(csrfToken)}">
<label for="user_email">E-mail address</label>
<input id="user_email" name="user[email]" type="email" autocomplete="email" required maxlength="${MAX_LENGTH.email}">
<button type="submit">Reset password</button>
</form>
<p><a href="/auth/sign_in">Sign in</a></p>`;
}

function editForm(csrfToken: string, token: string, error = ''): string {
  return `${error === '' ? '' : `<p class="error" role="alert">${e(error)}</p>\n`}<form method="post" action="${PASSWORD_PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${e(csrfToken)}">
<input type="hidden" name="_method" value="put">
<input type="hidden" name="user[reset_password_token]" value="${e(token)}">
<label for="user_password">New password</label>
<p class="hint" id="user_password_hint">8 to 72 characters.</p>
<input id="user_password" name="user[password]" type="password" autocomplete="new-password" required minlength="8" maxlength="72" aria-describedby="user_password_hint">
<label for="user_password_confirmation">Confirm new password</label>
<input id="user_password_confirmation" name="user[password_confirmation]" type="password" autocomplete="new-password" required>
<button type="submit">Change password</button>
</form>`;
}

function invalidTokenPage(core: AppCore): ApiResponse {
  const content = `<p class="error" role="alert">${e(passwordTexts.invalidToken)}</p>\n<p><a href="${PASSWORD_NEW_PATH}">Ask for a new link</a></p>`;
  return page(core, 'Change your password', content, { status: 422 });
}

/** GET /auth/password/new */
export async function showPasswordNew(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const form = formToken(core, request, await currentSession(core, request.cookies));
  return page(core, 'Forgot your password?', newForm(form.token), { cookies: form.cookies });
}

/** GET /auth/password/edit?reset_password_token=… */
export async function showPasswordEdit(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const token = (str(request.query, 'reset_password_token') ?? '').slice(0, MAX_TOKEN);
  if ((await userOfToken(core, 'reset', token)) === null) return invalidTokenPage(core);
  const form = formToken(core, request, await currentSession(core, request.cookies));
  return page(core, 'Change your password', editForm(form.token, token), { cookies: form.cookies });
}

/** POST /auth/password: a mail asked for, or (`_method=put`) the new password. */
export async function submitPassword(core: AppCore, request: ApiRequest, counters: CounterStore): Promise<ApiResponse> {
  const params = request.body;
  const browser = await currentSession(core, request.cookies);
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  if (str(params, '_method')?.toLowerCase() === 'put') return changePassword(core, request, params, counters);
  const email = (str(userParams(params), 'email') ?? '').trim();
  if (email !== '' && email.length <= MAX_LENGTH.email) {
    const user = await core.storage.accounts.findUserByEmail(email);
    if (user !== null && !user.disabled) await sendPasswordReset(core, user);
  }
  const form = formToken(core, request, browser);
  return page(core, 'Forgot your password?', newForm(form.token, passwordTexts.sent), { cookies: form.cookies });
}

/** true the first time a token is spent (atomically, across the processes sharing the
 * counters); the entry lasts as long as a token may. A store that cannot count (it answers 0)
 * lets it through, as the rate limits do: the new hash still ends the token. */
async function spendResetToken(core: AppCore, counters: CounterStore, token: string): Promise<boolean> {
  const now = core.clock.now();
  const [uses = 0] = await counters.add([{ key: `password:reset:${core.secrets.sha256(token)}`, amount: 1, expiresAt: now + TOKEN_LIFETIME_MS.reset }], now);
  return uses <= 1;
}

function passwordError(password: string, confirmation: string): string | null {
  if (password === '') return passwordTexts.blank;
  if (password.length < 8) return passwordTexts.tooShort;
  if (password.length > 72) return passwordTexts.tooLong;
  if (password !== confirmation) return passwordTexts.mismatch;
  return null;
}

async function changePassword(core: AppCore, request: ApiRequest, params: Params, counters: CounterStore): Promise<ApiResponse> {
  const fields = userParams(params);
  const token = (str(fields, 'reset_password_token') ?? '').slice(0, MAX_TOKEN);
  const user = await userOfToken(core, 'reset', token);
  if (user === null) return invalidTokenPage(core);
  const password = str(fields, 'password') ?? '';
  const error = passwordError(password, str(fields, 'password_confirmation') ?? '');
  if (error !== null) {
    const form = formToken(core, request, await currentSession(core, request.cookies));
    return page(core, 'Change your password', editForm(form.token, token, error), { status: 422, cookies: form.cookies });
  }
  // Spent before it acts: two posts of one link at once (which both read the old hash) change
  // the password once. The new hash then ends the token, and every way in ends.
  if (!(await spendResetToken(core, counters, token))) return invalidTokenPage(core);
  await core.storage.accounts.updateUser(user.accountId, { passwordHash: await core.secrets.hashPassword(password) });
  const now = core.clock.now();
  const revoked = await core.storage.oauth.revokeTokensOfAccount(user.accountId, now);
  // Their streams close as a revoked token's do.
  await core.enqueue(revoked.flatMap((tokenId) => core.record({ type: 'token.revoked', tokenId, accountId: user.accountId })));
  await core.storage.oauth.deleteSessionsOf(user.accountId);
  return page(core, 'Password changed', `<p role="status">${e(passwordTexts.changed)}</p>\n<p><a href="/auth/sign_in">Sign in</a></p>`);
}
