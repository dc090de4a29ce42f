// The event bus port: carries stream messages to every process that serves streams.
// Channels follow Mastodon's names (see core/events/channels.ts). A message's payload is
// already encoded (JSON text, or a bare id for `delete`), so transports can frame it once.

export interface StreamMessage {
  event: string;
  payload?: string;
}

export type StreamHandler = (message: StreamMessage, channel: string) => void;

export interface EventBus {
  publish(channel: string, message: StreamMessage): Promise<void>;
  /** Returns a function that ends the subscription. */
  subscribe(channel: string, handler: StreamHandler): Promise<() => Promise<void>>;
  /** Whether anyone listens on the channel (lets the core skip per-user rendering for nobody);
   * an adapter that cannot tell answers true. */
  hasSubscribers(channel: string): Promise<boolean>;
  close(): Promise<void>;
}
