// A real SMTP server on loopback (smtp-server) that keeps what it receives, for tests that
// follow the links of the mails the instance sends.

import { createServer } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The text part, its transfer encoding undone. */
  text: string;
}

export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  /** The n-th mail (0-based), once it has arrived. */
  mail(n: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A port nothing listens on (yet). */
export async function freeSmtpPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function decodeQuotedPrintable(body: string): string {
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function textOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  return /content-transfer-encoding:\s*quoted-printable/i.test(head) ? decodeQuotedPrintable(body) : body;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiting: { n: number; found(mail: ReceivedMail): void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: textOf(raw) });
        callback();
        for (const w of waiting.filter((w) => received[w.n] !== undefined)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.found(received[w.n]!);
        }
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const mail = (n: number) => {
    const arrived = received[n];
    return arrived !== undefined ? Promise.resolve(arrived) : new Promise<ReceivedMail>((found) => waiting.push({ n, found }));
  };
  return { port: address.port, received, mail, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The first link of a mail's text. */
export function linkIn(mail: ReceivedMail): URL {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (match === null) throw new Error(`no link in: ${mail.text}`);
  return new URL(match[0]);
}
