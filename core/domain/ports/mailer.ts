// Sending e-mail: the confirmation and password-reset mails leave through it. An embedder
// passes its own (an API-based provider, a test double); the standalone instance uses SMTP
// (adapters/smtp). Mail is sent from a queue job (core/domain/mail), so a send that throws is
// retried with backoff: a Mailer need not retry by itself.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** Resolves once the mail was handed over (accepted by the SMTP server); throws otherwise. */
  send(message: MailMessage): Promise<void>;
}
