// The event bus port: carries stream messages to every process that serves streams.
// Channels follow Mastodon's names (see core/events/channels.ts). A message's payload is
// already encoded (JSON text, or a bare id for `delete`), so transports can frame it once.

import type { Id } from '../model.ts';

/** What a subscriber's own blocks, mutes, languages and keyword filters are checked against
 * (core/streaming filters each status event per subscriber with it). */
export interface StatusFacts {
  /** The status and, for a boost, its original. */
  statusIds: Id[];
  /** Everyone in it: the author, a boost's original author, the mentioned accounts. */
  accountIds: Id[];
  /** Whose block of the viewer hides it: the author and a boost's original author. */
  authorIds: Id[];
  /** Remote domains of those authors, lower case. */
  domains: string[];
  language: string | null;
  /** What keyword filters read: text, content warning, alt texts, poll options. */
  text: string;
}

export interface StreamMessage {
  event: string;
  payload?: string;
  /** Status events only. */
  status?: StatusFacts;
  /** The payload was rendered for a signed-in viewer (home, list, direct), not anonymously. */
  signedIn?: boolean;
}

export type StreamHandler = (message: StreamMessage, channel: string) => void;

export interface EventBus {
  publish(channel: string, message: StreamMessage): Promise<void>;
  /** Returns a function that ends the subscription. */
  subscribe(channel: string, handler: StreamHandler): Promise<() => Promise<void>>;
  /** Whether anyone listens on the channel (lets the core skip per-user rendering for nobody);
   * an adapter that cannot tell answers true. */
  hasSubscribers(channel: string): Promise<boolean>;
  /** Of these channels, those someone listens to, in any process (one round trip). */
  listening(channels: readonly string[]): Promise<Set<string>>;
  /** For a bus that can lose its connection (Redis): `listener` runs each time it is back and
   * subscribed again, since messages published meanwhile may be lost. Returns a function that
   * removes the listener. An in-process bus never loses anything and need not have it. */
  onReconnect?(listener: () => void): () => void;
  close(): Promise<void>;
}
