// A server-sent events client for tests, over a real socket: it collects events and comments
// as they arrive and lets a test wait for the next one that matches.

import { request, type IncomingMessage } from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** The whole response body, for refusals (empty while streaming). */
  body: string;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (already received or to come) that matches. */
  next(match: (event: SseEvent) => boolean): Promise<SseEvent>;
  /** Resolves when a comment line containing `text` has arrived. */
  comment(text: string): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters: (() => void)[] = [];
      let buffer = '';
      let current: Partial<SseEvent> = {};
      let resolveEnded: () => void = () => {};
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        events,
        comments,
        ended: new Promise<void>((done) => (resolveEnded = done)),
        next(match) {
          return new Promise((found) => {
            // A waiter is taken off the list each time events arrive: one whose event is still
            // to come puts itself back, or a wait would see only the next chunk.
            const check = (): void => {
              const hit = events.find(match);
              if (hit) found(hit);
              else waiters.push(check);
            };
            check();
          });
        },
        comment(text) {
          return new Promise((found) => {
            const check = (): void => {
              if (comments.some((c) => c.includes(text))) found();
              else waiters.push(check);
            };
            check();
          });
        },
        close() {
          req.destroy();
        },
      };
      const streaming = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      res.on('data', (chunk: string) => {
        if (!streaming) {
          client.body += chunk;
          return;
        }
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.startsWith(':')) comments.push(line.slice(1));
          else if (line.startsWith('event: ')) current.event = line.slice(7);
          else if (line.startsWith('data: ')) current.data = line.slice(6);
          else if (line === '' && current.event !== undefined) {
            events.push({ event: current.event, data: current.data ?? '' });
            current = {};
          }
        }
        for (const waiter of waiters.splice(0)) waiter();
      });
      res.on('end', () => resolveEnded());
      res.on('close', () => resolveEnded());
      if (streaming) resolve(client);
      else res.on('end', () => resolve(client));
    });
    req.on('error', reject);
    req.end();
  });
}
