// The HTML pages of the authorization flow: sign-in, consent, the out-of-band code and errors.
// Plain documents that work without JavaScript; every interpolated value goes through
// escapeHtml. They are never cached (they carry CSRF tokens and codes), never framed
// (clickjacking the Authorize button), and leak no referrer (the code page's URL holds a code).

import type { ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { escapeHtml as e } from '../../domain/text/index.ts';
import { acct } from '../../domain/urls.ts';
import { OOB_REDIRECT_URI } from './apps.ts';
import type { AuthorizeError, Carried, ValidAuthorization } from './authorize.ts';
import { CSRF_FIELD } from './csrf.ts';
import { scopeLabel } from './scope-labels.ts';
import type { SignedIn } from './sessions.ts';

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'private, no-store',
  pragma: 'no-cache',
  'x-frame-options': 'DENY',
  // No script at all; only our inline styles. (No form-action: the approve post must be free to
  // redirect to the client's own URI, custom schemes included.)
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f8;color:#1b1b24}
main{max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
label{display:block;margin-top:1rem;font-weight:600}
input[type=text],input[type=password],input[type=email],textarea{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;margin-top:.25rem}
button{font:inherit;padding:.5rem 1.25rem;margin-top:1rem;border-radius:4px;border:1px solid #595aff;background:#595aff;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1b1b24;border-color:#8a8a99}
.actions{display:flex;gap:.75rem}
.error{color:#a0001c;font-weight:600}
a{color:#3a3bd4}
:focus-visible{outline:3px solid #1b1b24;outline-offset:2px}
.hint{color:#4a4a57;font-size:.9rem;margin:.25rem 0 0}
.check{display:flex;gap:.5rem;align-items:flex-start;margin-top:1rem;font-weight:600}
.check input{margin-top:.35rem}
.code{display:block;padding:1rem;font:1.1rem/1.4 ui-monospace,monospace;word-break:break-all;background:#eef;border:1px solid #99c;user-select:all}
`;

export interface PageOptions {
  status?: number;
  cookies?: readonly string[];
  /** The document's <title>, when it is not "<heading> - <instance title>". */
  documentTitle?: string;
}

export function page(core: AppCore, title: string, content: string, options: PageOptions = {}): ApiResponse {
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(options.documentTitle ?? `${title} - ${core.config.title}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${e(title)}</h1>
${content}
</main>
</body>
</html>
`;
  const response: ApiResponse = { status: options.status ?? 200, type: 'html', body: html, headers: { ...PAGE_HEADERS } };
  if (options.cookies !== undefined && options.cookies.length > 0) response.cookies = [...options.cookies];
  return response;
}

function hiddenFields(values: Readonly<Record<string, string | undefined>>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('\n');
}

export interface SignInPage {
  carried: Carried;
  csrfToken: string;
  applicationName: string | null;
  login?: string;
  error?: string;
}

export function signInPage(core: AppCore, view: SignInPage, options: PageOptions = {}): ApiResponse {
  const { force_login: _dropped, ...carried } = view.carried;
  const purpose = view.applicationName === null ? '' : ` to continue to <strong>${e(view.applicationName)}</strong>`;
  const content = `<p>Sign in to ${e(core.config.title)} (${e(core.config.domain)})${purpose}.</p>
${view.error === undefined ? '' : `<p class="error" role="alert">${e(view.error)}</p>`}
<form method="post" action="/auth/sign_in">
${hiddenFields({ [CSRF_FIELD]: view.csrfToken, ...carried })}
<label for="user_email">E-mail address or username</label>
<input id="user_email" name="user[email]" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${e(view.login ?? '')}">
<label for="user_password">Password</label>
<input id="user_password" name="user[password]" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p><a href="/auth/password/new">Forgot your password?</a></p>`;
  return page(core, 'Sign in', content, options);
}

export interface ConsentPage {
  authorization: ValidAuthorization;
  signedIn: SignedIn;
  csrfToken: string;
}

export function consentPage(core: AppCore, view: ConsentPage, options: PageOptions = {}): ApiResponse {
  const { application, redirectUri, scopes } = view.authorization;
  const { force_login: _dropped, ...carried } = view.authorization.carried;
  const fields = hiddenFields({ [CSRF_FIELD]: view.csrfToken, ...carried });
  const website = application.website === null ? '' : `<p>Website: <a href="${e(application.website)}" rel="noopener noreferrer">${e(application.website)}</a></p>`;
  const destination =
    redirectUri === OOB_REDIRECT_URI
      ? '<p>After you authorize it, you will be shown a code to paste into the application.</p>'
      : `<p>After you decide, you will be sent back to <code>${e(redirectUri)}</code>.</p>`;
  const items = scopes.map((scope) => `<li><code>${e(scope)}</code>: ${e(scopeLabel(scope))}</li>`).join('\n');
  const switchUser = new URLSearchParams({ ...carried, force_login: 'true' }).toString();
  const content = `<p><strong>${e(application.name)}</strong> would like permission to access your account, <strong>@${e(acct(view.signedIn.account))}@${e(core.config.domain)}</strong>. It is a third-party application. If you do not trust it, do not authorize it.</p>
${website}
<h2>It will be able to</h2>
<ul>
${items}
</ul>
${destination}
<div class="actions">
<form method="post" action="/oauth/authorize">
${fields}
<button type="submit">Authorize</button>
</form>
<form method="post" action="/oauth/authorize">
${fields}
<input type="hidden" name="_method" value="delete">
<button type="submit" class="secondary">Deny</button>
</form>
</div>
<p><a href="/oauth/authorize?${e(switchUser)}">Not you? Sign in with another account</a></p>`;
  return page(core, 'Authorization required', content, options);
}

export function codePage(core: AppCore, code: string): ApiResponse {
  const content = `<p id="code-help">Copy this authorization code and paste it to the application.</p>
<p><code id="authorization-code" class="code" aria-describedby="code-help">${e(code)}</code></p>`;
  return page(core, 'Authorization code', content);
}

export function errorPage(core: AppCore, failure: AuthorizeError, status = 400): ApiResponse {
  const content = `<p role="alert">${e(failure.description)}</p>
<p>Error code: <code>${e(failure.error)}</code></p>`;
  return page(core, 'An error has occurred', content, { status });
}

/** A form post without the session's CSRF token: nothing was done. */
export function refusedPage(core: AppCore): ApiResponse {
  const content = `<p role="alert">This form has expired or did not come from this site, so nothing was done.</p>
<p>Go back to the application and start signing in again.</p>`;
  return page(core, 'Request refused', content, { status: 403 });
}
