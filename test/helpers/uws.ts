// Clients for the uWebSockets.js streaming server, over real sockets on 127.0.0.1: an SSE
// reader on fetch, a WebSocket client on `ws`, and raw HTTP for what those hide. Every wait is
// on something arriving (bytes, a frame, a close), never on a timer.

import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { startStreamingServer, type StreamingServer, type StreamingServerOptions } from '../../adapters/uws/index.ts';
import type { StreamHub } from '../../core/mastodon/streaming/hub.ts';
import { harness, type Harness } from './harness.ts';
import { freePort } from './processes.ts';

export interface Streaming {
  server: StreamingServer;
  /** http://127.0.0.1:<port> */
  http: string;
  /** ws://127.0.0.1:<port> */
  ws: string;
}

export async function startStreaming(h: Harness, options: Partial<StreamingServerOptions> = {}): Promise<Streaming> {
  const server = await startStreamingServer(h.rookery, { port: 0, host: '127.0.0.1', ...options });
  return { server, http: `http://127.0.0.1:${server.port}`, ws: `ws://127.0.0.1:${server.port}` };
}

/** A listening harness whose configuration advertises a streaming server, and that server. Its
 * port must be known before the instance is made (the configuration says where clients
 * stream), so it is picked free first; another process may take it before the server does
 * (the server then refuses to start: it never shares a port), and both are made again on
 * another port, a bounded number of times. */
export async function harnessWithStreaming(attempts = 5): Promise<{ h: Harness; s: Streaming }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const h = await harness({ listen: true, config: { streamingUrl: `ws://127.0.0.1:${port}` } });
    try {
      return { h, s: await startStreaming(h, { port }) };
    } catch (err) {
      await h.close();
      if (attempt >= attempts || !(err instanceof Error) || !err.message.startsWith('The streaming server could not listen')) throw err;
    }
  }
}

/** Resolves when `check` holds, re-checked whenever `notify` is called; rejects with `why()`
 * when `failed` is called first. */
class Waiters {
  #waiting = new Set<{ check: () => boolean; resolve: () => void; reject: (err: Error) => void }>();
  #failure: Error | null = null;

  wait(check: () => boolean, what: string): Promise<void> {
    if (check()) return Promise.resolve();
    if (this.#failure) return Promise.reject(new Error(`${what}: ${this.#failure.message}`));
    return new Promise((resolve, reject) => this.#waiting.add({ check, resolve, reject: (err) => reject(new Error(`${what}: ${err.message}`)) }));
  }

  notify(): void {
    for (const waiter of [...this.#waiting]) {
      if (!waiter.check()) continue;
      this.#waiting.delete(waiter);
      waiter.resolve();
    }
  }

  fail(err: Error): void {
    this.notify();
    this.#failure = err;
    for (const waiter of this.#waiting) waiter.reject(err);
    this.#waiting.clear();
  }
}

export interface SseEvent {
  event: string;
  data: string;
}

/** An SSE response read as it arrives. */
export class SseReader {
  readonly status: number;
  readonly headers: Headers;
  text = '';
  ended = false;
  readonly #controller: AbortController;
  readonly #waiters = new Waiters();

  private constructor(response: Response, controller: AbortController) {
    this.status = response.status;
    this.headers = response.headers;
    this.#controller = controller;
    void this.#read(response);
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    return new SseReader(response, controller);
  }

  async #read(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    try {
      if (response.body === null) throw new Error('no body');
      for await (const chunk of response.body) {
        this.text += decoder.decode(chunk as Uint8Array, { stream: true });
        this.#waiters.notify();
      }
      this.ended = true;
      this.#waiters.fail(new Error(`the response ended; it had: ${JSON.stringify(this.text.slice(0, 300))}`));
    } catch (err) {
      this.ended = true;
      this.#waiters.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The events so far (comments and the `:)` opening left out). */
  events(): SseEvent[] {
    const out: SseEvent[] = [];
    for (const block of this.text.split('\n\n')) {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined) out.push({ event, data });
    }
    return out;
  }

  /** `event id` (update, delete) or `notification type`, as the hub tests name them. */
  names(): string[] {
    return this.events().map((e) => (e.event === 'delete' ? `delete ${e.data}` : e.event === 'notification' ? `notification ${JSON.parse(e.data).type}` : `${e.event} ${JSON.parse(e.data).id}`));
  }

  until(check: (reader: SseReader) => boolean, what = 'waiting for the stream'): Promise<void> {
    return this.#waiters.wait(() => check(this), what);
  }

  /** The stream is open (the `:)` arrived, so the hub has subscribed it). */
  opened(): Promise<void> {
    return this.until((r) => r.text.startsWith(':)\n'), 'waiting for :)');
  }

  eventCount(n: number): Promise<void> {
    return this.until((r) => r.events().length >= n, `waiting for ${n} event(s)`);
  }

  /** Resolves when the server ends the response. */
  end(): Promise<void> {
    return this.#waiters.wait(() => this.ended, 'waiting for the end');
  }

  close(): void {
    this.#controller.abort();
  }
}

/** A refused request's status, content type and JSON body. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; cors: string | null; body: unknown }> {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type'), cors: res.headers.get('access-control-allow-origin'), body: await res.json() };
}

export interface Closed {
  code: number;
  reason: string;
}

/** A WebSocket client that records every message and can wait for them. */
export class WsReader {
  readonly socket: WebSocket;
  /** Parsed JSON messages, in order (sync replies left out). */
  messages: any[] = [];
  pings = 0;
  closed: Closed | null = null;
  readonly #waiters = new Waiters();
  #syncs = 0;
  #synced = 0;

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      const parsed = JSON.parse(isBinary ? '"(binary)"' : String(data));
      if (parsed?.error === 'Unknown stream type' && parsed?.status === 400 && this.#synced < this.#syncs) this.#synced += 1;
      else this.messages.push(parsed);
      this.#waiters.notify();
    });
    socket.on('ping', () => {
      this.pings += 1;
      this.#waiters.notify();
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      // Whatever else was awaited will not come now: fail fast rather than time out.
      this.#waiters.fail(new Error(`the socket closed with ${code}`));
    });
    socket.on('error', () => {});
  }

  /** Opens and waits for the handshake; fails with the refusal otherwise. */
  static async open(url: string, protocols?: string | string[], options: WebSocket.ClientOptions = {}): Promise<WsReader> {
    const socket = new WebSocket(url, protocols, options);
    const reader = new WsReader(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode} ${String(res.headers['x-error-message'])}`)));
      socket.once('error', reject);
    });
    return reader;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The server handles one client's commands in order and answers an unknown stream with an
   * error: once that error is back, every command sent before it has been handled. */
  async sync(): Promise<void> {
    this.#syncs += 1;
    const target = this.#syncs;
    this.send({ type: 'subscribe', stream: 'rookery-test-sync' });
    await this.#waiters.wait(() => this.#synced >= target, 'waiting for the sync reply');
  }

  /** Messages of stream events, as `event id` / `delete id` / `notification type`. */
  names(): string[] {
    return this.messages
      .filter((m) => typeof m.event === 'string')
      .map((m) => (m.event === 'delete' ? `delete ${m.payload}` : m.event === 'notification' ? `notification ${JSON.parse(m.payload).type}` : `${m.event} ${m.payload === undefined ? '' : JSON.parse(m.payload).id}`.trim()));
  }

  until(check: (reader: WsReader) => boolean, what = 'waiting for messages'): Promise<void> {
    return this.#waiters.wait(() => check(this), what);
  }

  messageCount(n: number): Promise<void> {
    return this.until((r) => r.messages.length >= n, `waiting for ${n} message(s)`);
  }

  close(): void {
    this.socket.terminate();
  }

  /** Resolves with the close code and reason when the socket closes. */
  async whenClosed(): Promise<Closed> {
    await this.#waiters.wait(() => this.closed !== null, 'waiting for the close');
    return this.closed as Closed;
  }
}

/** The raw HTTP response to a WebSocket upgrade (what `ws` hides when it is refused). */
export function rawUpgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.on('connect', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      response += chunk.toString('latin1');
      if (response.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(response);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(response));
  });
}

/** A raw TCP client that sends one request, reads until `until` is in what arrived, then stops
 * reading altogether (a client that stalls). */
export function stalledClient(port: number, request: string, until: string): Promise<{ socket: Socket; received: () => number; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let bytes = 0;
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {});
    const first = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      if (!text.includes(until)) return;
      socket.off('data', first);
      socket.pause();
      socket.on('data', (more: Buffer) => (bytes += more.length));
      resolve({ socket, received: () => bytes, closed });
    };
    socket.on('data', first);
    socket.once('connect', () => socket.write(request));
    socket.once('close', () => reject(new Error(`closed before ${JSON.stringify(until)}: ${text.slice(0, 300)}`)));
  });
}

/** Watches the hub for completed subscriptions, for clients (masto.js, megalodon) that give no
 * sign that theirs is in place: wraps hub.connect so each connection's subscribe reports back. */
export function watchSubscriptions(hub: StreamHub): { subscribed(accountId: string, name: string): Promise<void> } {
  const done: { accountId: string; name: string }[] = [];
  const waiters = new Waiters();
  const connect = hub.connect.bind(hub);
  hub.connect = (identity, output) => {
    const connection = connect(identity, output);
    const subscribe = connection.subscribe.bind(connection);
    connection.subscribe = async (name, params) => {
      const refused = await subscribe(name, params);
      if (refused === null) done.push({ accountId: identity.accountId, name });
      waiters.notify();
      return refused;
    };
    return connection;
  };
  return {
    subscribed: (accountId, name) => waiters.wait(() => done.some((d) => d.accountId === accountId && d.name === name), `waiting for ${accountId} to subscribe to ${name}`),
  };
}

/** A WebSocket client on a raw socket, for what a library will not do: put several frames in
 * one write, so that the server reads them together. Text frames only, in both directions. */
export class RawWebSocket {
  readonly socket: Socket;
  /** Text frames received, in order. */
  readonly frames: string[] = [];
  /** The code of the server's close frame (1005 when it gave none); null before one came. */
  closeCode: number | null = null;
  /** The TCP connection has closed. */
  ended = false;
  readonly #waiters = new Waiters();
  #buffer = Buffer.alloc(0);
  #upgraded = false;

  private constructor(socket: Socket) {
    this.socket = socket;
  }

  static open(port: number, path: string): Promise<RawWebSocket> {
    const socket = connect(port, '127.0.0.1');
    const client = new RawWebSocket(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      client.ended = true;
      client.#waiters.fail(new Error('the socket closed'));
    });
    socket.on('data', (chunk: Buffer) => client.#read(chunk));
    socket.once('connect', () => {
      socket.write(
        [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', '', ''].join('\r\n'),
      );
    });
    return client.#waiters.wait(() => client.#upgraded, 'waiting for 101').then(() => client);
  }

  #read(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    if (!this.#upgraded) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!this.#buffer.subarray(0, end).toString('latin1').startsWith('HTTP/1.1 101 ')) {
        this.#waiters.fail(new Error(`not upgraded: ${this.#buffer.subarray(0, end).toString('latin1')}`));
        return;
      }
      this.#upgraded = true;
      this.#buffer = this.#buffer.subarray(end + 4);
    }
    // Unmasked server frames: FIN + opcode, then a 7- or 16-bit length.
    while (this.#buffer.length >= 2) {
      let length = (this.#buffer[1] ?? 0) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.#buffer.length < 4) break;
        length = this.#buffer.readUInt16BE(2);
        offset = 4;
      }
      if (this.#buffer.length < offset + length) break;
      const opcode = (this.#buffer[0] ?? 0) & 0x0f;
      if (opcode === 1) this.frames.push(this.#buffer.subarray(offset, offset + length).toString('utf8'));
      else if (opcode === 8) this.closeCode = length >= 2 ? this.#buffer.readUInt16BE(offset) : 1005;
      this.#buffer = this.#buffer.subarray(offset + length);
    }
    this.#waiters.notify();
  }

  /** Sends every message as a masked text frame, all in one write. */
  sendTogether(messages: unknown[]): void {
    const frames = messages.map((message) => {
      const payload = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message));
      if (payload.length > 125) throw new Error('RawWebSocket sends short frames only');
      const mask = Buffer.from([1, 2, 3, 4]);
      const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
      return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
    });
    this.socket.write(Buffer.concat(frames));
  }

  /** Bytes exactly as given (a frame this class would not build). */
  sendBytes(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves once the server closed the connection, or sent `n` text frames. */
  closedOrFrames(n: number): Promise<'closed' | 'frames'> {
    return this.#waiters.wait(() => this.ended || this.frames.length >= n, `waiting for a close or ${n} frame(s)`).then(
      () => (this.frames.length >= n ? 'frames' : 'closed'),
      () => 'closed',
    );
  }

  frameCount(n: number): Promise<void> {
    return this.#waiters.wait(() => this.frames.length >= n, `waiting for ${n} frame(s)`);
  }

  close(): void {
    this.socket.destroy();
  }
}
