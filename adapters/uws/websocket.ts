// The WebSocket half (docs/behaviour.md, "Streaming") on uWebSockets.js. The hub decides who
// may connect and what each subscription gets; this file moves bytes: it authenticates in the
// upgrade (refusing it the way Mastodon does), echoes the Sec-WebSocket-Protocol that masto.js
// sends its token in, turns subscribe/unsubscribe messages into hub calls (one at a time, in
// order), writes the hub's pre-encoded frames, pings, and closes what it must: binary frames
// (1003), a killed token (1000), a client that did not answer the last ping, one too slow to
// read (past uWS's maxBackpressure), or one that piles up unanswered messages or asks for more
// subscriptions than maxSubscriptions (1008).

import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import { wsError } from '../../core/mastodon/streaming/encode.ts';
import type { StreamConnection, StreamEvent, StreamIdentity, StreamOutput } from '../../core/mastodon/streaming/hub.ts';
import type { StreamParams, StreamRefusal } from '../../core/mastodon/streaming/streams.ts';
import type { TransportContext } from './context.ts';
import { queryOf, statusLine, UNEXPECTED } from './http.ts';
import type { Rota } from './rota.ts';

/** uWS's send() result when the message was dropped for backpressure. */
const DROPPED = 2;
/** Subscribe/unsubscribe messages a client may have waiting for the hub. */
const MAX_PENDING_MESSAGES = 64;

export interface WsContext extends TransportContext {
  /** Open sockets (pings, a turn at a time; shutdown). */
  ws: Rota<WsClient>;
  maxPayloadLength: number;
  /** Subscriptions one socket may hold; a subscribe beyond them closes it (1008). */
  maxSubscriptions: number;
  /** uWS.DISABLED: the frames are shared, pre-encoded bytes; compressing them per socket would
   * undo that (and cost memory per connection). */
  compression: number;
  /** Clients with frames waiting to be written out. */
  unsent: Unsent;
}

/** The clients with frames waiting, and when the next write-out may begin. Two lists used in
 * turn and kept at their size: a write-out to every client allocates nothing (a Set grown to a
 * thousand entries and cleared again, and the array copied out of it, were a third of what a
 * publish allocated with a thousand sockets open, and so of the young collections that fell
 * inside deliveries). */
export interface Unsent {
  /** Clients added since the last write-out began, in order (a client is added when its first
   * frame since its last write is sent). */
  waiting: (WsClient | undefined)[];
  count: number;
  /** The other list, empty, for the next write-out. */
  spare: (WsClient | undefined)[];
  /** performance.now() before which no write-out starts. */
  notBefore: number;
}

export function noneUnsent(): Unsent {
  return { waiting: [], count: 0, spare: [], notBefore: 0 };
}

interface WsUserData {
  client: WsClient;
}

type Command = 'subscribe' | 'unsubscribe';

const text = new TextDecoder();

function firstString(value: unknown): string | undefined {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first;
  if (typeof first === 'number' && Number.isFinite(first)) return String(first);
  return undefined;
}

export class WsClient implements StreamOutput {
  readonly identity: StreamIdentity;
  /** Answered the last ping (or has not been pinged yet). */
  alive = true;
  readonly #context: WsContext;
  readonly #initial: { stream: string | undefined; params: StreamParams };
  #ws: WebSocket<WsUserData> | null = null;
  #connection: StreamConnection | null = null;
  #closed = false;
  #chain: Promise<void> = Promise.resolve();
  #pending = 0;
  /** Frames to write at the end of this turn, in order: one alone (as nearly always), several
   * in an array; null when none. */
  #unsent: Uint8Array | Uint8Array[] | null = null;

  constructor(identity: StreamIdentity, initial: { stream: string | undefined; params: StreamParams }, context: WsContext) {
    this.identity = identity;
    this.#initial = initial;
    this.#context = context;
  }

  opened(ws: WebSocket<WsUserData>): void {
    this.#ws = ws;
    this.#connection = this.#context.hub.connect(this.identity, this);
    this.#context.ws.add(this);
    if (this.#initial.stream !== undefined) this.#enqueue('subscribe', this.#initial.stream, this.#initial.params);
  }

  deliver(event: StreamEvent): void {
    this.#send(event.ws());
  }

  /** The token was revoked or the account disabled. */
  kill(): void {
    this.end(1000);
  }

  /** Closes with a close frame (1000 kill, 1001 shutdown, 1003 binary, 1008 flooding). */
  end(code: number): void {
    if (this.#closed || this.#ws === null) return;
    // What was sent before the close goes before its close frame.
    this.flush();
    if (this.#closed || this.#ws === null) return;
    this.#ws.end(code);
  }

  /** Client text: a subscribe or unsubscribe command, or something to ignore. */
  received(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const { type, stream, tag, list } = parsed as Record<string, unknown>;
    if (type !== 'subscribe' && type !== 'unsubscribe') return;
    this.#enqueue(type, firstString(stream) ?? '', { tag: firstString(tag), list: firstString(list) });
  }

  /** Every ping interval: a client that did not answer the previous ping is terminated. */
  pingOrTerminate(): void {
    const ws = this.#ws;
    if (this.#closed || ws === null) return;
    if (!this.alive) {
      this.#context.logger.debug({ accountId: this.identity.accountId }, 'WebSocket client did not answer a ping: terminated');
      ws.close();
      return;
    }
    this.alive = false;
    let status = 0;
    ws.cork(() => {
      status = ws.ping();
    });
    if (status === DROPPED) this.#tooSlow();
  }

  /** uWS: the socket is closed, whoever closed it. */
  closed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ws = null;
    this.#context.ws.delete(this);
    if (this.#connection !== null) this.#context.track(this.#connection.close());
  }

  #enqueue(command: Command, name: string, params: StreamParams): void {
    if (this.#pending >= MAX_PENDING_MESSAGES) {
      this.#context.logger.warn({ accountId: this.identity.accountId }, 'WebSocket client sent commands faster than they are handled: closed');
      this.end(1008);
      return;
    }
    this.#pending += 1;
    this.#chain = this.#chain
      .then(() => this.#apply(command, name, params))
      .finally(() => {
        this.#pending -= 1;
      });
  }

  async #apply(command: Command, name: string, params: StreamParams): Promise<void> {
    const connection = this.#connection;
    if (this.#closed || connection === null) return;
    let refused: StreamRefusal | null;
    try {
      refused = command === 'subscribe' ? await connection.subscribe(name, params) : await connection.unsubscribe(name, params);
    } catch (err) {
      this.#context.logger.error({ err, command, stream: name }, 'a WebSocket subscription failed');
      refused = UNEXPECTED;
    }
    if (refused === null) {
      // Counted after the fact: a duplicate or a refused subscribe adds nothing.
      if (connection.subscriptionCount > this.#context.maxSubscriptions) {
        this.#context.logger.warn({ accountId: this.identity.accountId, limit: this.#context.maxSubscriptions }, 'WebSocket client asked for too many subscriptions: closed');
        this.end(1008);
      }
      return;
    }
    // Unsubscribe errors carry no status on the wire (docs/behaviour.md, "Streaming").
    this.#send(command === 'subscribe' ? wsError(refused.error, refused.status) : wsError(refused.error));
  }

  /** Frames are written at the end of the event loop's turn, all of one socket's under one
   * cork: when events pile up (a burst, a busy server) a socket gets one write for all of them
   * instead of one per frame, and alone a frame waits only for the turn to end. */
  #send(frame: Uint8Array): void {
    if (this.#closed || this.#ws === null) return;
    const waiting = this.#unsent;
    if (waiting !== null) {
      if (Array.isArray(waiting)) waiting.push(frame);
      else this.#unsent = [waiting, frame];
      return;
    }
    this.#unsent = frame;
    const unsent = this.#context.unsent;
    // One call, whatever the pacing: this runs in the hub's loop over every subscriber, and V8
    // drops that loop's optimized code when it first meets a call it has not seen run (a
    // server warmed up under load meeting its first idle event), then compiles it again.
    if (unsent.count === 0) setImmediate(flushUnsent, unsent);
    unsent.waiting[unsent.count++] = this;
  }

  /** Writes the frames waiting since the last write-out. */
  flush(): void {
    const frames = this.#unsent;
    this.#unsent = null;
    const ws = this.#ws;
    if (frames === null || this.#closed || ws === null) return;
    let status = 0;
    // One frame is one write either way; several share one under a cork.
    if (!Array.isArray(frames)) {
      status = ws.send(frames, false);
    } else {
      ws.cork(() => {
        for (const frame of frames) {
          status = ws.send(frame, false);
          if (status === DROPPED) return;
        }
      });
    }
    if (status === DROPPED) this.#tooSlow();
  }

  /** Past maxBackpressure: uWS dropped the frame. Terminate (a close frame would only queue
   * behind what the client is not reading). */
  #tooSlow(): void {
    const ws = this.#ws;
    if (this.#closed || ws === null) return;
    this.#context.logger.warn({ accountId: this.identity.accountId, buffered: ws.getBufferedAmount(), limit: this.#context.maxBackpressure }, 'WebSocket client too slow: disconnected');
    ws.close();
  }
}

/** Writes out every waiting client's frames. Under load, write-outs are paced to take at most
 * half of the time: the next one waits as long as this one took. Frames that arrive meanwhile
 * then leave together, one write per socket for several events instead of one each, which is
 * what lets a busy process keep up (a write costs a system call, whatever its size); an idle
 * one writes at the end of the turn, as before. */
function flushUnsent(unsent: Unsent): void {
  const started = performance.now();
  const wait = unsent.notBefore - started;
  if (wait >= 1) {
    setTimeout(flushUnsent, wait, unsent);
    return;
  }
  // A client added while flushing (a frame sent from a flush's side effect) waits for the next one.
  const clients = unsent.waiting;
  const count = unsent.count;
  unsent.waiting = unsent.spare;
  unsent.count = 0;
  try {
    for (let i = 0; i < count; i++) {
      const client = clients[i];
      // Not kept past its write-out: a closed client is collected.
      clients[i] = undefined;
      client?.flush();
    }
  } finally {
    // Even after a flush that threw, the two lists stay two.
    unsent.spare = clients;
  }
  const ended = performance.now();
  unsent.notBefore = ended + (ended - started);
}

export function websocketBehavior(context: WsContext): WebSocketBehavior<WsUserData> {
  return {
    compression: context.compression,
    maxPayloadLength: context.maxPayloadLength,
    maxBackpressure: context.maxBackpressure,
    // Handled in WsClient: a dropped frame terminates the socket at once.
    closeOnBackpressureLimit: false,
    // Liveness is a ping every 30 seconds, as Mastodon, done in the server's ping round.
    idleTimeout: 0,
    sendPingsAutomatically: false,
    maxLifetime: 0,

    upgrade(res: HttpResponse, req: HttpRequest, socketContext: us_socket_context_t) {
      // Everything from the request is read now: uWS invalidates req at the first await.
      const key = req.getHeader('sec-websocket-key');
      const protocolHeader = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const authorization = req.getHeader('authorization');
      const query = queryOf(req.getQuery());
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      // Whether the authentication settles while uWS is still in this callback (a store that
      // answers at once: its promise settles in this turn's microtasks), or later (a database
      // round trip). See the upgrade below.
      let withinCallback = true;
      setImmediate(() => {
        withinCallback = false;
      });
      void (async () => {
        let identity: StreamIdentity | StreamRefusal;
        try {
          identity = await context.hub.authenticate({
            authorization: authorization === '' ? undefined : authorization,
            accessToken: query['access_token'],
            protocol: protocolHeader === '' ? undefined : protocolHeader,
          });
        } catch (err) {
          context.logger.error({ err }, 'authenticating a WebSocket failed');
          identity = UNEXPECTED;
        }
        if (aborted) return;
        if ('error' in identity) {
          const refusal = identity;
          res.cork(() => {
            res.writeStatus(statusLine(refusal.status)).writeHeader('X-Error-Message', refusal.error).end(undefined, true);
          });
          return;
        }
        const client = new WsClient(identity, { stream: query['stream'], params: { tag: query['tag'], list: query['list'] } }, context);
        // masto.js offers its token as the only subprotocol and needs it selected back.
        const selected = protocolHeader.split(',')[0]?.trim() ?? '';
        // Corked as uWS asks, except when upgrading later, outside its callback: there its
        // cork() may read the old HTTP state from memory the new WebSocket now occupies and
        // close the socket just after `open` (uWebSockets issue #1928, fixed upstream by PR
        // #1929, not in the uWebSockets.js build used here): about one connection in ten on
        // PostgreSQL. Uncorked, uWS prints a warning for each such upgrade, and works.
        if (withinCallback) {
          res.cork(() => {
            res.upgrade<WsUserData>({ client }, key, selected, extensions, socketContext);
          });
        } else {
          res.upgrade<WsUserData>({ client }, key, selected, extensions, socketContext);
        }
      })();
    },

    open(ws) {
      ws.getUserData().client.opened(ws);
    },

    message(ws, message, isBinary) {
      const client = ws.getUserData().client;
      if (isBinary) {
        client.end(1003);
        return;
      }
      // Decoded now: uWS reuses the message's memory after this callback.
      client.received(text.decode(message));
    },

    pong(ws) {
      ws.getUserData().client.alive = true;
    },

    close(ws) {
      ws.getUserData().client.closed();
    },
  };
}
