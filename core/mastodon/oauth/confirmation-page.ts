// GET /auth/confirmation?confirmation_token=…: the link of the confirmation mail. Opening it
// confirms the address (as Mastodon's link does); the token serves once and expires
// (core/domain/mail/email-tokens.ts).

import type { ApiRequest, ApiResponse } from '../endpoint/types.ts';
import type { AppCore } from '../context.ts';
import { userOfToken } from '../../domain/mail/email-tokens.ts';
import { str } from '../../domain/params.ts';
import { page } from './pages.ts';

export const confirmationTexts = {
  confirmed: 'Your email address has been successfully confirmed.',
  invalid: 'Confirmation token is invalid',
} as const;

export async function showConfirmation(core: AppCore, request: ApiRequest): Promise<ApiResponse> {
  const token = (str(request.query, 'confirmation_token') ?? '').slice(0, 200);
  const user = await userOfToken(core, 'confirm', token);
  if (user === null) {
    return page(core, 'Confirmation', `<p class="error" role="alert">${confirmationTexts.invalid}</p><p><a href="/auth/sign_in">Sign in</a></p>`, { status: 422 });
  }
  await core.storage.accounts.updateUser(user.accountId, { confirmedAt: core.clock.now() });
  return page(core, 'Confirmation', `<p role="status">${confirmationTexts.confirmed}</p><p><a href="/auth/sign_in">Sign in</a></p>`);
}
