// The standalone Rookery instance: Rookery's node:http handler on its own server (the thinnest
// transport: hapi is for apps that are hapi apps already), with the embedded SQLite store in
// DATA_DIR, or MongoDB when MONGODB_URI is set. `npm start` runs this file.

import { createServer } from 'node:http';
import { createNodeHandler } from '../../adapters/node/handler.ts';
import { createNodeRookery, systemClock } from '../../adapters/node/index.ts';
import { readSettings } from './env.ts';
import { createLogger } from './logger.ts';
import { listen, ListenError } from './listen.ts';
import { standalonePlugins } from './plugins.ts';
import { startStandaloneStreaming } from './streaming.ts';
import { openStore } from './store.ts';

const log = createLogger();
const settings = readSettings();
const { storage, where } = await openStore(settings);
// A shifted clock is for tests only (ROOKERY_TEST_CLOCK_OFFSET_MS): said loudly when set.
const shift = settings.clockOffsetMs;
if (shift !== 0) log.warn({ offsetMs: shift }, 'ROOKERY_TEST_CLOCK_OFFSET_MS is set: this instance runs ahead of the real time (for tests only)');
const clock = shift === 0 ? systemClock : { now: () => Date.now() + shift };
const rookery = await createNodeRookery({ config: settings.config, storage, logger: log, clock, plugins: standalonePlugins(settings.dataDir) });
const handle = createNodeHandler(rookery);
const requestLog = log.isLevelEnabled('info');

const server = createServer((req, res) => {
  if (requestLog) {
    const started = performance.now();
    // The path only: a query string may carry an access token.
    const path = (req.url ?? '/').split('?', 1)[0];
    res.once('finish', () => log.info({ method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request'));
  }
  handle(req, res);
});
const streaming = await startStandaloneStreaming(rookery, settings, log);
try {
  await listen(server, settings, 'PORT');
} catch (err) {
  if (!(err instanceof ListenError)) throw err;
  log.error({}, err.message);
  console.error(err.message);
  await streaming.close();
  await rookery.close();
  process.exit(1);
}
const stopJobs = rookery.startJobs();
const upLine = `Rookery is up on http://${settings.bind}:${settings.port}`;
// Said whatever the log level: operators and scripts wait for it.
if (requestLog) log.info({ url: settings.config.baseUrl, data: where }, upLine);
else console.log(upLine);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  // Streams end first (their clients reconnect elsewhere), then HTTP.
  await streaming.close();
  // Stop taking requests and let the ones in flight finish (at most 10 s), then close the
  // store: every write acknowledged to a client was committed (synchronous=FULL) before its
  // response.
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
  stopJobs();
  await rookery.close();
  log.info({}, 'stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
