// The standalone instance's own small web front: a page at / that says what this server is (its
// description, rules and contact) with links to sign in and, while registrations are open, a
// sign-up form at /auth/sign_up. Plain HTML that needs no JavaScript; every interpolated value
// is escaped; the form carries the session's CSRF token and is answered only on this origin.
//
// A web sign-up is an account created exactly as POST /api/v1/accounts creates one
// (host/accounts/create.ts: the same checks and texts), under the same registration settings:
// closed registrations refuse it, approval mode asks for a reason and leaves the account waiting
// for approval, e-mail confirmation leaves it unconfirmed. It does not sign the person in: they
// sign in from their app, through /oauth/authorize, like everyone else.
//
// It is limited as the API is: every sign-up the form attempts counts on the counters of
// POST /api/v1/accounts (one budget per address, and per e-mail address, for both ways in),
// and over the limit the form answers 429 with a page of its own and Retry-After. Each form
// carries a token that serves one attempt: a post replayed, or sent twice, creates nothing more.

import {
  checkOptions,
  escapeHtml as e,
  option,
  RookeryError,
  str,
  type ApiRequest,
  type ApiResponse,
  type Endpoint,
  type Params,
  type PluginHost,
  type RookeryPlugin,
} from 'rookery/plugin-kit';

export interface FrontPluginOptions {
  /** Where the "Sign in" link goes (default Rookery's own /auth/sign_in). */
  signInUrl?: string;
}

export const SIGN_UP_PATH = '/auth/sign_up';

/** What the sign-up form sent, under the form's own field names. */
interface SignUpForm {
  username: string;
  email: string;
  password: string;
  passwordConfirmation: string;
  agreement: boolean;
  reason: string;
}

type FieldErrors = Partial<Record<'username' | 'email' | 'password' | 'password_confirmation' | 'agreement' | 'reason', string[]>>;

const LABELS: Record<keyof FieldErrors, string> = {
  username: 'Username',
  email: 'E-mail address',
  password: 'Password',
  password_confirmation: 'Confirm password',
  agreement: 'I agree to the rules',
  reason: 'Why do you want to join?',
};

/** How an error message names each field ("Reason can't be blank"). */
const NAMES: Record<keyof FieldErrors, string> = {
  username: 'Username',
  email: 'E-mail address',
  password: 'Password',
  password_confirmation: 'Password confirmation',
  agreement: 'Agreement',
  reason: 'Reason',
};

function formOf(params: Params): SignUpForm {
  return {
    username: (str(params, 'username') ?? '').trim(),
    email: (str(params, 'email') ?? '').trim(),
    password: str(params, 'password') ?? '',
    passwordConfirmation: str(params, 'password_confirmation') ?? '',
    agreement: str(params, 'agreement') === '1',
    reason: str(params, 'reason') ?? '',
  };
}

const ORIGIN_OF = new WeakMap<PluginHost, string>();

/** A post that says it comes from another site or origin is refused, whatever it carries: the
 * browser's Sec-Fetch-Site, else its Origin (which is "null" on our own pages, as they send no
 * referrer; the CSRF token decides then). */
function sameOrigin(host: PluginHost, request: ApiRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers['origin'];
  if (origin === undefined || origin === '' || origin === 'null') return true;
  let ours = ORIGIN_OF.get(host);
  if (ours === undefined) {
    ours = new URL(host.config.baseUrl).origin;
    ORIGIN_OF.set(host, ours);
  }
  return origin === ours;
}

function rulesList(host: PluginHost): string {
  if (host.config.rules.length === 0) return '';
  return `<ol id="rules">\n${host.config.rules.map((rule) => `<li>${e(rule)}</li>`).join('\n')}\n</ol>`;
}

function contact(host: PluginHost): string {
  const email = host.config.contactEmail;
  return email === '' ? '' : `<h2>Contact</h2>\n<p><a href="mailto:${e(email)}">${e(email)}</a></p>`;
}

function registrationNote(host: PluginHost): string {
  const { open, approvalRequired, confirmationRequired } = host.config.registrations;
  if (!open) return '<p>Sign-ups are closed on this server.</p>';
  const notes = [
    approvalRequired ? 'New accounts wait for approval by the staff of this server.' : '',
    confirmationRequired ? 'New accounts can be used once their e-mail address is confirmed.' : '',
  ].filter((note) => note !== '');
  return `<p><a href="${SIGN_UP_PATH}">Create an account</a></p>${notes.map((note) => `\n<p class="hint">${e(note)}</p>`).join('')}`;
}

function frontPage(host: PluginHost, signInUrl: string): ApiResponse {
  const { config } = host;
  const rules = rulesList(host);
  const content = `<p>${e(config.description)}</p>
<p>This is a Mastodon-compatible server. Use it from any Mastodon app (Elk, Phanpy, Tusky, Ivory …): when the app asks for your server, enter <strong>${e(config.domain)}</strong>.</p>
<h2>Your account</h2>
<p><a href="${e(signInUrl)}">Sign in</a></p>
${registrationNote(host)}
${rules === '' ? '' : `<h2>Rules</h2>\n${rules}`}
${contact(host)}`;
  return host.web.page(config.title, content, { documentTitle: config.title });
}

function closedPage(host: PluginHost): ApiResponse {
  return host.web.page('Sign-ups are closed', '<p role="alert">This server does not take new sign-ups at the moment.</p><p><a href="/">Back to the front page</a></p>', {
    status: 403,
  });
}

/** A labelled form control with its hint and its errors, tied to it for screen readers;
 * `control` gets the control's extra attributes (aria-describedby, aria-invalid). */
function field(name: keyof FieldErrors, errors: FieldErrors, control: (attributes: string) => string, hint = ''): string {
  const messages = errors[name] ?? [];
  const id = `signup_${name}`;
  const described = [hint === '' ? '' : `${id}_hint`, messages.length === 0 ? '' : `${id}_error`].filter((s) => s !== '').join(' ');
  const attributes = `${described === '' ? '' : ` aria-describedby="${described}"`}${messages.length === 0 ? '' : ' aria-invalid="true"'}`;
  const hintHtml = hint === '' ? '' : `\n<p class="hint" id="${id}_hint">${e(hint)}</p>`;
  const errorHtml = messages.length === 0 ? '' : `\n<p class="error" id="${id}_error">${messages.map((m) => e(`${NAMES[name]} ${m}`)).join('<br>')}</p>`;
  return `<label for="${id}">${e(LABELS[name])}</label>${hintHtml}\n${control(attributes)}${errorHtml}`;
}

interface SignUpView {
  csrfToken: string;
  signInUrl: string;
  form?: SignUpForm;
  errors?: FieldErrors;
  summary?: string;
}

function signUpPage(host: PluginHost, view: SignUpView, options: { status?: number; cookies?: readonly string[] } = {}): ApiResponse {
  const { config } = host;
  const form = view.form;
  const errors = view.errors ?? {};
  const approval = config.registrations.approvalRequired;
  const rules = rulesList(host);
  const summary = view.summary === undefined ? '' : `<p class="error" role="alert">${e(view.summary)}</p>`;
  const content = `<p>Create an account on ${e(config.title)} (${e(config.domain)}).</p>
${summary}
<form method="post" action="${SIGN_UP_PATH}" novalidate>
<input type="hidden" name="${host.web.csrfField}" value="${e(view.csrfToken)}">
${field('username', errors, (a) => `<input id="signup_username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="30" value="${e(form?.username ?? '')}"${a}>`, `Letters, numbers and underscores. Your handle will be @name@${config.domain}.`)}
${field('email', errors, (a) => `<input id="signup_email" name="email" type="email" autocomplete="email" required value="${e(form?.email ?? '')}"${a}>`)}
${field('password', errors, (a) => `<input id="signup_password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="72"${a}>`, '8 to 72 characters.')}
${field('password_confirmation', errors, (a) => `<input id="signup_password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required${a}>`)}
${approval ? field('reason', errors, (a) => `<textarea id="signup_reason" name="reason" rows="3" required${a}>${e(form?.reason ?? '')}</textarea>`, 'Sign-ups on this server are approved by its staff.') : ''}
${rules === '' ? '' : `<h2>Rules</h2>\n${rules}`}
${agreement(errors, form?.agreement ?? false)}
<button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="${e(view.signInUrl)}">Sign in</a></p>`;
  return host.web.page('Sign up', content, options);
}

function agreement(errors: FieldErrors, checked: boolean): string {
  const messages = errors.agreement ?? [];
  const error = messages.length === 0 ? '' : `\n<p class="error" id="signup_agreement_error">${messages.map((m) => e(`${NAMES.agreement} ${m}`)).join('<br>')}</p>`;
  const attributes = messages.length === 0 ? '' : ' aria-invalid="true" aria-describedby="signup_agreement_error"';
  return `<label class="check" for="signup_agreement"><input id="signup_agreement" name="agreement" type="checkbox" value="1" required${checked ? ' checked' : ''}${attributes}> ${e(LABELS.agreement)}</label>${error}`;
}

function doneText(host: PluginHost): string {
  const { approvalRequired, confirmationRequired } = host.config.registrations;
  if (approvalRequired) return 'Your sign-up is waiting for approval by the staff of this server. You can sign in once it is approved.';
  if (confirmationRequired) return 'We sent a link to your e-mail address: open it to confirm the address, then you can use your account.';
  return 'Your account is ready: sign in from your Mastodon app, or below.';
}

function welcomePage(host: PluginHost, username: string, signInUrl: string): ApiResponse {
  const content = `<p role="status">Welcome, <strong>@${e(username)}@${e(host.config.domain)}</strong>. ${e(doneText(host))}</p>
<p><a href="${e(signInUrl)}">Sign in</a></p>
<p><a href="/">Back to the front page</a></p>`;
  return host.web.page('Account created', content);
}

/** The 422 of createLocalAccount as messages per form field. */
function fieldErrorsOf(err: RookeryError): FieldErrors {
  const details = (err.extra['details'] ?? {}) as Record<string, { description: string }[]>;
  const errors: FieldErrors = {};
  for (const [name, list] of Object.entries(details)) {
    if (name in LABELS) errors[name as keyof FieldErrors] = list.map((d) => d.description);
  }
  return errors;
}

function tooManyPage(host: PluginHost, retryAfterSeconds: number): ApiResponse {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const content = `<p role="alert">Too many sign-ups have come from your network lately, so this one was not made. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>
<p><a href="/">Back to the front page</a></p>`;
  const page = host.web.page('Too many sign-ups', content, { status: 429 });
  return { ...page, headers: { ...page.headers, 'retry-after': String(retryAfterSeconds) } };
}

function usedPage(host: PluginHost): ApiResponse {
  const content = `<p role="alert">This form was already sent once, so nothing more was done.</p>
<p><a href="${SIGN_UP_PATH}">Open the sign-up form again</a></p>`;
  return host.web.page('Form already sent', content, { status: 403 });
}

// Each form shown carries a single-use token (bound to the browser as the sign-in pages' tokens
// are): showing the form stores nothing.
async function showSignUp(host: PluginHost, request: ApiRequest, signInUrl: string): Promise<ApiResponse> {
  if (!host.config.registrations.open) return closedPage(host);
  const form = host.web.singleUseToken(request, await host.web.session(request.cookies));
  return signUpPage(host, { csrfToken: form.token, signInUrl }, { cookies: form.cookies });
}

async function submitSignUp(host: PluginHost, request: ApiRequest, signInUrl: string): Promise<ApiResponse> {
  const { registrations } = host.config;
  if (!registrations.open) return closedPage(host);
  const browser = await host.web.session(request.cookies);
  if (!sameOrigin(host, request) || !host.web.singleUsePosted(request, browser, request.body)) return host.web.refusedPage();
  const form = formOf(request.body);
  // An attempt from this browser: counted as the API counts one, before anything is checked;
  // the token is spent only when the attempt may go on, so a refused one can be sent again later.
  const retryAfter = await host.web.countSignUp(request, form.email);
  if (retryAfter !== null) return tooManyPage(host, retryAfter);
  if (!(await host.web.spendSingleUse(request, browser, request.body))) return usedPage(host);
  // The form comes back with a fresh token for the next attempt.
  const token = host.web.singleUseToken(request, browser);
  const retry = (errors: FieldErrors, summary: string) => signUpPage(host, { csrfToken: token.token, signInUrl, form, errors, summary }, { status: 422, cookies: token.cookies });
  if (form.password !== '' && form.password !== form.passwordConfirmation) {
    return retry({ password_confirmation: ["doesn't match Password"] }, "Validation failed: Password confirmation doesn't match Password");
  }
  try {
    await host.accounts.signUp(
      {
        username: form.username,
        email: form.email,
        password: form.password,
        agreement: form.agreement,
        reason: form.reason,
        reasonRequired: registrations.approvalRequired,
        confirmed: !registrations.confirmationRequired,
        approved: !registrations.approvalRequired,
        applicationId: null,
      },
      true,
      request,
    );
  } catch (err) {
    if (err instanceof RookeryError && err.status === 422) return retry(fieldErrorsOf(err), err.message);
    // An IP block refuses sign-up from here: the page a closed server shows.
    if (err instanceof RookeryError && err.status === 403) return closedPage(host);
    throw err;
  }
  return welcomePage(host, form.username, signInUrl);
}

export function frontPlugin(options: FrontPluginOptions = {}): RookeryPlugin {
  checkOptions('frontPlugin', options, { signInUrl: option.nonEmptyString('a URL or a path') });
  const signInUrl = options.signInUrl ?? '/auth/sign_in';
  return {
    name: 'front',
    register(host) {
      // Same-origin pages: no CORS; open in limited-federation mode (they read nothing private).
      const html = { auth: 'public', scopes: [], cors: false, openInLimitedMode: true } as const;
      const endpoints: Endpoint[] = [
        { method: 'GET', path: '/', ...html, handle: async () => frontPage(host, signInUrl) },
        { method: 'GET', path: SIGN_UP_PATH, ...html, handle: (request) => showSignUp(host, request, signInUrl) },
        { method: 'POST', path: SIGN_UP_PATH, ...html, handle: (request) => submitSignUp(host, request, signInUrl) },
      ];
      for (const endpoint of endpoints) host.addEndpoint(endpoint);
    },
  };
}
