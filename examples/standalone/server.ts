// The standalone Rookery instance. `npm start` runs this file. Its store is SQLite in DATA_DIR,
// PostgreSQL when DATABASE_URL is set, or MongoDB when MONGODB_URI is. By default (ROOKERY_ROLE=all) one process does
// everything; with REDIS_URL, the same file runs one part of a deployment of many processes:
// - web: the API, the OAuth and front pages and SSE, on Rookery's node:http handler (the
//   thinnest transport: hapi is for apps that are hapi apps already), on PORT;
// - streaming: the uWebSockets.js streaming server, on STREAMING_PORT;
// - worker: the queue's handlers (notifications, stream fan-out, the plugins' jobs) and the
//   periodic jobs; no port.

import { createServer, type Server } from 'node:http';
import { createNodeHandler, createNodeRookery, limitNodeServer, systemClock } from '../../adapters/node/index.ts';
import type { StreamingServer } from '../../adapters/uws/index.ts';
import { readSettings, type StandaloneSettings } from './env.ts';
import { secretKey } from './keys.ts';
import { createLogger } from './logger.ts';
import { listen, ListenError } from './listen.ts';
import { standalonePlugins } from './plugins.ts';
import { openShared } from './shared.ts';
import { startStandaloneStreaming } from './streaming.ts';
import { openStore } from './store.ts';
import { smtpMailer } from '../../adapters/smtp/index.ts';

const log = createLogger();
const requestLog = log.isLevelEnabled('info');

/** Stops with one clear line instead of a stack trace: a setting is wrong or a service is away. */
function cannotStart(message: string): never {
  log.error({}, message);
  console.error(message);
  process.exit(1);
}

let settings: StandaloneSettings;
try {
  settings = readSettings();
} catch (err) {
  cannotStart(err instanceof Error ? err.message : String(err));
}
const { role } = settings;
const servesWeb = role === 'web' || role === 'all';
const servesStreams = role === 'streaming' || role === 'all';
const runsJobs = role === 'worker' || role === 'all';

const opened = await Promise.all([openStore(settings), openShared(settings, log)]).catch((err: unknown) => cannotStart(err instanceof Error ? err.message : String(err)));
const [{ storage, where }, shared] = opened;
// A shifted clock is for tests only (ROOKERY_TEST_CLOCK_OFFSET_MS): said loudly when set.
const shift = settings.clockOffsetMs;
if (shift !== 0) log.warn({ offsetMs: shift }, 'ROOKERY_TEST_CLOCK_OFFSET_MS is set: this instance runs ahead of the real time (for tests only)');
const clock = shift === 0 ? systemClock : { now: () => Date.now() + shift };
// Without SMTP_SERVER, mail (confirmations, password resets) is logged: said once, here.
const mailer = settings.smtp === null ? null : smtpMailer(settings.smtp);
if (mailer === null && runsJobs) log.warn({}, 'SMTP_SERVER is not set: mail is logged (links redacted), not sent');
const rookery = await createNodeRookery({
  config: settings.config,
  storage,
  logger: log,
  clock,
  // Every process runs the same plugins: a job one of them records names a handler of the others.
  plugins: standalonePlugins(settings.dataDir, settings.federation),
  worker: runsJobs,
  secrets: { secretKey: secretKey(settings.dataDir) },
  ...(shared.counters ? { counters: shared.counters } : {}),
  ...(mailer !== null ? { mailer } : {}),
  ...(shared.bus ? { bus: shared.bus } : {}),
  ...(shared.queue ? { queue: shared.queue } : {}),
  ...(shared.idNode !== undefined ? { idNode: shared.idNode } : {}),
});

// With METRICS_PORT, a registry of this process's metrics (loaded only then).
const metrics = settings.metricsPort === null ? null : (await import('../../adapters/prometheus/index.ts')).createRookeryMetrics(rookery);

function webServer(): Server {
  const handle = createNodeHandler(rookery, settings.connections);
  const server = createServer((req, res) => {
    if (metrics !== null) {
      const started = performance.now();
      res.once('finish', () => metrics.observeRequest(req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000));
    }
    if (requestLog) {
      const started = performance.now();
      // The path only: a query string may carry an access token.
      const path = (req.url ?? '/').split('?', 1)[0];
      res.once('finish', () => log.info({ method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request'));
    }
    handle(req, res);
  });
  limitNodeServer(server, rookery);
  return server;
}

const streaming: StreamingServer | null = servesStreams ? await startStandaloneStreaming(rookery, settings, log) : null;
const server = servesWeb ? webServer() : null;
if (server !== null) {
  try {
    await listen(server, settings, 'PORT');
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    await streaming?.close();
    await rookery.close();
    await shared.release();
    cannotStart(err.message);
  }
}
// GET /metrics on a port of its own (BIND:METRICS_PORT), kept off the public one: what
// Prometheus scrapes need not be reachable by clients.
async function startMetricsServer(registry: import('prom-client').Registry): Promise<Server> {
  const served = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        log.error({ err }, 'metrics could not be collected');
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('Service Unavailable');
      },
    );
  });
  await listen(served, { port: settings.metricsPort ?? 0, bind: settings.bind }, 'METRICS_PORT');
  return served;
}
let metricsServer: Server | null = null;
try {
  if (metrics !== null) metricsServer = await startMetricsServer(metrics.registry);
} catch (err) {
  if (!(err instanceof ListenError)) throw err;
  server?.close();
  await streaming?.close();
  await rookery.close();
  await shared.release();
  cannotStart(err.message);
}

const stopJobs = runsJobs ? rookery.startJobs() : () => {};

// Said whatever the log level: operators and scripts wait for it.
const upLine =
  role === 'worker'
    ? 'Rookery worker is up'
    : role === 'streaming'
      ? `Rookery streaming is up on ${streaming?.host}:${streaming?.port}`
      : `Rookery is up on http://${settings.bind}:${settings.port}`;
if (requestLog) log.info({ role, url: settings.config.baseUrl, data: where, redis: settings.redisUrl !== null }, upLine);
else console.log(upLine);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  // Streams end first (their clients reconnect elsewhere), on both transports, then HTTP.
  await streaming?.close();
  await rookery.streaming.close();
  if (server !== null) {
    // Stop taking requests and let the ones in flight finish (at most 10 s), then close the
    // store: every write acknowledged to a client was committed before its response.
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    await closed;
    clearTimeout(force);
  }
  metricsServer?.closeAllConnections();
  metricsServer?.close();
  stopJobs();
  // The worker finishes the job in hand; a job cut short is leased and runs again elsewhere.
  await rookery.close();
  mailer?.close();
  await shared.release();
  log.info({}, 'stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
