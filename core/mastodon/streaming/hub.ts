// The one entry for live streams (SSE and WebSocket alike). It authenticates a stream, maps
// stream names to channels, checks scopes and list ownership, subscribes to the bus once per
// channel per process, screens every status event per subscriber (subscriber.ts) and hands the
// transport events whose bytes are encoded once and shared. It closes a connection whose token
// is revoked or whose account is disabled. A transport only moves bytes, heartbeats and pings.
//
// Memory per connection is kept small on purpose (thousands of idle streams per process): a
// connection is a class instance with no closures of its own, it holds an array of its (one or
// few) subscriptions, identical public stream definitions are shared, and what a connection
// needs to hear about itself (kill, state changes) comes on one control channel per process,
// dispatched through maps, instead of a bus subscription per token and per account.
//
// When the bus reconnects (Redis restarted), every account's state is reloaded, since an
// invalidation published during the outage may never arrive.
//
// A subscribe resolves only once the subscription hears everything it depends on: its
// channels and the control channel (a kill, a changed state). On a bus whose subscriptions take
// a round trip (Redis), resolving sooner would let a kill, or a block made just after, go by
// unheard. For the same reason an account's state is first read once the control channel
// listens: a change committed before that is in what it reads, one after is announced to it.

import { maySignIn } from '../../domain/policy.ts';
import type { AppCore } from '../context.ts';
import { channels } from '../../domain/routing/channels.ts';
import { isId } from '../../domain/ids.ts';
import type { Id } from '../../domain/model.ts';
import { lookupToken } from '../oauth/tokens.ts';
import type { StreamMessage } from '../../domain/ports/bus.ts';
import type { FilterResultJson } from '../entities/filter.ts';
import { sseFrame, wsFrame } from './encode.ts';
import { isRefusal, readsStatuses, resolveStream, streamForPath, streamTexts, type ResolvedStream, type StreamParams, type StreamRefusal } from './streams.ts';
import { loadSubscriberState, screen, type SubscriberState } from './subscriber.ts';
import { SharedKeywords } from './shared-keywords.ts';

/** One event for one kind of subscription, in both wire formats, each encoded on first use. */
export interface StreamEvent {
  readonly event: string;
  sse(): Uint8Array;
  ws(): Uint8Array;
}

/** What a transport gives the hub for one connection. */
export interface StreamOutput {
  deliver(event: StreamEvent): void;
  /** The token was revoked or the account disabled: end the connection now. */
  kill(): void;
}

export interface StreamCredentials {
  /** The Authorization header. */
  authorization?: string | undefined;
  /** The access_token query parameter. */
  accessToken?: string | undefined;
  /** The Sec-WebSocket-Protocol header (masto.js sends the token there). */
  protocol?: string | undefined;
}

export interface StreamIdentity {
  tokenId: Id;
  accountId: Id;
  scopes: readonly string[];
}

export interface StreamConnection {
  readonly identity: StreamIdentity;
  /** How many subscriptions it holds (a transport bounds what one client may hold). */
  readonly subscriptionCount: number;
  /** null when subscribed (or already subscribed), else the refusal for the client. */
  subscribe(name: string, params: StreamParams): Promise<StreamRefusal | null>;
  unsubscribe(name: string, params: StreamParams): Promise<StreamRefusal | null>;
  /** The transport's connection ended. */
  close(): Promise<void>;
}

export interface StreamHubStats {
  connections: number;
  subscriptions: number;
  channels: number;
}

export interface StreamHub {
  /** Finds the user behind a stream's token: header, else access_token, else the protocol. */
  authenticate(credentials: StreamCredentials): Promise<StreamIdentity | StreamRefusal>;
  connect(identity: StreamIdentity, output: StreamOutput): StreamConnection;
  /** An SSE stream: path, then token, then the stream's own checks, as Mastodon orders them. */
  openSse(path: string, query: Record<string, string | undefined>, credentials: StreamCredentials, output: StreamOutput): Promise<StreamConnection | StreamRefusal>;
  stats(): StreamHubStats;
  /** Resolves once no subscriber state is loading, so nothing is held back from delivery. */
  settled(): Promise<void>;
  /** Something may have been missed (the bus reconnected): every state is loaded again. */
  invalidateAll(): void;
  /** Ends every connection's subscriptions (not the connections themselves). */
  close(): Promise<void>;
}

interface Subscription {
  readonly stream: ResolvedStream;
  readonly connection: Connection;
}

interface ChannelEntry {
  subscriptions: Set<Subscription>;
  unsubscribe: Promise<() => Promise<void>>;
}

/** One account's live streams and what they screen with. */
interface AccountEntry {
  connections: Connection[];
  state: SubscriberState | null;
  /** Deliveries that wait for a (re)load, in order; null when none. */
  waiting: (() => void)[] | null;
  loading: boolean;
  /** A change arrived during a load: load again afterwards. */
  stale: boolean;
}

/** Deliveries held while an account's state reloads; past this, the account's connections are
 * ended rather than letting memory grow. */
const MAX_WAITING = 10_000;
/** Shared definitions of public and hashtag streams, bounded (tags come from clients). */
const MAX_SHARED_STREAMS = 10_000;

function bearer(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export function tokenFrom(credentials: StreamCredentials): string | null {
  const fromHeader = bearer(credentials.authorization);
  if (fromHeader !== null) return fromHeader;
  if (credentials.accessToken !== undefined && credentials.accessToken !== '') return credentials.accessToken;
  const protocol = credentials.protocol?.trim();
  return protocol === undefined || protocol === '' ? null : protocol;
}

/** The payload with the subscriber's filter results as `filtered` (the rendering left it out). */
function withFiltered(payload: string, results: readonly FilterResultJson[]): string {
  return `${payload.slice(0, -1)},"filtered":${JSON.stringify(results)}}`;
}

function remove<T>(list: T[], item: T): boolean {
  const index = list.indexOf(item);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

class Connection implements StreamConnection {
  readonly identity: StreamIdentity;
  readonly output: StreamOutput;
  /** Its account's entry, held here so that a delivery finds the state it screens with
   * without a lookup per subscriber. */
  readonly account: AccountEntry;
  readonly subscriptions: Subscription[] = [];
  closed = false;
  readonly #hub: Hub;
  /** Settles once the control channel, which may end this connection, listens. */
  readonly #control: Promise<unknown>;

  constructor(hub: Hub, identity: StreamIdentity, output: StreamOutput, account: AccountEntry, control: Promise<unknown>) {
    this.#hub = hub;
    this.identity = identity;
    this.output = output;
    this.account = account;
    this.#control = control;
  }

  get subscriptionCount(): number {
    return this.subscriptions.length;
  }

  #find(stream: ResolvedStream): Subscription | undefined {
    const id = stream.channels.join(';');
    return this.subscriptions.find((s) => s.stream.channels.join(';') === id);
  }

  async subscribe(name: string, params: StreamParams): Promise<StreamRefusal | null> {
    if (this.closed) return null;
    const stream = this.#hub.resolve(name, params, this.identity);
    if (isRefusal(stream)) return stream;
    if (stream.listId !== null && !(await this.#hub.ownsList(this.identity.accountId, stream.listId))) return { status: 401, error: streamTexts.listNotOwned };
    if (this.closed || this.#find(stream) !== undefined) return null;
    const subscription: Subscription = { stream, connection: this };
    this.subscriptions.push(subscription);
    try {
      await Promise.all([this.#control, ...stream.channels.map((channel) => this.#hub.join(channel, subscription))]);
    } catch (err) {
      // Not listening: nothing of it stays, so that asking again tries again.
      remove(this.subscriptions, subscription);
      await Promise.all(stream.channels.map((channel) => this.#hub.leave(channel, subscription)));
      throw err;
    }
    return null;
  }

  async unsubscribe(name: string, params: StreamParams): Promise<StreamRefusal | null> {
    const stream = this.#hub.resolve(name, params, this.identity);
    if (isRefusal(stream)) return { status: stream.status, error: streamTexts.unsubscribe };
    const subscription = this.#find(stream);
    if (subscription === undefined) return null;
    remove(this.subscriptions, subscription);
    await Promise.all(stream.channels.map((channel) => this.#hub.leave(channel, subscription)));
    return null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subscriptions = this.subscriptions.splice(0);
    await Promise.all([...subscriptions.flatMap((s) => s.stream.channels.map((channel) => this.#hub.leave(channel, s))), this.#hub.release(this)]);
  }
}

class Hub implements StreamHub {
  readonly #core: AppCore;
  readonly #channels = new Map<string, ChannelEntry>();
  readonly #accounts = new Map<Id, AccountEntry>();
  readonly #tokens = new Map<Id, Connection[]>();
  readonly #connections = new Set<Connection>();
  readonly #loads = new Set<Promise<void>>();
  readonly #shared = new Map<string, ResolvedStream>();
  #control: Promise<() => Promise<void>> | null = null;
  readonly #stopWatchingReconnects: (() => void) | undefined;
  readonly #keywords = new SharedKeywords(() => this.#liveStates());

  constructor(core: AppCore) {
    this.#core = core;
    // A bus that lost its connection may have lost invalidations meanwhile: reload every state.
    this.#stopWatchingReconnects = core.bus.onReconnect?.(() => this.invalidateAll());
  }

  // ---- streams ----------------------------------------------------------------------------

  /** A stream's definition; those that depend on nobody's account are shared. */
  resolve(name: string, params: StreamParams, identity: StreamIdentity): ResolvedStream | StreamRefusal {
    const shareable = name.startsWith('public') || name.startsWith('hashtag');
    const key = `${name}\u0000${params.tag ?? ''}`;
    if (shareable) {
      const known = this.#shared.get(key);
      // Shared only for the same answer: this token's scopes must allow it too.
      if (known !== undefined && readsStatuses(identity.scopes)) return known;
    }
    const stream = resolveStream(name, params, identity.accountId, identity.scopes);
    if (shareable && !isRefusal(stream)) {
      if (this.#shared.size >= MAX_SHARED_STREAMS) this.#shared.clear();
      this.#shared.set(key, stream);
    }
    return stream;
  }

  async ownsList(accountId: Id, listId: Id): Promise<boolean> {
    if (!isId(listId)) return false;
    const list = await this.#core.storage.lists.get(listId);
    return list !== null && list.accountId === accountId;
  }

  // ---- account states ---------------------------------------------------------------------

  /** Reads the account's state once `listening` (the control channel) settles. */
  #load(accountId: Id, entry: AccountEntry, listening: Promise<unknown> = Promise.resolve()): void {
    entry.loading = true;
    entry.stale = false;
    const loading: Promise<void> = listening
      .then(() => {
        // Reloads follow a change another process announced: its write must be seen.
        this.#core.storage.freshen?.();
        return loadSubscriberState(this.#core, accountId);
      })
      .then(
        (state) => {
          entry.state = state;
          this.#finishLoad(accountId, entry);
        },
        (err: unknown) => {
          // Without it nothing can be screened: end the account's streams rather than guess.
          this.#core.logger.error({ err, accountId }, 'could not load what a stream subscriber hides: its streams end');
          entry.loading = false;
          entry.waiting = null;
          for (const connection of [...entry.connections]) {
            connection.output.kill();
            void connection.close();
          }
        },
      );
    this.#loads.add(loading);
    void loading.finally(() => this.#loads.delete(loading));
  }

  #finishLoad(accountId: Id, entry: AccountEntry): void {
    if (entry.stale && entry.connections.length > 0) return this.#load(accountId, entry);
    entry.loading = false;
    const waiting = entry.waiting;
    entry.waiting = null;
    for (const run of waiting ?? []) run();
  }

  *#liveStates(): Iterable<SubscriberState> {
    for (const entry of this.#accounts.values()) if (entry.state !== null) yield entry.state;
  }

  #invalidate(accountId: Id): void {
    const entry = this.#accounts.get(accountId);
    if (entry === undefined) return;
    if (entry.loading) entry.stale = true;
    else this.#load(accountId, entry);
  }

  invalidateAll(): void {
    for (const accountId of this.#accounts.keys()) this.#invalidate(accountId);
  }

  // ---- channels ---------------------------------------------------------------------------

  async join(channel: string, subscription: Subscription): Promise<void> {
    let entry = this.#channels.get(channel);
    if (entry === undefined) {
      const created: ChannelEntry = { subscriptions: new Set(), unsubscribe: this.#core.bus.subscribe(channel, (message) => this.#dispatch(created, message)) };
      // A bus that could not subscribe leaves no entry behind: the next join asks it again.
      created.unsubscribe.catch(() => {
        if (this.#channels.get(channel) === created) this.#channels.delete(channel);
      });
      entry = created;
      this.#channels.set(channel, created);
    }
    entry.subscriptions.add(subscription);
    await entry.unsubscribe;
  }

  async leave(channel: string, subscription: Subscription): Promise<void> {
    const entry = this.#channels.get(channel);
    if (entry === undefined || !entry.subscriptions.delete(subscription)) return;
    if (entry.subscriptions.size > 0) return;
    this.#channels.delete(channel);
    let unsubscribe: () => Promise<void>;
    try {
      unsubscribe = await entry.unsubscribe;
    } catch {
      return; // never subscribed
    }
    await unsubscribe();
  }

  /** One bus message to every subscription of a channel; frames shared across subscriptions. */
  #dispatch(entry: ChannelEntry, message: StreamMessage): void {
    const frames = new FrameCache(message);
    const now = this.#core.clock.now();
    const isStatus = (message.event === 'update' || message.event === 'status.update') && message.status !== undefined && message.payload !== undefined;
    // The set itself, not a copy (a thousand entries copied per event): nothing joins during a
    // delivery, and one that leaves during it (a killed connection) is skipped.
    for (const subscription of entry.subscriptions) this.#deliver(subscription, message, isStatus, frames, now);
  }

  /** `isStatus`: the message is a status event with its facts (the same for every subscriber). */
  #deliver(subscription: Subscription, message: StreamMessage, isStatus: boolean, frames: FrameCache, now: number): void {
    const { stream, connection } = subscription;
    if (connection.closed) return;
    if (stream.events !== null && !stream.events.has(message.event)) return;
    if (message.event === 'filters_changed' && stream.name !== 'user') return;
    if (!isStatus || !stream.filtersStatuses) {
      connection.output.deliver(frames.get(stream, null));
      return;
    }
    const entry = connection.account;
    if (entry.loading || entry.state === null) {
      const waiting = (entry.waiting ??= []);
      if (waiting.length >= MAX_WAITING) {
        this.#core.logger.warn({ accountId: connection.identity.accountId }, 'stream deliveries piled up while loading: connection ended');
        connection.output.kill();
        void connection.close();
        return;
      }
      waiting.push(() => this.#deliver(subscription, message, isStatus, frames, this.#core.clock.now()));
      return;
    }
    const results = screen(entry.state, message.status as NonNullable<StreamMessage['status']>, stream.context, now, this.#keywords);
    if (results === null) return;
    connection.output.deliver(frames.get(stream, message.signedIn || results.length > 0 ? results : null));
  }

  // ---- the control channel: kill and state changes -----------------------------------------

  #onControl(message: StreamMessage): void {
    const target = message.payload ?? '';
    const colon = target.indexOf(':');
    const kind = target.slice(0, colon);
    const id = target.slice(colon + 1);
    if (message.event === 'kill') {
      const doomed = kind === 'token' ? this.#tokens.get(id) : kind === 'account' ? this.#accounts.get(id)?.connections : undefined;
      for (const connection of [...(doomed ?? [])]) {
        connection.output.kill();
        void connection.close();
      }
    } else if (kind === 'account' && (message.event === 'state_changed' || message.event === 'filters_changed')) {
      this.#invalidate(id);
    }
  }

  // ---- connections ------------------------------------------------------------------------

  /** The control channel's subscription, asked for once while connections are open; one that
   * failed is asked for again by the next connection. */
  #listenToControl(): Promise<() => Promise<void>> {
    if (this.#control === null) {
      const control = this.#core.bus.subscribe(channels.control, (message) => this.#onControl(message));
      control.catch(() => {
        if (this.#control === control) this.#control = null;
      });
      this.#control = control;
    }
    return this.#control;
  }

  connect(identity: StreamIdentity, output: StreamOutput): StreamConnection {
    const control = this.#listenToControl();
    const known = this.#accounts.get(identity.accountId);
    const entry: AccountEntry = known ?? { connections: [], state: null, waiting: null, loading: false, stale: false };
    const connection = new Connection(this, identity, output, entry, control);
    this.#connections.add(connection);
    const tokens = this.#tokens.get(identity.tokenId);
    if (tokens === undefined) this.#tokens.set(identity.tokenId, [connection]);
    else tokens.push(connection);
    entry.connections.push(connection);
    if (known === undefined) {
      this.#accounts.set(identity.accountId, entry);
      this.#load(identity.accountId, entry, control);
    }
    return connection;
  }

  async release(connection: Connection): Promise<void> {
    this.#connections.delete(connection);
    const { tokenId, accountId } = connection.identity;
    const tokens = this.#tokens.get(tokenId);
    if (tokens !== undefined && remove(tokens, connection) && tokens.length === 0) this.#tokens.delete(tokenId);
    const entry = this.#accounts.get(accountId);
    if (entry !== undefined && remove(entry.connections, connection) && entry.connections.length === 0) this.#accounts.delete(accountId);
    if (this.#connections.size === 0 && this.#control !== null) {
      const control = this.#control;
      this.#control = null;
      let unsubscribe: () => Promise<void>;
      try {
        unsubscribe = await control;
      } catch {
        return; // never subscribed
      }
      await unsubscribe();
    }
  }

  async authenticate(credentials: StreamCredentials): Promise<StreamIdentity | StreamRefusal> {
    const raw = tokenFrom(credentials);
    if (raw === null) return { status: 401, error: streamTexts.missingToken };
    // A token revoked elsewhere before this stream was asked for must not open it.
    this.#core.storage.freshen?.();
    const found = await lookupToken(this.#core, raw);
    if (found.kind !== 'valid' || found.account === null || found.user === null) return { status: 401, error: streamTexts.invalidToken };
    const user = found.user;
    if (!maySignIn(found.account, user) || !user.approved || user.confirmedAt === null) return { status: 401, error: streamTexts.invalidToken };
    return { tokenId: found.token.id, accountId: found.account.id, scopes: found.token.scopes };
  }

  async openSse(path: string, query: Record<string, string | undefined>, credentials: StreamCredentials, output: StreamOutput): Promise<StreamConnection | StreamRefusal> {
    const name = streamForPath(path, query);
    if (name === null) return { status: 400, error: streamTexts.unknownChannel };
    const identity = await this.authenticate(credentials);
    if ('error' in identity) return identity;
    const connection = this.connect(identity, output);
    const refused = await connection.subscribe(name, { tag: query['tag'], list: query['list'] });
    if (refused !== null) {
      await connection.close();
      return refused;
    }
    return connection;
  }

  async settled(): Promise<void> {
    while (this.#loads.size > 0) await Promise.all([...this.#loads]);
  }

  stats(): StreamHubStats {
    let subscriptions = 0;
    for (const connection of this.#connections) subscriptions += connection.subscriptions.length;
    return { connections: this.#connections.size, subscriptions, channels: this.#channels.size };
  }

  async close(): Promise<void> {
    this.#stopWatchingReconnects?.();
    await Promise.all([...this.#connections].map((connection) => connection.close()));
  }
}

export function createStreamHub(core: AppCore): StreamHub {
  return new Hub(core);
}

/** The frames of one bus message: per payload variant (with or without the subscriber's filter
 * results) one SSE encoding, and per stream key one WebSocket encoding. */
class FrameCache {
  readonly #message: StreamMessage;
  readonly #payloads = new Map<string, { payload: string | undefined; sse: Uint8Array | null }>();
  readonly #events = new Map<string, StreamEvent>();
  /** By stream key, the events without results and with none matched: what nearly every
   * subscriber gets, found without building a key for each. */
  readonly #plain = new Map<string, StreamEvent>();
  readonly #unmatched = new Map<string, StreamEvent>();
  /** The last of those found: subscribers of one shared stream definition (the public and
   * hashtag streams) come one after another, and are then matched by identity alone. Three
   * fields, not an object: with per-account streams it changes at every subscriber. */
  #lastStream: ResolvedStream | null = null;
  #lastPlain = false;
  #lastEvent: StreamEvent | null = null;

  constructor(message: StreamMessage) {
    this.#message = message;
  }

  get(stream: ResolvedStream, results: readonly FilterResultJson[] | null): StreamEvent {
    if (results === null || results.length === 0) {
      const plain = results === null;
      if (this.#lastEvent !== null && this.#lastStream === stream && this.#lastPlain === plain) return this.#lastEvent;
      const byStream = plain ? this.#plain : this.#unmatched;
      let event = byStream.get(stream.keyJson);
      if (event === undefined) {
        event = this.#build(stream, results, plain ? '' : '[]');
        byStream.set(stream.keyJson, event);
      }
      this.#lastStream = stream;
      this.#lastPlain = plain;
      this.#lastEvent = event;
      return event;
    }
    const resultsJson = JSON.stringify(results);
    const eventKey = `${stream.keyJson}\u0000${resultsJson}`;
    const known = this.#events.get(eventKey);
    if (known !== undefined) return known;
    const built = this.#build(stream, results, resultsJson);
    this.#events.set(eventKey, built);
    return built;
  }

  #build(stream: ResolvedStream, results: readonly FilterResultJson[] | null, resultsJson: string): StreamEvent {
    let variant = this.#payloads.get(resultsJson);
    if (variant === undefined) {
      const payload = this.#message.payload;
      variant = { payload: results === null || payload === undefined ? payload : withFiltered(payload, results), sse: null };
      this.#payloads.set(resultsJson, variant);
    }
    const shared = variant;
    const event = this.#message.event;
    const key = stream.key;
    let ws: Uint8Array | null = null;
    const built: StreamEvent = {
      event,
      sse: () => (shared.sse ??= sseFrame(event, shared.payload)),
      ws: () => (ws ??= wsFrame(key, event, shared.payload)),
    };
    return built;
  }
}
