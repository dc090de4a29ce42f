// The standalone instance's streaming server: uWebSockets.js on STREAMING_PORT (and BIND),
// beside the HTTP server. Clients find it through the instance endpoints' streaming URL
// (STREAMING_API_BASE_URL, or ws://<host>:STREAMING_PORT). If it cannot start, the instance
// does not start either: it says why and exits, rather than serve without streaming.

import { startStreamingServer, type StreamingServer } from '../../adapters/uws/index.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { Rookery } from '../../core/mastodon/rookery.ts';
import type { StandaloneSettings } from './env.ts';

export async function startStandaloneStreaming(rookery: Rookery, settings: StandaloneSettings, log: Logger): Promise<StreamingServer> {
  try {
    const streaming = await startStreamingServer(rookery, { port: settings.streamingPort, host: settings.bind, logger: log });
    log.info({ listening: `${streaming.host}:${streaming.port}`, advertised: rookery.core.config.streamingUrl }, `Streaming is up on ${streaming.host}:${streaming.port}`);
    return streaming;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error({ err }, 'the streaming server did not start');
    console.error(`\nRookery cannot start: ${message}\n`);
    process.exit(1);
  }
}
