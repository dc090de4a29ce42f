// rookery/smtp: a Mailer that hands mail to an SMTP server, through nodemailer (the most used
// mail library for Node, pure JavaScript, maintained for over a decade). Configured as
// Mastodon's SMTP_* variables configure its mail: STARTTLS when the server offers it ('auto'),
// required ('always') or never tried ('never'), or TLS from the first byte (`tls`, port 465).

import { createTransport, type Transporter } from 'nodemailer';
import type { Mailer } from '../../core/domain/ports/mailer.ts';

export interface SmtpOptions {
  host: string;
  /** Default 587, or 465 with `tls`. */
  port?: number;
  login?: string;
  password?: string;
  /** The From: address (SMTP_FROM_ADDRESS), "Name <address>" allowed. */
  from: string;
  starttls?: 'auto' | 'always' | 'never';
  /** Implicit TLS (SMTP_TLS / SMTP_SSL). */
  tls?: boolean;
  /** Give up on a server that does not connect, greet or answer within this (default 15 s
   * each; the mail job has a minute in all). */
  timeoutMs?: number;
  /** For tests: accept a self-signed certificate. */
  rejectUnauthorized?: boolean;
}

export interface SmtpMailer extends Mailer {
  close(): void;
}

export function smtpMailer(options: SmtpOptions): SmtpMailer {
  if (typeof options.host !== 'string' || options.host === '') throw new Error('smtpMailer: host is required');
  if (typeof options.from !== 'string' || options.from === '') throw new Error('smtpMailer: from is required');
  const tls = options.tls ?? false;
  const starttls = options.starttls ?? 'auto';
  const timeout = options.timeoutMs ?? 15_000;
  const transport: Transporter = createTransport({
    host: options.host,
    port: options.port ?? (tls ? 465 : 587),
    secure: tls,
    requireTLS: !tls && starttls === 'always',
    ignoreTLS: !tls && starttls === 'never',
    ...(options.login !== undefined && options.login !== '' ? { auth: { user: options.login, pass: options.password ?? '' } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    tls: { rejectUnauthorized: options.rejectUnauthorized ?? true },
  });
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text, ...(message.html !== undefined ? { html: message.html } : {}) });
    },
    close() {
      transport.close();
    },
  };
}
