// One server-sent events stream on uWebSockets.js (docs/behaviour.md, "Streaming"). The hub decides
// everything (path, token, scopes, list ownership, what each event is); this file writes the
// status line, the headers, `:)`, the hub's pre-encoded event bytes and heartbeats, and keeps
// a slow reader from growing memory: while uWS holds unsent bytes, frames wait in a bounded
// queue (shared Uint8Arrays, never copied), and past the bound the connection is closed.

import type { HttpResponse } from 'uWebSockets.js';
import { SSE_HEARTBEAT, SSE_OPENING } from '../../core/mastodon/streaming/encode.ts';
import type { StreamConnection, StreamCredentials, StreamEvent, StreamOutput } from '../../core/mastodon/streaming/hub.ts';
import type { StreamRefusal } from '../../core/mastodon/streaming/streams.ts';
import type { TransportContext } from './context.ts';
import { statusLine, UNEXPECTED } from './http.ts';

export class SseStream implements StreamOutput {
  readonly #res: HttpResponse;
  readonly #context: TransportContext;
  #state: 'opening' | 'open' | 'done' = 'opening';
  #killed = false;
  /** Frames not handed to uWS yet: before the headers went out, or while the socket drains. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  /** uWS holds bytes the socket did not take: wait for its writable event. */
  #waiting = false;
  #connection: StreamConnection | null = null;

  constructor(res: HttpResponse, context: TransportContext) {
    this.#res = res;
    this.#context = context;
  }

  /** Runs the hub's checks and answers: the stream's opening bytes, or the refusal. The request
   * data was read by the caller, synchronously, inside the uWS handler. */
  async open(path: string, query: Record<string, string | undefined>, credentials: StreamCredentials): Promise<void> {
    let opened: StreamConnection | StreamRefusal;
    try {
      opened = await this.#context.hub.openSse(path, query, credentials, this);
    } catch (err) {
      this.#context.logger.error({ err, path }, 'opening an SSE stream failed');
      opened = UNEXPECTED;
    }
    if ('error' in opened) {
      if (this.#state === 'done') return;
      this.#state = 'done';
      const body = JSON.stringify({ error: opened.error });
      this.#res.cork(() => {
        this.#res
          .writeStatus(statusLine(opened.status))
          .writeHeader('Content-Type', 'application/json; charset=utf-8')
          .writeHeader('Access-Control-Allow-Origin', '*')
          .end(body);
      });
      return;
    }
    this.#connection = opened;
    if (this.#state === 'done') {
      // The client went away while the hub was still checking.
      this.#track(opened.close());
      return;
    }
    this.#state = 'open';
    this.#context.sse.add(this);
    this.#res.onWritable(() => this.#writable());
    const early = this.#queue;
    this.#queue = [];
    this.#queued = 0;
    this.#res.cork(() => {
      this.#res
        .writeStatus('200 OK')
        .writeHeader('Content-Type', 'text/event-stream')
        .writeHeader('Cache-Control', 'private, no-store')
        .writeHeader('Access-Control-Allow-Origin', '*');
      this.#write(SSE_OPENING);
      for (const frame of early) this.#send(frame);
    });
    if (this.#killed) this.end();
  }

  deliver(event: StreamEvent): void {
    this.#send(event.sse());
  }

  /** The hub ends the stream (token revoked, account disabled): the response ends. */
  kill(): void {
    if (this.#state === 'opening') this.#killed = true;
    else this.end();
  }

  /** Bytes waiting in this stream's queue (not yet handed to uWS). */
  get queued(): number {
    return this.#queued;
  }

  heartbeat(): void {
    this.#send(SSE_HEARTBEAT);
  }

  /** Ends the response cleanly (the terminating chunk), as on kill or server shutdown. */
  end(): void {
    if (this.#state !== 'open') return;
    this.#finish();
    this.#res.cork(() => this.#res.end());
  }

  /** uWS: the client went away (or the connection was closed here). */
  aborted(): void {
    if (this.#state === 'done') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'done';
    if (wasOpen) this.#release();
  }

  #send(frame: Uint8Array): void {
    if (this.#state === 'done') return;
    if (this.#state === 'opening' || this.#waiting) {
      this.#queue.push(frame);
      this.#queued += frame.byteLength;
      if (this.#queued > this.#context.maxBackpressure) this.#drop();
      return;
    }
    this.#res.cork(() => this.#write(frame));
  }

  /** Inside a cork. A false from res.write means uWS kept bytes the socket did not take. */
  #write(frame: Uint8Array): void {
    if (!this.#res.write(frame)) this.#waiting = true;
  }

  /** uWS calls this when a socket that could not take everything is writable again. With this
   * handler registered uWS leaves its own buffer alone, so something must be written: the
   * queued frames (a write sends what uWS holds first), or nothing, whose uncork at the end of
   * the cork also sends what uWS holds. */
  #writable(): boolean {
    if (this.#state !== 'open') return true;
    this.#waiting = false;
    this.#res.cork(() => {
      while (this.#queue.length > 0 && !this.#waiting) {
        const frame = this.#queue.shift() as Uint8Array;
        this.#queued -= frame.byteLength;
        this.#write(frame);
      }
    });
    return true;
  }

  /** Too far behind: close the connection rather than hold more for it. */
  #drop(): void {
    this.#context.logger.warn({ queued: this.#queued, limit: this.#context.maxBackpressure }, 'SSE client too slow: disconnected');
    const wasOpen = this.#state === 'open';
    this.#state = 'done';
    if (wasOpen) this.#release();
    else this.#track(this.#connection?.close());
    this.#res.close();
  }

  #finish(): void {
    this.#state = 'done';
    this.#release();
  }

  #release(): void {
    this.#context.sse.delete(this);
    this.#queue = [];
    this.#queued = 0;
    this.#track(this.#connection?.close());
  }

  #track(closing: Promise<void> | undefined): void {
    if (closing !== undefined) this.#context.track(closing);
  }
}
