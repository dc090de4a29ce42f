// Moving an account from the web pages, as Mastodon's settings do (it has no API for them):
// /settings/aliases names the accounts this one also is (`account_alias[acct]`; another
// account may then move here), and /settings/migration moves this account to another one that
// names it among its aliases (`account_migration[acct]`, with the current password). Signed-in
// only (else off to the sign-in page); the forms carry the session's CSRF token; every value
// shown is escaped.

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { addAlias, moveAccount, removeAlias } from '../../domain/accounts/move.ts';
import { RookeryError } from '../../domain/errors.ts';
import { MAX_LENGTH } from '../../domain/lengths.ts';
import { obj, str } from '../../domain/params.ts';
import { escapeHtml as e } from '../../domain/text/index.ts';
import { acct } from '../../domain/urls.ts';
import { CSRF_FIELD } from './csrf.ts';
import { toSignIn } from './delete-page.ts';
import { page, refusedPage } from './pages.ts';
import { currentSession, type BrowserSession, type SignedIn } from './sessions.ts';
import { formPosted } from './web-flow.ts';

export const ALIASES_PATH = '/settings/aliases';
export const MIGRATION_PATH = '/settings/migration';

export const moveTexts = {
  aliasesTitle: 'Account aliases',
  migrationTitle: 'Move to a different account',
  aliasAdded: 'Successfully created a new alias. You can now initiate the move from the old account.',
  aliasRemoved: 'Successfully removed the alias. Moving from that account to this one will no longer be possible.',
  moved: 'Your followers are being moved to the new account.',
  wrongPassword: 'Current password is invalid',
} as const;

/** Longest handle a form may carry (user@domain). */
const MAX_HANDLE = 512;

function notice(message: string, error: boolean): string {
  if (message === '') return '';
  return error ? `<p class="error" role="alert">${e(message)}</p>\n` : `<p role="status">${e(message)}</p>\n`;
}

function hidden(browser: BrowserSession): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${e(browser.session.csrfToken)}">`;
}

function aliasesPage(core: AppCore, browser: BrowserSession, signedIn: SignedIn, message = '', error = false, status = 200): ApiResponse {
  const aliases = signedIn.account.alsoKnownAs
    .map(
      (uri) => `<li>${e(uri)}
<form method="post" action="${ALIASES_PATH}">
${hidden(browser)}
<input type="hidden" name="_method" value="delete">
<input type="hidden" name="alias" value="${e(uri)}">
<button type="submit">Remove</button>
</form></li>`,
    )
    .join('\n');
  const content = `${notice(message, error)}<p>To move from another account to this one (@${e(acct(signedIn.account))}@${e(core.config.domain)}), first name it here.</p>
<form method="post" action="${ALIASES_PATH}">
${hidden(browser)}
<label for="account_alias_acct">Handle of the old account</label>
<input id="account_alias_acct" name="account_alias[acct]" type="text" required maxlength="${MAX_HANDLE}" placeholder="username@domain">
<button type="submit">Create alias</button>
</form>
${aliases === '' ? '<p>No aliases.</p>' : `<ul>\n${aliases}\n</ul>`}`;
  return page(core, moveTexts.aliasesTitle, content, { status });
}

async function signedInPage(core: AppCore, request: ApiRequest): Promise<{ browser: BrowserSession; signedIn: SignedIn } | null> {
  const browser = await currentSession(core, request.cookies);
  return browser?.signedIn == null ? null : { browser, signedIn: browser.signedIn };
}

const failure = (err: unknown): string => {
  if (!(err instanceof RookeryError)) throw err;
  return err.message.replace(/^Validation failed: /, '');
};

/** GET /settings/aliases */
export async function showAliases(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const found = await signedInPage(core, request);
  return found === null ? toSignIn() : aliasesPage(core, found.browser, found.signedIn);
}

/** POST /settings/aliases: an alias added, or (`_method=delete`, `alias`) one removed. */
export async function submitAliases(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const found = await signedInPage(core, request);
  if (found === null) return toSignIn();
  const { browser, signedIn } = found;
  const params = request.body;
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  try {
    if (str(params, '_method')?.toLowerCase() === 'delete') {
      const account = await removeAlias(core, signedIn.account, (str(params, 'alias') ?? '').slice(0, 2048));
      return aliasesPage(core, browser, { ...signedIn, account }, moveTexts.aliasRemoved);
    }
    const handle = (str(obj(params, 'account_alias') ?? {}, 'acct') ?? '').slice(0, MAX_HANDLE);
    const account = await addAlias(core, signedIn.account, handle);
    return aliasesPage(core, browser, { ...signedIn, account }, moveTexts.aliasAdded);
  } catch (err) {
    const message = failure(err);
    return aliasesPage(core, browser, signedIn, message === 'Record not found' ? 'No such alias' : message, true, err instanceof RookeryError ? err.status : 422);
  }
}

function migrationPage(core: AppCore, browser: BrowserSession, signedIn: SignedIn, movedTo: string | null, message = '', error = false, status = 200): ApiResponse {
  const content = `${notice(message, error)}${movedTo === null ? '' : `<p>This account moved to <strong>@${e(movedTo)}</strong>.</p>\n`}<p>Your followers here are moved to the new account, which must name this one (@${e(acct(signedIn.account))}@${e(core.config.domain)}) among its aliases first.</p>
<form method="post" action="${MIGRATION_PATH}">
${hidden(browser)}
<label for="account_migration_acct">Handle of the new account</label>
<input id="account_migration_acct" name="account_migration[acct]" type="text" required maxlength="${MAX_HANDLE}" placeholder="username@domain">
<label for="account_migration_current_password">Current password</label>
<input id="account_migration_current_password" name="account_migration[current_password]" type="password" autocomplete="current-password" required maxlength="${MAX_LENGTH.password}">
<button type="submit">Move followers</button>
</form>`;
  return page(core, moveTexts.migrationTitle, content, { status });
}

async function movedToOf(core: AppCore, signedIn: SignedIn): Promise<string | null> {
  const id = signedIn.account.movedToAccountId;
  const target = id === null ? null : await core.storage.accounts.get(id);
  return target === null ? null : target.domain === null ? `${target.username}@${core.config.domain}` : acct(target);
}

/** GET /settings/migration */
export async function showMigration(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const found = await signedInPage(core, request);
  if (found === null) return toSignIn();
  return migrationPage(core, found.browser, found.signedIn, await movedToOf(core, found.signedIn));
}

/** POST /settings/migration: the handle of the new account and the current password. */
export async function submitMigration(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const found = await signedInPage(core, request);
  if (found === null) return toSignIn();
  const { browser, signedIn } = found;
  const params = request.body;
  if (!formPosted(core, request, browser, params)) return refusedPage(core);
  const fields = obj(params, 'account_migration') ?? {};
  const password = str(fields, 'current_password') ?? '';
  const valid = password !== '' && password.length <= MAX_LENGTH.password && (await core.secrets.verifyPassword(password, signedIn.user.passwordHash));
  const movedTo = await movedToOf(core, signedIn);
  if (!valid) return migrationPage(core, browser, signedIn, movedTo, moveTexts.wrongPassword, true, 422);
  try {
    const account = await moveAccount(core, signedIn.account, (str(fields, 'acct') ?? '').slice(0, MAX_HANDLE));
    const now = { ...signedIn, account };
    return migrationPage(core, browser, now, await movedToOf(core, now), moveTexts.moved);
  } catch (err) {
    return migrationPage(core, browser, signedIn, movedTo, failure(err), true, 422);
  }
}
