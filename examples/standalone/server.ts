// The standalone Rookery instance: the hapi plugin on its own server, with the embedded SQLite
// store in DATA_DIR. `npm start` runs this file.

import { mkdirSync } from 'node:fs';
import Hapi from '@hapi/hapi';
import { rookeryHapi } from '../../adapters/hapi/index.ts';
import { createNodeRookery } from '../../adapters/node/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { readSettings } from './env.ts';
import { createLogger } from './logger.ts';
import { startStandaloneStreaming } from './streaming.ts';

const log = createLogger();
const settings = readSettings();
mkdirSync(settings.dataDir, { recursive: true });
const storage = openSqliteStorage({ path: settings.databasePath });
const rookery = await createNodeRookery({ config: settings.config, storage, logger: log });
const server = Hapi.server({ port: settings.port, host: settings.bind, routes: { timeout: { server: 30_000 } } });
await server.register({ plugin: rookeryHapi, options: { rookery } });
server.events.on('response', (request) => {
  const response = request.response as { statusCode?: number } | null;
  log.info({ method: request.method.toUpperCase(), path: request.path, status: response?.statusCode, ms: Date.now() - request.info.received }, 'request');
});
const streaming = await startStandaloneStreaming(rookery, settings, log);
await server.start();
const stopJobs = rookery.startJobs();
log.info({ url: settings.config.baseUrl, listening: server.info.uri, data: settings.databasePath }, `Rookery is up on ${server.info.uri}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  // Stop taking requests and let the ones in flight finish, then close the store: every
  // write acknowledged to a client was committed (synchronous=FULL) before its response.
  await streaming.close();
  await server.stop({ timeout: 10_000 });
  stopJobs();
  await rookery.close();
  log.info({}, 'stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
