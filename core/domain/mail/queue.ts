// Mail leaves through the job queue: one job per mail, so a request never waits on an SMTP
// server, and a server that is down for a while costs a delay, not the mail. The job retries
// with the queue's backoff (doubling from a second, capped at an hour) for MAIL_ATTEMPTS runs,
// about nine hours in all, then goes to the dead letters, where an operator can revive it.

import type { Core } from '../context.ts';
import type { Logger } from '../ports/logger.ts';
import type { MailMessage, Mailer } from '../ports/mailer.ts';

export const MAIL_JOB = 'mail';
export const MAIL_ATTEMPTS = 20;

/** Bounds on what one job carries (the texts are ours; the address is a user's, checked). */
const MAX_ADDRESS = 320;
const MAX_SUBJECT = 500;
const MAX_BODY = 100_000;

function bounded(message: MailMessage): MailMessage {
  const out: MailMessage = { to: message.to.slice(0, MAX_ADDRESS), subject: message.subject.slice(0, MAX_SUBJECT), text: message.text.slice(0, MAX_BODY) };
  if (message.html !== undefined) out.html = message.html.slice(0, MAX_BODY);
  return out;
}

/** A job's payload read back: a malformed one is a bug, failed for good. */
function messageOf(payload: unknown): MailMessage {
  const p = (payload ?? {}) as Record<string, unknown>;
  if (typeof p['to'] !== 'string' || typeof p['subject'] !== 'string' || typeof p['text'] !== 'string') throw new Error('malformed mail job');
  return bounded({ to: p['to'], subject: p['subject'], text: p['text'], ...(typeof p['html'] === 'string' ? { html: p['html'] } : {}) });
}

/** Queues one mail. */
export async function queueMail(core: Core, message: MailMessage): Promise<void> {
  await core.enqueue([{ name: MAIL_JOB, payload: bounded(message) }]);
}

/** The job that sends them, with the embedder's mailer. */
export function registerMailJob(core: Core, mailer: Mailer): void {
  // A slow SMTP exchange gets the lease's minute (the worker caps it there), not the 30 s of a
  // delivery: a send given up on while it still goes through is a mail sent twice.
  core.jobs.register(MAIL_JOB, async (payload) => mailer.send(messageOf(payload)), { maxAttempts: MAIL_ATTEMPTS, timeoutMs: 60_000 });
}

/** Links' secrets hidden: a `…token=` query value, whatever its name ends with. */
export function redactSecrets(text: string): string {
  return text.replace(/(token=)[^&\s"'<>]+/gi, '$1[redacted]');
}

/** The mailer of an instance with none configured: each mail is logged, its links' secrets
 * redacted (logs are read by more people than mailboxes are). */
export function loggingMailer(logger: Logger): Mailer {
  return {
    async send(message) {
      logger.info({ mail: { to: message.to, subject: message.subject, text: redactSecrets(message.text) } }, 'no mailer configured: this mail was logged, not sent');
    },
  };
}
