// npm run bench: load the standalone instance on 127.0.0.1 and report, per scenario, the
// throughput, the latency and the server's CPU time per request. On shared machines
// requests per second swing with the neighbours' load; CPU per request stays steady, so read
// that first. Benchmarks prove performance; tests never time anything.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeRookery } from '../adapters/node/index.ts';
import { openSqliteStorage } from '../adapters/sqlite/index.ts';
import { createLocalAccount } from '../core/accounts/create.ts';
import { registerApplication } from '../core/oauth/apps.ts';
import { issueToken } from '../core/oauth/tokens.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** utime + stime of a process, in microseconds. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
}

async function seed(databasePath: string, port: number) {
  const config = { domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` };
  const rookery = await createNodeRookery({ config, storage: openSqliteStorage({ path: databasePath }) });
  const core = rookery.core;
  const { account } = await createLocalAccount(core, { username: 'bench', email: 'bench@example.com', password: 'bench password' });
  const { application } = await registerApplication(core, { name: 'bench', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
  const { accessToken } = await issueToken(core, application.id, account.id, ['read', 'write']);
  await rookery.close();
  return accessToken;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-bench-'));
  const port = await freePort();
  const token = await seed(join(dataDir, 'rookery.sqlite3'), port);
  const server = spawn(process.execPath, [join(root, 'examples/standalone/server.ts')], {
    env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), STREAMING_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 100; i++) {
      if (await fetch(`${base}/api/v1/instance`).then((r) => r.ok).catch(() => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (text: string) => ((await (await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: auth, body: JSON.stringify({ status: text }) })).json()) as { id: string }).id;
    let statusId = '';
    for (let i = 0; i < 40; i++) statusId = await post(`Seed status ${i} with a #tag and https://example.com/${i}`);

    const scenarios: { name: string; options: Record<string, unknown> }[] = [
      { name: 'GET status (anonymous)', options: { url: `${base}/api/v1/statuses/${statusId}` } },
      { name: 'GET status (signed in)', options: { url: `${base}/api/v1/statuses/${statusId}`, headers: auth } },
      { name: 'GET public timeline (20)', options: { url: `${base}/api/v1/timelines/public?limit=20` } },
      { name: 'POST favourite (idempotent)', options: { url: `${base}/api/v1/statuses/${statusId}/favourite`, method: 'POST', headers: auth } },
      { name: 'POST status (publish)', options: { url: `${base}/api/v1/statuses`, method: 'POST', headers: auth, body: JSON.stringify({ status: 'benchmark post #bench' }) } },
    ];
    console.log(`Rookery standalone on 127.0.0.1, SQLite (synchronous=FULL), ${CONNECTIONS} connections, ${DURATION} s per scenario\n`);
    console.log('scenario                         req/s    p50 ms  p99 ms  server CPU µs/req  errors');
    for (const scenario of scenarios) {
      const before = cpuMicros(server.pid ?? 0);
      const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...scenario.options });
      const cpu = (cpuMicros(server.pid ?? 0) - before) / Math.max(1, result.requests.total);
      const errors = result.non2xx + result.errors;
      console.log(
        `${scenario.name.padEnd(31)} ${result.requests.average.toFixed(0).padStart(7)}  ${String(result.latency.p50).padStart(6)}  ${String(result.latency.p99).padStart(6)}  ${cpu.toFixed(0).padStart(17)}  ${String(errors).padStart(6)}`,
      );
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
