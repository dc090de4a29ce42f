// The browser side of the authorization code flow: the authorize page (sign-in or consent),
// the sign-in post, the decision post and the out-of-band code page. Consent is asked every
// time: nothing is approved silently. Who is signed in comes from Rookery's own session, or
// from the host app's sign-in port when it has one.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { obj, str, type Params } from '../../domain/params.ts';
import { OOB_REDIRECT_URI } from './apps.ts';
import { carriedParams, checkAuthorizeRequest, withQuery, type AuthorizeCheck, type Carried } from './authorize.ts';
import { issueCode } from './codes.ts';
import { anonymousCsrf, anonymousCsrfValid, csrfValid } from './csrf.ts';
import { descriptions } from './oauth-errors.ts';
import { codePage, consentPage, errorPage, page, refusedPage, signInPage } from './pages.ts';
import { currentSession, rotateSession, signedInOf, type BrowserSession, type SignedIn } from './sessions.ts';
import type { SignInPort } from './sign-in-port.ts';
import { checkLogin } from './user-credentials.ts';

const NATIVE_PATH = '/oauth/authorize/native';

function redirect(location: string, status = 302, cookies: readonly string[] = []): ApiResponse {
  const response: ApiResponse = { status, type: 'text', body: '', location, headers: { 'cache-control': 'no-store' } };
  if (cookies.length > 0) response.cookies = [...cookies];
  return response;
}

/** The failures that never reach a consent page. */
function refusal(core: AppCore, check: Exclude<AuthorizeCheck, { kind: 'valid' }>): ApiResponse {
  return check.kind === 'page' ? errorPage(core, check.failure, check.status) : redirect(check.location);
}

async function applicationName(core: AppCore, carried: Carried): Promise<string | null> {
  const clientId = carried.client_id;
  const application = clientId === undefined || clientId === '' ? null : await core.storage.oauth.findApplicationByClientId(clientId);
  return application?.name ?? null;
}

export interface FormToken {
  token: string;
  cookies: string[];
}

/** The CSRF token of the forms shown to this browser: its session's, or, for a browser
 * without one, a signed double-submit token (core/oauth/csrf.ts): pages read before signing in
 * store nothing. */
export function formToken(core: AppCore, request: ApiRequest, browser: BrowserSession | null): FormToken {
  return browser === null ? anonymousCsrf(core, request.cookies) : { token: browser.session.csrfToken, cookies: [] };
}

/** Whether a form post carries a token this browser was given. */
export function formPosted(core: AppCore, request: ApiRequest, browser: BrowserSession | null, params: Params): boolean {
  return (browser !== null && csrfValid(core, browser.session, params)) || anonymousCsrfValid(core, request.cookies, params);
}

function signIn(core: AppCore, form: FormToken, carried: Carried, applicationName: string | null): ApiResponse {
  return signInPage(core, { carried, csrfToken: form.token, applicationName }, { cookies: form.cookies });
}

/** Off to the host's sign-in, to come back to this authorize request (without force_login). */
function toHostSignIn(host: SignInPort, carried: Carried, status: number): ApiResponse {
  const { force_login: _done, ...resume } = carried;
  return redirect(host.signInUrl(`/oauth/authorize?${new URLSearchParams(resume).toString()}`), status);
}

/** Who is signed in, per Rookery's session or the host's port; 'unusable' when the host names
 * an account that cannot authorize (unknown, no local user, disabled). */
async function signedInFor(core: AppCore, request: ApiRequest, browser: BrowserSession | null, host: SignInPort | undefined): Promise<SignedIn | null | 'unusable'> {
  if (host === undefined) return browser?.signedIn ?? null;
  const accountId = await host.currentAccountId(request);
  if (accountId === null) return null;
  return (await signedInOf(core, accountId)) ?? 'unusable';
}

const unusable = (core: AppCore) => errorPage(core, { error: 'access_denied', description: 'This account cannot authorize applications.' }, 403);

/** GET /oauth/authorize */
export async function showAuthorize(core: AppCore, request: ApiRequest, host?: SignInPort): Promise<ApiResponse> {
  const check = await checkAuthorizeRequest(core, request.query);
  if (check.kind !== 'valid') return refusal(core, check);
  const { authorization } = check;
  const browser = await currentSession(core, request.cookies);
  const signedIn = await signedInFor(core, request, browser, host);
  if (signedIn === 'unusable') return unusable(core);
  const form = formToken(core, request, browser);
  if (signedIn === null || authorization.forceLogin) {
    return host ? toHostSignIn(host, authorization.carried, 302) : signIn(core, form, authorization.carried, authorization.application.name);
  }
  return consentPage(core, { authorization, signedIn, csrfToken: form.token }, { cookies: form.cookies });
}

/** GET /auth/sign_in: the same form, for a visit that does not come from /oauth/authorize. */
export async function showSignIn(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const carried = carriedParams(request.query);
  const browser = await currentSession(core, request.cookies);
  return signIn(core, formToken(core, request, browser), carried, await applicationName(core, carried));
}

/** The login and password under Mastodon's field names (user[email], user[password]), which
 * the form uses so that anything scripted against Mastodon's sign-in page works here; plain
 * username/password are accepted too. */
function credentialsOf(params: Params): { login: string; password: string } {
  const user = obj(params, 'user') ?? {};
  return { login: str(user, 'email') ?? str(params, 'username') ?? '', password: str(user, 'password') ?? str(params, 'password') ?? '' };
}

/** POST /auth/sign_in: on success a fresh session, then back to the authorize page. */
export async function submitSignIn(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const params = request.body;
  const browser = await currentSession(core, request.cookies);
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  const carried = carriedParams(params);
  const { login, password } = credentialsOf(params);
  const outcome = await checkLogin(core, login, password);
  if (!outcome.ok) {
    const error = outcome.reason === 'disabled' ? 'Your login is currently disabled.' : 'Invalid email or password.';
    const form = formToken(core, request, browser);
    const view = { carried, csrfToken: form.token, applicationName: await applicationName(core, carried), login, error };
    return signInPage(core, view, { status: 401, cookies: form.cookies });
  }
  // The first row this browser gets: a session, once someone has signed in.
  const fresh = await rotateSession(core, browser?.session ?? null, outcome.account.id);
  const { force_login: _done, ...resume } = carried;
  if (resume.client_id === undefined) return page(core, 'Signed in', '<p>You are signed in.</p>', { cookies: fresh.cookies });
  return redirect(`/oauth/authorize?${new URLSearchParams(resume).toString()}`, 303, fresh.cookies);
}

/** POST /oauth/authorize (Authorize) and its deny form (`_method=delete`, or DELETE itself). */
export async function submitDecision(core: AppCore, request: ApiRequest, host?: SignInPort): Promise<ApiResponse> {
  const params = { ...request.query, ...request.body };
  const browser = await currentSession(core, request.cookies);
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  const check = await checkAuthorizeRequest(core, params);
  if (check.kind !== 'valid') return refusal(core, check);
  const { application, redirectUri, scopes, state, codeChallenge, carried } = check.authorization;
  const signedIn = await signedInFor(core, request, browser, host);
  if (signedIn === 'unusable') return unusable(core);
  if (signedIn === null) return host ? toHostSignIn(host, carried, 303) : signIn(core, formToken(core, request, browser), carried, application.name);
  const oob = redirectUri === OOB_REDIRECT_URI;

  const denied = request.method === 'DELETE' || str(params, '_method')?.toLowerCase() === 'delete';
  if (denied) {
    if (oob) return errorPage(core, { error: 'access_denied', description: descriptions.access_denied });
    return redirect(withQuery(redirectUri, { error: 'access_denied', error_description: descriptions.access_denied, state }));
  }
  const code = await issueCode(core, { applicationId: application.id, accountId: signedIn.account.id, redirectUri, scopes, codeChallenge });
  if (oob) return redirect(`${NATIVE_PATH}?${new URLSearchParams({ code }).toString()}`);
  return redirect(withQuery(redirectUri, { code, state }));
}

/** GET /oauth/authorize/native: the out-of-band code, for the user to copy. */
export async function showNativeCode(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const code = str(request.query, 'code') ?? '';
  // Only something shaped like our codes is shown, so the page cannot be made to display
  // arbitrary text under this server's name.
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(code)) return errorPage(core, { error: 'invalid_request', description: descriptions.invalid_request });
  return codePage(core, code);
}
