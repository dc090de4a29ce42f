// The standalone instance's GET /health (on PORT) and, with METRICS_PORT, GET /metrics on
// BIND:METRICS_PORT for Prometheus: run as operators run it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { runServer, startInstance, stopInstance } from '../helpers/standalone.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-metrics-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

t.test('METRICS_PORT is read as a port, and unset means no metrics', async (t) => {
  t.equal(readSettings({ DATA_DIR: dataDir }).metricsPort, null);
  t.equal(readSettings({ DATA_DIR: dataDir, METRICS_PORT: '' }).metricsPort, null);
  t.equal(readSettings({ DATA_DIR: dataDir, METRICS_PORT: '9394' }).metricsPort, 9394);
  t.throws(() => readSettings({ DATA_DIR: dataDir, METRICS_PORT: 'ninety' }), { message: 'METRICS_PORT must be a port number, got "ninety"' });
  const refused = runServer(childEnv({ DATA_DIR: dataDir, METRICS_PORT: '70000' }));
  t.equal(refused.status, 1);
  t.match(refused.stderr, /METRICS_PORT must be a port number, got "70000"/);
});

t.test('/health on the web port, /metrics on its own', async (t) => {
  const [port, streamingPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const instance = await startInstance(
    childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(streamingPort), METRICS_PORT: String(metricsPort), BIND: '127.0.0.1', LOG_LEVEL: 'warn' }),
  );
  t.teardown(() => stopInstance(instance));
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  t.strictSame([health.status, await health.text()], [200, 'OK']);
  t.match(health.headers.get('content-type'), /^text\/plain/);
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'not on the public port');

  const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  t.equal(scraped.status, 200);
  t.match(scraped.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await scraped.text();
  t.match(text, /^rookery_http_requests_total\{method="GET",status="200"\} [1-9]/m, 'the health check was counted');
  t.match(text, /^rookery_jobs_queued \d+$/m);
  t.match(text, /^rookery_jobs_dead 0$/m);
  t.match(text, /^rookery_stream_connections 0$/m);
  t.match(text, /^rookery_process_resident_memory_bytes \d+/m);
  const other = await fetch(`http://127.0.0.1:${metricsPort}/`);
  t.strictSame([other.status, await other.text()], [404, 'Not Found']);
  t.equal(await stopInstance(instance), 0, 'stops cleanly with the metrics server');
});
