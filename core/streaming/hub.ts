// The one entry for live streams (SSE and WebSocket alike). It authenticates a stream, maps
// stream names to channels, checks scopes and list ownership, subscribes to the bus once per
// channel per process, screens every status event per subscriber (subscriber.ts) and hands the
// transport events whose bytes are encoded once and shared. It closes a connection whose token
// is revoked or whose account is disabled. A transport only moves bytes, heartbeats and pings.
// When the bus reconnects (Redis restarted), every account's state is reloaded, since an
// invalidation published during the outage may never arrive.

import type { Core } from '../core.ts';
import { channels } from '../events/channels.ts';
import { isId } from '../ids.ts';
import type { Id } from '../model.ts';
import { lookupToken } from '../oauth/tokens.ts';
import type { StreamMessage } from '../ports/bus.ts';
import type { FilterResultJson } from '../present/filter.ts';
import { sseFrame, wsFrame } from './encode.ts';
import { isRefusal, resolveStream, streamForPath, streamTexts, type ResolvedStream, type StreamParams, type StreamRefusal } from './streams.ts';
import { loadSubscriberState, screen, type SubscriberState } from './subscriber.ts';

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
  /** Ends every connection's subscriptions (not the connections themselves). */
  close(): Promise<void>;
}

interface Subscription {
  stream: ResolvedStream;
  connection: Connection;
  /** JSON of stream.key, for caching frames per key. */
  keyJson: string;
}

interface Connection extends StreamConnection {
  output: StreamOutput;
  subscriptions: Map<string, Subscription>;
  closed: boolean;
}

interface ChannelEntry {
  subscriptions: Set<Subscription>;
  unsubscribe: Promise<() => Promise<void>>;
}

interface StateEntry {
  refs: number;
  state: SubscriberState | null;
  /** Deliveries that wait for a (re)load, in order. */
  waiting: (() => void)[];
  loading: boolean;
  /** A change arrived during a load: load again afterwards. */
  stale: boolean;
}

/** Deliveries held while an account's state reloads; past this, the account's connections are
 * ended rather than letting memory grow. */
const MAX_WAITING = 10_000;

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
function withFiltered(payload: string, results: FilterResultJson[]): string {
  return `${payload.slice(0, -1)},"filtered":${JSON.stringify(results)}}`;
}

export function createStreamHub(core: Core): StreamHub {
  const channelEntries = new Map<string, ChannelEntry>();
  const states = new Map<Id, StateEntry>();
  const connections = new Set<Connection>();
  const loads = new Set<Promise<void>>();

  // ---- account states ---------------------------------------------------------------------

  function load(accountId: Id, entry: StateEntry): void {
    entry.loading = true;
    entry.stale = false;
    const loading: Promise<void> = loadSubscriberState(core, accountId).then(
      (state) => {
        entry.state = state;
        finishLoad(accountId, entry);
      },
      (err: unknown) => {
        // Without it nothing can be screened: end the account's streams rather than guess.
        core.logger.error({ err, accountId }, 'could not load what a stream subscriber hides: its streams end');
        entry.loading = false;
        entry.waiting = [];
        for (const connection of [...connections]) {
          if (connection.identity.accountId !== accountId) continue;
          connection.output.kill();
          void connection.close();
        }
      },
    );
    loads.add(loading);
    void loading.finally(() => loads.delete(loading));
  }

  function finishLoad(accountId: Id, entry: StateEntry): void {
    if (entry.stale && entry.refs > 0) return load(accountId, entry);
    entry.loading = false;
    const waiting = entry.waiting;
    entry.waiting = [];
    for (const run of waiting) run();
  }

  function acquireState(accountId: Id): void {
    let entry = states.get(accountId);
    if (entry === undefined) {
      entry = { refs: 0, state: null, waiting: [], loading: false, stale: false };
      states.set(accountId, entry);
      load(accountId, entry);
    }
    entry.refs += 1;
  }

  function releaseState(accountId: Id): void {
    const entry = states.get(accountId);
    if (entry === undefined) return;
    entry.refs -= 1;
    if (entry.refs <= 0) states.delete(accountId);
  }

  function invalidate(accountId: Id): void {
    const entry = states.get(accountId);
    if (entry === undefined) return;
    if (entry.loading) entry.stale = true;
    else load(accountId, entry);
  }

  // A bus that lost its connection may have lost invalidations meanwhile: reload every state.
  const stopWatchingReconnects = core.bus.onReconnect?.(() => {
    for (const accountId of states.keys()) invalidate(accountId);
  });

  // ---- channels ---------------------------------------------------------------------------

  async function join(channel: string, subscription: Subscription): Promise<void> {
    let entry = channelEntries.get(channel);
    if (entry === undefined) {
      const created: ChannelEntry = { subscriptions: new Set(), unsubscribe: core.bus.subscribe(channel, (message) => dispatch(created, message)) };
      entry = created;
      channelEntries.set(channel, created);
    }
    entry.subscriptions.add(subscription);
    await entry.unsubscribe;
  }

  async function leave(channel: string, subscription: Subscription): Promise<void> {
    const entry = channelEntries.get(channel);
    if (entry === undefined || !entry.subscriptions.delete(subscription)) return;
    if (entry.subscriptions.size > 0) return;
    channelEntries.delete(channel);
    await (await entry.unsubscribe)();
  }

  /** One bus message to every subscription of a channel; frames shared across subscriptions. */
  function dispatch(entry: ChannelEntry, message: StreamMessage): void {
    const frames = new FrameCache(message);
    for (const subscription of [...entry.subscriptions]) deliver(subscription, message, frames);
  }

  function deliver(subscription: Subscription, message: StreamMessage, frames: FrameCache): void {
    const { stream, connection } = subscription;
    if (connection.closed) return;
    if (stream.events !== null && !stream.events.has(message.event)) return;
    if (message.event === 'filters_changed' && stream.name !== 'user') return;
    const isStatus = (message.event === 'update' || message.event === 'status.update') && message.status !== undefined && message.payload !== undefined;
    if (!isStatus || !stream.filtersStatuses) {
      connection.output.deliver(frames.get(subscription, null));
      return;
    }
    const entry = states.get(connection.identity.accountId);
    if (entry === undefined) return;
    if (entry.loading || entry.state === null) {
      if (entry.waiting.length >= MAX_WAITING) {
        core.logger.warn({ accountId: connection.identity.accountId }, 'stream deliveries piled up while loading: connection ended');
        connection.output.kill();
        void connection.close();
        return;
      }
      entry.waiting.push(() => deliver(subscription, message, frames));
      return;
    }
    const results = screen(entry.state, message.status as NonNullable<StreamMessage['status']>, stream.context, core.clock.now());
    if (results === null) return;
    connection.output.deliver(frames.get(subscription, message.signedIn || results.length > 0 ? results : null));
  }

  // ---- system channels: kill and state changes -------------------------------------------

  const systemSubscribers = new Map<string, { connections: Set<Connection>; unsubscribe: Promise<() => Promise<void>> }>();

  function onSystem(channel: string, message: StreamMessage, accountId: Id | null): void {
    const entry = systemSubscribers.get(channel);
    if (entry === undefined) return;
    if (message.event === 'kill') {
      for (const connection of [...entry.connections]) {
        connection.output.kill();
        void connection.close();
      }
    } else if (accountId !== null && (message.event === 'state_changed' || message.event === 'filters_changed')) {
      invalidate(accountId);
    }
  }

  function watchSystem(channel: string, connection: Connection, accountId: Id | null): void {
    let entry = systemSubscribers.get(channel);
    if (entry === undefined) {
      entry = { connections: new Set(), unsubscribe: core.bus.subscribe(channel, (message) => onSystem(channel, message, accountId)) };
      systemSubscribers.set(channel, entry);
    }
    entry.connections.add(connection);
  }

  async function unwatchSystem(channel: string, connection: Connection): Promise<void> {
    const entry = systemSubscribers.get(channel);
    if (entry === undefined || !entry.connections.delete(connection)) return;
    if (entry.connections.size > 0) return;
    systemSubscribers.delete(channel);
    await (await entry.unsubscribe)();
  }

  // ---- connections ------------------------------------------------------------------------

  async function ownsList(accountId: Id, listId: Id): Promise<boolean> {
    if (!isId(listId)) return false;
    const list = await core.storage.lists.get(listId);
    return list !== null && list.accountId === accountId;
  }

  function connect(identity: StreamIdentity, output: StreamOutput): StreamConnection {
    const connection: Connection = {
      identity,
      output,
      subscriptions: new Map(),
      closed: false,
      async subscribe(name, params) {
        if (connection.closed) return null;
        const stream = resolveStream(name, params, identity.accountId, identity.scopes);
        if (isRefusal(stream)) return stream;
        if (stream.listId !== null && !(await ownsList(identity.accountId, stream.listId))) return { status: 401, error: streamTexts.listNotOwned };
        const id = stream.channels.join(';');
        if (connection.subscriptions.has(id) || connection.closed) return null;
        const subscription: Subscription = { stream, connection, keyJson: JSON.stringify(stream.key) };
        connection.subscriptions.set(id, subscription);
        await Promise.all(stream.channels.map((channel) => join(channel, subscription)));
        return null;
      },
      async unsubscribe(name, params) {
        const stream = resolveStream(name, params, identity.accountId, identity.scopes);
        if (isRefusal(stream)) return { status: stream.status, error: streamTexts.unsubscribe };
        const id = stream.channels.join(';');
        const subscription = connection.subscriptions.get(id);
        if (subscription === undefined) return null;
        connection.subscriptions.delete(id);
        await Promise.all(stream.channels.map((channel) => leave(channel, subscription)));
        return null;
      },
      async close() {
        if (connection.closed) return;
        connection.closed = true;
        connections.delete(connection);
        const subscriptions = [...connection.subscriptions.values()];
        connection.subscriptions.clear();
        releaseState(identity.accountId);
        await Promise.all([
          ...subscriptions.flatMap((s) => s.stream.channels.map((channel) => leave(channel, s))),
          unwatchSystem(channels.accessToken(identity.tokenId), connection),
          unwatchSystem(channels.system(identity.accountId), connection),
        ]);
      },
    };
    connections.add(connection);
    acquireState(identity.accountId);
    watchSystem(channels.accessToken(identity.tokenId), connection, null);
    watchSystem(channels.system(identity.accountId), connection, identity.accountId);
    return connection;
  }

  async function authenticate(credentials: StreamCredentials): Promise<StreamIdentity | StreamRefusal> {
    const raw = tokenFrom(credentials);
    if (raw === null) return { status: 401, error: streamTexts.missingToken };
    const found = await lookupToken(core, raw);
    if (found.kind !== 'valid' || found.account === null || found.user === null) return { status: 401, error: streamTexts.invalidToken };
    const user = found.user;
    if (user.disabled || !user.approved || user.confirmedAt === null) return { status: 401, error: streamTexts.invalidToken };
    return { tokenId: found.token.id, accountId: found.account.id, scopes: found.token.scopes };
  }

  return {
    authenticate,
    connect,
    async openSse(path, query, credentials, output) {
      const name = streamForPath(path, query);
      if (name === null) return { status: 400, error: streamTexts.unknownChannel };
      const identity = await authenticate(credentials);
      if ('error' in identity) return identity;
      const connection = connect(identity, output);
      const refused = await connection.subscribe(name, { tag: query['tag'], list: query['list'] });
      if (refused !== null) {
        await connection.close();
        return refused;
      }
      return connection;
    },
    async settled() {
      while (loads.size > 0) await Promise.all([...loads]);
    },
    stats() {
      let subscriptions = 0;
      for (const connection of connections) subscriptions += connection.subscriptions.size;
      return { connections: connections.size, subscriptions, channels: channelEntries.size };
    },
    async close() {
      stopWatchingReconnects?.();
      await Promise.all([...connections].map((connection) => connection.close()));
    },
  };
}

/** The frames of one bus message: per payload variant (with or without the subscriber's filter
 * results) one SSE encoding, and per stream key one WebSocket encoding. */
class FrameCache {
  readonly #message: StreamMessage;
  readonly #payloads = new Map<string, { payload: string | undefined; sse: Uint8Array | null }>();
  readonly #events = new Map<string, StreamEvent>();

  constructor(message: StreamMessage) {
    this.#message = message;
  }

  get(subscription: Subscription, results: FilterResultJson[] | null): StreamEvent {
    const resultsJson = results === null ? '' : JSON.stringify(results);
    const eventKey = `${subscription.keyJson}\u0000${resultsJson}`;
    const known = this.#events.get(eventKey);
    if (known !== undefined) return known;
    let variant = this.#payloads.get(resultsJson);
    if (variant === undefined) {
      const payload = this.#message.payload;
      variant = { payload: results === null || payload === undefined ? payload : withFiltered(payload, results), sse: null };
      this.#payloads.set(resultsJson, variant);
    }
    const shared = variant;
    const event = this.#message.event;
    const key = subscription.stream.key;
    let ws: Uint8Array | null = null;
    const built: StreamEvent = {
      event,
      sse: () => (shared.sse ??= sseFrame(event, shared.payload)),
      ws: () => (ws ??= wsFrame(key, event, shared.payload)),
    };
    this.#events.set(eventKey, built);
    return built;
  }
}
