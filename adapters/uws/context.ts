// What the SSE and WebSocket halves of the streaming server share.

import type { Logger } from '../../core/domain/ports/logger.ts';
import type { StreamHub } from '../../core/mastodon/streaming/hub.ts';
import type { Rota } from './rota.ts';

export interface TransportContext {
  hub: StreamHub;
  logger: Logger;
  /** Bytes a connection may have waiting for a slow reader before it is closed. */
  maxBackpressure: number;
  /** Open SSE streams (heartbeats, a turn at a time; shutdown). */
  sse: Rota<{ heartbeat(): void; end(): void }>;
  /** The hub's connection.close() calls still running, so that close() can wait for them. */
  track(closing: Promise<void>): void;
}
