// npm run bench: load the standalone instance on 127.0.0.1 and, in the same run, a bare
// node:http server answering the very same bytes, and report for each scenario the server's
// CPU time per request for both and their ratio (Rookery's requests per CPU-second over the
// bare server's), besides throughput and latency. On a shared machine requests per second
// swing with the neighbours' load; CPU per request stays steady, so read that first.
// Benchmarks prove performance; tests never time anything.
//
// The server runs on core 0 and the load generator on core 1 when taskset is there.
//
// BENCH_STORE=sqlite (default) or postgres: the instance's store for the HTTP scenarios. With
// postgres, a database of its own is created on the server at BENCH_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) and dropped at the end; the CPU time of its
// server processes (the backends of that database, read from /proc) is reported beside the
// instance's: they run on either core, not pinned.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeRookery } from '../adapters/node/index.ts';
import type { Storage } from '../core/domain/ports/storage.ts';
import { benchStore, CONNECTIONS, DURATION, freePort, measure, pinned, root, startOnCore0, stop, STORE, WARMUP, WARMUP_REQUESTS, type BenchStore, type Measured } from './lib.ts';
import { measureSteal, stealText } from './steal.ts';

async function seed(storage: Storage, port: number) {
  const config = { domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` };
  const rookery = await createNodeRookery({ config, storage });
  const account = await rookery.accounts.create({ username: 'bench', email: 'bench@example.com', password: 'bench password' });
  const token = await rookery.tokens.issue(account.id, ['read', 'write']);
  await rookery.close();
  return token;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The goals of the performance issue: the least the bare server's CPU per GET of one status
   * (the first scenario's bare run) may be, as a share of Rookery's CPU per request here;
   * on SQLite and, where given, on PostgreSQL. */
  goal?: { sqlite: number; postgres?: number };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-bench-'));
  const port = await freePort();
  const store = await benchStore(dataDir);
  let server: ChildProcess | null = null;
  try {
    const token = await seed(await store.open(), port);
    const env = { ...process.env, ...store.env, PORT: String(port), STREAMING_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'false' };
    server = await startOnCore0([join(root, 'examples/standalone/server.ts')], env, 'Rookery is up');
    await runScenarios(server, port, token, env, store);
  } finally {
    if (server !== null) await stop(server);
    await store.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runScenarios(server: ChildProcess, port: number, token: string, env: NodeJS.ProcessEnv, store: BenchStore): Promise<void> {
  server.stdout?.removeAllListeners('data');
  server.stdout?.resume();
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const rows: { scenario: Scenario; rookery: Measured; bare: Measured; yardstick: number }[] = [];
  const post = async (text: string) => ((await (await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: auth, body: JSON.stringify({ status: text }) })).json()) as { id: string }).id;
  let statusId = '';
  for (let i = 0; i < 40; i++) statusId = await post(`Seed status ${i} with a #tag and https://example.com/${i}`);
  const reply = async (text: string, to: string) => ((await (await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: auth, body: JSON.stringify({ status: text, in_reply_to_id: to }) })).json()) as { id: string }).id;
  let threadId = statusId;
  for (let i = 0; i < 25; i++) threadId = await reply(`Up ${i}`, threadId);
  for (let i = 0; i < 20; i++) await reply(`Down ${i}`, threadId);

  const scenarios: Scenario[] = [
    { name: 'GET status (anonymous)', method: 'GET', path: `/api/v1/statuses/${statusId}`, headers: {}, goal: { sqlite: 0.5, postgres: 0.3 } },
    { name: 'GET status (signed in)', method: 'GET', path: `/api/v1/statuses/${statusId}`, headers: auth, goal: { sqlite: 0.35 } },
    { name: 'GET public timeline (20)', method: 'GET', path: '/api/v1/timelines/public?limit=20', headers: {}, goal: { sqlite: 0.15, postgres: 0.1 } },
    { name: 'GET context (25 up, 20 down)', method: 'GET', path: `/api/v1/statuses/${threadId}/context`, headers: {}, goal: { sqlite: 0.05 } },
    { name: 'POST favourite (idempotent)', method: 'POST', path: `/api/v1/statuses/${statusId}/favourite`, headers: auth, goal: { sqlite: 0.3 } },
    { name: 'POST status (publish)', method: 'POST', path: '/api/v1/statuses', headers: auth, body: JSON.stringify({ status: 'benchmark post #bench' }), goal: { sqlite: 0.05 } },
  ];
  const only = process.env['BENCH_ONLY'];
  const anonymous = scenarios[0] as Scenario;
  if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => s.name.toLowerCase().includes(only.toLowerCase())));
  console.log(`Rookery standalone (node:http, ${store.label}) against a bare node:http server answering the same bytes;`);
  console.log(`${CONNECTIONS} connections, ${WARMUP} s warm-up (at least ${WARMUP_REQUESTS.toLocaleString('en')} requests) + ${DURATION} s per run${pinned ? ', server on core 0, load on core 1' : ' (taskset missing: not pinned)'}\n`);
  /** The bare server answering what Rookery answers to `scenario`, measured the same way. */
  const measureBare = async (scenario: Scenario): Promise<Measured> => {
    const init: RequestInit = { method: scenario.method, headers: scenario.headers };
    if (scenario.body !== undefined) init.body = scenario.body;
    const sample = Buffer.from(await (await fetch(`${base}${scenario.path}`, init)).arrayBuffer());
    const barePort = await freePort();
    const bare = await startOnCore0([join(root, 'bench/bare-server.ts'), String(barePort)], env, 'bare server up', sample);
    try {
      return await measure(bare.pid ?? 0, `http://127.0.0.1:${barePort}`, scenario);
    } finally {
      await stop(bare);
    }
  };
  // The goals' yardstick is the bare server's CPU per GET of one status, from this run. It is
  // measured again beside every row: this VM's speed drifts within a run (a bare GET of 22.8 µs
  // in a run's first row, the bare server's favourite answer of the same size 45.0 µs four
  // rows later), and a yardstick minutes away from its row measured that drift, not Rookery.
  // The anonymous GET's own bare row is its yardstick; the ratio to the run's first one is
  // printed beside it.
  let first = scenarios[0] === anonymous ? undefined : (await measureBare(anonymous)).cpu;
  for (const scenario of scenarios) {
    const stealSince = measureSteal();
    const rookery = await measure(server.pid ?? 0, base, scenario, () => store.serverPids());
    const bare = await measureBare(scenario);
    const steal = stealSince();
    const yardstick = scenario === anonymous ? bare.cpu : (await measureBare(anonymous)).cpu;
    first ??= yardstick;
    rows.push({ scenario, rookery, bare, yardstick });
    report(scenario, rookery, bare, yardstick, first, steal);
  }
  const failed = rows.filter(({ scenario, rookery, yardstick }) => !meets(scenario, rookery, yardstick));
  console.log(failed.length === 0 ? '\nEvery goal met.' : `\nGoals missed: ${failed.map((r) => r.scenario.name).join('; ')}`);
}

function goalOf(scenario: Scenario): number | undefined {
  return STORE === 'postgres' ? scenario.goal?.postgres : scenario.goal?.sqlite;
}

function meets(scenario: Scenario, rookery: Measured, yardstickCpu: number): boolean {
  const goal = goalOf(scenario);
  if (goal !== undefined && yardstickCpu / rookery.cpu < goal) return false;
  return rookery.errors === 0;
}

/** With PostgreSQL: its processes' CPU per request, and the ratio counting it with Rookery's. */
function database(rookery: Measured, bare: Measured): string {
  if (STORE !== 'postgres') return '';
  return `  | PostgreSQL ${rookery.dbCpu.toFixed(1)} µs/req, ratio with it ${(bare.cpu / (rookery.cpu + rookery.dbCpu)).toFixed(2)}×`;
}

let header = false;
/** `ratio`: against the bare server answering the same bytes; `vs GET`: against the bare
 * server's GET of one status measured beside the row (`yardstickCpu`), the measure of the
 * goals; `first GET`: against the run's first bare GET. */
function report(scenario: Scenario, rookery: Measured, bare: Measured, yardstickCpu: number, firstCpu: number, steal: number | null): void {
  if (!header) {
    header = true;
    console.log('scenario                       Rookery: req/s  p50 ms  p99 ms  CPU µs/req | bare: req/s  CPU µs/req | ratio | bare GET beside  vs GET  goal  | vs first GET  (machine)');
  }
  const goal = goalOf(scenario);
  const target = goal === undefined ? '' : `≥ ${goal.toFixed(2)}× ${meets(scenario, rookery, yardstickCpu) ? 'met' : 'MISSED'}`;
  console.log(
    `${scenario.name.padEnd(30)} ${rookery.rps.toFixed(0).padStart(13)}  ${String(rookery.p50).padStart(6)}  ${String(rookery.p99).padStart(6)}  ${rookery.cpu.toFixed(1).padStart(10)} | ${bare.rps.toFixed(0).padStart(11)}  ${bare.cpu.toFixed(1).padStart(10)} | ${(bare.cpu / rookery.cpu).toFixed(2).padStart(4)}× | ${yardstickCpu.toFixed(1).padStart(12)} µs  ${(yardstickCpu / rookery.cpu).toFixed(2).padStart(5)}×  ${target.padEnd(13)} | ${(firstCpu / rookery.cpu).toFixed(2).padStart(11)}×${rookery.errors ? `  (${rookery.errors} errors)` : ''}${database(rookery, bare)}  (${stealText(steal)})`,
  );
}

// BENCH_PARTS=http,fanout,growth (default http,fanout): the HTTP scenarios, then the streaming
// fan-out, then how cost grows with the data (growth.ts: minutes, so only when asked for).
const parts = (process.env['BENCH_PARTS'] ?? 'http,fanout').split(',');
if (parts.includes('http')) await main();
if (parts.includes('fanout')) {
  console.log('');
  const { runFanout } = await import('./fanout.ts');
  await runFanout();
}
if (parts.includes('growth')) {
  const { runGrowth } = await import('./growth.ts');
  await runGrowth();
}
