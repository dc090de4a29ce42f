// The texts of the mails the instance sends, in plain text (links readable in any client).

import type { Core } from '../context.ts';
import type { MailMessage } from '../ports/mailer.ts';
import type { User } from '../model.ts';
import { emailToken } from './email-tokens.ts';
import { queueMail } from './queue.ts';

export const CONFIRMATION_PATH = '/auth/confirmation';
export const PASSWORD_EDIT_PATH = '/auth/password/edit';

function link(core: Core, path: string, query: Record<string, string>): string {
  return `${core.config.baseUrl}${path}?${new URLSearchParams(query).toString()}`;
}

export function confirmationMail(core: Core, user: User, username: string): MailMessage {
  const url = link(core, CONFIRMATION_PATH, { confirmation_token: emailToken(core, 'confirm', user) });
  const { title, domain } = core.config;
  return {
    to: user.email,
    subject: `${title}: Confirmation instructions for ${domain}`,
    text: `Hello @${username},\n\nTo confirm your e-mail address for your account on ${domain}, open this link within a week:\n\n${url}\n\nIf you did not ask for this, ignore this mail.\n`,
  };
}

export function resetPasswordMail(core: Core, user: User): MailMessage {
  const url = link(core, PASSWORD_EDIT_PATH, { reset_password_token: emailToken(core, 'reset', user) });
  const { title, domain } = core.config;
  return {
    to: user.email,
    subject: `${title}: Reset password instructions`,
    text: `Hello,\n\nSomeone asked to change the password of your account on ${domain}. To choose a new one, open this link within an hour (it works once):\n\n${url}\n\nIf you did not ask for this, ignore this mail: your password stays as it is.\n`,
  };
}

export async function sendConfirmation(core: Core, user: User, username: string): Promise<void> {
  await queueMail(core, confirmationMail(core, user, username));
}

export async function sendPasswordReset(core: Core, user: User): Promise<void> {
  await queueMail(core, resetPasswordMail(core, user));
}

const WARNING_SUBJECTS: Record<string, string> = {
  none: 'You have received a warning from the moderators',
  disable: 'Your account has been disabled',
  sensitive: 'The media of your posts have been marked as sensitive',
  silence: 'Your account has been limited',
  suspend: 'Your account has been suspended',
};

/** What a user is told when moderators act on their account (`action`: the admin API's type),
 * with the moderators' own words when they gave some. */
export function moderationWarningMail(core: Core, user: User, username: string, action: string, text: string): MailMessage {
  const { title, domain } = core.config;
  const subject = WARNING_SUBJECTS[action] ?? WARNING_SUBJECTS['none'] ?? '';
  const words = text === '' ? '' : `\n\nThe moderators wrote:\n\n${text}`;
  return {
    to: user.email,
    subject: `${title}: ${subject}`,
    text: `Hello @${username},\n\n${subject} on ${domain}.${words}\n`,
  };
}
