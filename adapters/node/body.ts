// A request's body read as the front asks, then the front's answer: shared by the node:http
// handler and the hapi plugin, which differ only in how they write the answer. Multipart bodies
// the front can take as a stream go through upload.ts (files to temporary files, removed before
// the answer is written, however the request went); any other body is read whole within its
// limit (Content-Length first, then counting while it streams).

import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { frontTexts } from '../../core/mastodon/http/front.ts';
import type { BodyLimit, HttpFront, RawHead, RawResponse } from '../../core/mastodon/http/types.ts';
import { readForm, TempFiles } from './upload.ts';

export interface Answer {
  response: RawResponse;
  /** The body was not read to its end: the connection must close after the answer. */
  unread: boolean;
}

/** Where uploads wait while their request lasts. */
export function defaultUploadDirectory(): string {
  return tmpdir();
}

const TOO_LARGE = Symbol('too large');
const ABORTED = Symbol('aborted');

/** The body; TOO_LARGE as soon as it passes `limit` (reading stops there); ABORTED when the
 * client went away. */
function readBytes(source: Readable, limit: number): Promise<Uint8Array | null | typeof TOO_LARGE | typeof ABORTED> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    const settle = (result: Uint8Array | null | typeof TOO_LARGE | typeof ABORTED) => {
      source.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        source.pause();
        settle(TOO_LARGE);
      }
    };
    const onEnd = () => {
      ended = true;
      settle(size === 0 ? null : Buffer.concat(chunks, size));
    };
    const onAbort = () => settle(ABORTED);
    const onClose = () => {
      if (!ended) settle(ABORTED);
    };
    source.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}

function headerOf(head: RawHead, name: string): string {
  const value = head.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function declaresNoBody(head: RawHead): boolean {
  const length = headerOf(head, 'content-length');
  return head.headers['transfer-encoding'] === undefined && (length === '' || length === '0');
}

/** The answer to a request of Rookery's whose body is `source` (null: none); null when the
 * client went away before its body was read. */
export async function answer(http: HttpFront, head: RawHead, limit: BodyLimit, source: Readable | null, uploadDirectory: string): Promise<Answer | null> {
  const handle = async (request: Parameters<HttpFront['handle']>[0]) => (await http.handle(request)) ?? http.refuse(head, 404, frontTexts.notFound);
  if (limit === 'ignore' || source === null) return { response: await handle({ ...head, body: null }), unread: false };
  if (Number(headerOf(head, 'content-length')) > limit) return { response: http.refuse(head, 413, frontTexts.tooLarge(limit)), unread: true };
  const rules = http.formRules(head);
  if (rules === null) {
    // A request with neither length nor chunks has no body (RFC 9112, 6.3): nothing to wait
    // for, as when the body read is empty. Most POSTs of clients (favourite, follow) are so.
    if (declaresNoBody(head)) return { response: await handle({ ...head, body: null }), unread: false };
    const body = await readBytes(source, limit);
    if (body === ABORTED) return null;
    if (body === TOO_LARGE) return { response: http.refuse(head, 413, frontTexts.tooLarge(limit)), unread: true };
    return { response: await handle({ ...head, body }), unread: false };
  }
  const files = new TempFiles(uploadDirectory);
  try {
    const outcome = await readForm(source, headerOf(head, 'content-type'), rules, files);
    switch (outcome.kind) {
      case 'aborted':
        return null;
      case 'too large':
        return { response: http.refuse(head, 413, frontTexts.tooLarge(outcome.limit)), unread: true };
      case 'refused':
        return { response: http.refuse(head, outcome.status, outcome.message), unread: true };
      case 'form':
        return { response: await handle({ ...head, body: null, form: outcome.form }), unread: outcome.form.refusal !== undefined };
    }
  } finally {
    await files.removeAll();
  }
}
