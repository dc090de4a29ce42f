// POST /api/v1/emails/confirmations: mails the confirmation link again, to an address that is
// still waiting for it (to a new one, given `email`), for the app the user signed up with (Mastodon's rules and texts), and
// GET /api/v1/emails/check_confirmation: whether the address is confirmed yet.

import type { AppCore } from '../context.ts';
import { RookeryError, texts } from '../../domain/errors.ts';
import { changeUnconfirmedEmail } from '../../domain/accounts/email.ts';
import { sendConfirmation } from '../../domain/mail/messages.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

export const emailTexts = {
  notOwner: 'This method is only available to the application the user originally signed-up with',
  confirmed: 'This method is only available while the e-mail is awaiting confirmation',
} as const;

export function emailEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/emails/confirmations',
      // Any token: an unconfirmed user is who calls it (the user guard would refuse them).
      auth: 'app',
      scopes: ['write', 'write:accounts'],
      async handle(request) {
        const { account, user, token } = request.caller;
        if (account === null || user === null || token === null || user.createdByApplicationId !== token.applicationId) {
          throw new RookeryError(403, emailTexts.notOwner);
        }
        if (user.confirmedAt !== null) throw new RookeryError(403, emailTexts.confirmed);
        // With `email`, the address changes first and the link goes to the new one.
        const email = request.body['email'] ?? request.query['email'];
        const to = email === undefined ? user : await changeUnconfirmedEmail(core, user, typeof email === 'string' ? email.trim() : '');
        await sendConfirmation(core, to, account.username);
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v1/emails/check_confirmation',
      // Mastodon's: a token if one is given, then a user required (401 without).
      auth: 'optional',
      scopes: ['read', 'read:accounts'],
      async handle(request) {
        const { user } = request.caller;
        if (user === null) throw new RookeryError(401, texts.needsUser);
        return json(user.confirmedAt !== null);
      },
    },
  ];
}
