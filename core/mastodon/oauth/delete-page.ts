// Deleting one's own account from the web pages, as Mastodon's /settings/delete: a signed-in
// person confirms with their password (Mastodon's field form[password]); the account is then
// deleted (core/domain/accounts/delete.ts), which ends every session and token of it. Without
// a session the page sends the browser to the sign-in page. The form carries the session's
// CSRF token; every value shown is escaped.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { deleteAccount } from '../../domain/accounts/delete.ts';
import { MAX_LENGTH } from '../../domain/lengths.ts';
import { obj, str } from '../../domain/params.ts';
import { escapeHtml as e } from '../../domain/text/index.ts';
import { CSRF_FIELD } from './csrf.ts';
import { page, refusedPage } from './pages.ts';
import { currentSession, type BrowserSession } from './sessions.ts';
import { formPosted } from './web-flow.ts';

export const DELETE_ACCOUNT_PATH = '/settings/delete';

export const deleteTexts = {
  title: 'Delete account',
  warning:
    'This will permanently, irreversibly remove your account: your posts, media, follows and notifications are deleted, and other servers are told. Your username stays reserved: nobody can sign up with it again.',
  wrongPassword: 'The information you entered was not correct',
  deleted: 'Your account was successfully deleted',
} as const;

function form(core: AppCore, browser: BrowserSession, error = ''): string {
  const username = browser.signedIn?.account.username ?? '';
  return `${error === '' ? '' : `<p class="error" role="alert">${e(error)}</p>\n`}<p>Signed in as <strong>@${e(username)}@${e(core.config.domain)}</strong>.</p>
<p>${e(deleteTexts.warning)}</p>
<form method="post" action="${DELETE_ACCOUNT_PATH}">
<input type="hidden" name="${CSRF_FIELD}" value="${e(browser.session.csrfToken)}">
<input type="hidden" name="_method" value="delete">
<label for="form_password">Your current password</label>
<input id="form_password" name="form[password]" type="password" autocomplete="current-password" required maxlength="${MAX_LENGTH.password}">
<button type="submit">Delete account</button>
</form>`;
}

/** Off to the sign-in page: the settings pages are for a signed-in person. */
export const toSignIn = (): ApiResponse => ({ status: 302, type: 'text', body: '', location: '/auth/sign_in', headers: { 'cache-control': 'no-store' } });

/** GET /settings/delete */
export async function showDeleteAccount(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const browser = await currentSession(core, request.cookies);
  if (browser?.signedIn == null) return toSignIn();
  return page(core, deleteTexts.title, form(core, browser));
}

/** POST (or DELETE) /settings/delete: the password, then the deletion. */
export async function submitDeleteAccount(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const params = request.body;
  const browser = await currentSession(core, request.cookies);
  if (browser?.signedIn == null) return toSignIn();
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  const password = str(obj(params, 'form') ?? {}, 'password') ?? '';
  const { account, user } = browser.signedIn;
  const valid = password !== '' && password.length <= MAX_LENGTH.password && (await core.secrets.verifyPassword(password, user.passwordHash));
  if (!valid) return page(core, deleteTexts.title, form(core, browser, deleteTexts.wrongPassword), { status: 422 });
  await deleteAccount(core, account, { kind: 'owner' });
  return page(core, deleteTexts.title, `<p role="status">${e(deleteTexts.deleted)}</p>`);
}
