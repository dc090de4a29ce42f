// The standalone Rookery instance: Rookery's node:http handler on its own server (the thinnest
// transport: hapi is for apps that are hapi apps already), with the embedded SQLite store in
// DATA_DIR. `npm start` runs this file.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createNodeHandler, createNodeRookery, limitNodeServer } from '../../adapters/node/index.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { readSettings } from './env.ts';
import { createLogger } from './logger.ts';
import { listen, ListenError } from './listen.ts';
import { standalonePlugins } from './plugins.ts';

const log = createLogger();

/** The key that signs what browsers hand back (the sign-in form's CSRF token): SECRET_KEY_BASE,
 * as Mastodon names it, else one made once and kept in DATA_DIR, so that a restart does not
 * void forms in flight. Every process of one instance must share it. */
function secretKey(dataDir: string): string {
  const given = process.env['SECRET_KEY_BASE'];
  if (given !== undefined && given !== '') return given;
  const file = join(dataDir, 'secret_key_base');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const key = randomBytes(48).toString('base64url');
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  }
}
const settings = readSettings();
mkdirSync(settings.dataDir, { recursive: true });
const storage = openSqliteStorage({ path: settings.databasePath });
// With REDIS_URL, every process of the instance counts against the same rate limits.
const counters = settings.redisUrl === null ? undefined : await (await import('../../adapters/redis/rate-limits.ts')).createRedisCounters({ url: settings.redisUrl });
const rookery = await createNodeRookery({
  config: settings.config,
  storage,
  logger: log,
  plugins: standalonePlugins(settings.dataDir),
  secrets: { secretKey: secretKey(settings.dataDir) },
  ...(counters ? { counters } : {}),
});
const handle = createNodeHandler(rookery, settings.connections);
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
limitNodeServer(server, rookery);
try {
  await listen(server, settings, 'PORT');
} catch (err) {
  if (!(err instanceof ListenError)) throw err;
  log.error({}, err.message);
  console.error(err.message);
  await rookery.close();
  process.exit(1);
}
const stopJobs = rookery.startJobs();
const upLine = `Rookery is up on http://${settings.bind}:${settings.port}`;
// Said whatever the log level: operators and scripts wait for it.
if (requestLog) log.info({ url: settings.config.baseUrl, data: settings.databasePath }, upLine);
else console.log(upLine);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
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
