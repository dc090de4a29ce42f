// What the bench's parts share: free ports, a process's CPU time from /proc, children pinned to
// core 0 (the load generator stays on core 1), the store of a run (SQLite or PostgreSQL, by
// BENCH_STORE) and one measurement (autocannon's warm-up, then the server's CPU per request).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStorage } from '../adapters/postgres/index.ts';
import { openSqliteStorage } from '../adapters/sqlite/index.ts';
import type { Storage } from '../core/domain/ports/storage.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DURATION = Number(process.env['BENCH_SECONDS'] ?? 5);
export const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
/** The warm-up also lasts until this many requests were answered. V8 compiles a hot function
 * with TurboFan only after many calls, on threads that share the server's one pinned core: a
 * scenario of about 2,000 requests a second (a publish) warmed 2 s still compiled some 280
 * functions inside its 5 counted seconds, a quarter of its CPU, which a server that stays up
 * spends once. A bare server, or a read at 30,000 a second, is past this in its 2 s. */
export const WARMUP_REQUESTS = Number(process.env['BENCH_WARMUP_REQUESTS'] ?? 20_000);
export const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
// BENCH_ONLY=<part of a scenario's name> runs only the matching scenarios.
const TICKS_PER_SECOND = 100; // USER_HZ on Linux
// Every thread of the load generator (-a), V8's helpers among them: without it only the main
// thread was moved, and the others could run on the server's core.
export const pinned = spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]).status === 0;
export const STORE = process.env['BENCH_STORE'] || 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`BENCH_STORE must be sqlite or postgres, got "${STORE}"`);

export async function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** utime + stime of a process, in microseconds. */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
}

/** A child on core 0 (when taskset exists), resolved once it prints `ready`. */
/** CPU time of all of a process's threads, in microseconds, at nanosecond resolution (the sum
 * of /proc/<pid>/task/<tid>/schedstat): for costs far below the 10 ms tick of cpuMicros. A
 * thread that exited meanwhile takes its time with it (Node's threads live as long as it). */
export function cpuMicrosFine(pid: number): number {
  let nanos = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return nanos / 1000;
}

export function startOnCore0(args: string[], env: NodeJS.ProcessEnv, ready: string, stdin?: Buffer): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the server, written there when it exits.
  const profile = process.env['BENCH_CPU_PROF'];
  const node = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), ...args];
  const [command, argv] = pinned ? ['taskset', ['-c', '0', process.execPath, ...node]] : [process.execPath, node];
  const child = spawn(command, argv as string[], { env: { ...env, NODE_OPTIONS: '' }, stdio: ['pipe', 'pipe', 'inherit'] });
  if (stdin !== undefined) child.stdin?.end(stdin);
  else child.stdin?.end();
  return new Promise((up, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-2000);
      if (output.includes(ready)) up(child);
    });
    child.once('exit', (code) => fail(new Error(`exited with ${code}: ${output}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    child.removeAllListeners('exit');
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** Where the instance keeps its data for this run, made before and removed after. */
export interface BenchStore {
  label: string;
  /** What the instance's environment gets (DATABASE_URL, or nothing: SQLite in DATA_DIR). */
  env: Record<string, string>;
  /** Opens the store; `bulk`: without waiting for the disk at each commit (SQLite's
   * synchronous=NORMAL), for loading data whose loss in a power cut does not matter. */
  open(bulk?: boolean): Promise<Storage>;
  /** The pids of the database server's processes working for the instance (none for SQLite). */
  serverPids(): Promise<number[]>;
  remove(): Promise<void>;
}

export async function benchStore(dataDir: string): Promise<BenchStore> {
  if (STORE === 'sqlite') {
    const path = join(dataDir, 'rookery.sqlite3');
    return { label: 'SQLite synchronous=FULL', env: {}, open: async (bulk = false) => openSqliteStorage({ path, ...(bulk ? { synchronous: 'normal' as const } : {}) }), serverPids: async () => [], remove: async () => {} };
  }
  const serverUrl = new URL(process.env['BENCH_POSTGRES_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres');
  const database = `rookery_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const version = (await admin.query('SHOW server_version')).rows[0]?.server_version as string;
  return {
    label: `PostgreSQL ${version}, database ${database} on ${url.host}`,
    env: { DATABASE_URL: url.toString() },
    open: () => openPostgresStorage({ url: url.toString() }),
    serverPids: async () => (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])).rows.map((r) => Number(r.pid)),
    async remove() {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** One kind of request, as autocannon sends it. */
export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  /** CPU µs per request of the database server's processes (0 for SQLite, in the process). */
  dbCpu: number;
  errors: number;
  /** Requests answered in the measured window. */
  requests: number;
}

/** The CPU time of processes still there (one that exited meanwhile counts as 0). */
export function cpuOf(pids: readonly number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      times.set(pid, cpuMicros(pid));
    } catch {
      // Gone.
    }
  }
  return times;
}

export async function measure(
  pid: number,
  base: string,
  scenario: Request,
  dbPids: () => Promise<number[]> = async () => [],
  timing: { warmup: number; duration: number; warmupRequests?: number } = { warmup: WARMUP, duration: DURATION, warmupRequests: WARMUP_REQUESTS },
): Promise<Measured> {
  const options = { url: `${base}${scenario.path}`, method: scenario.method, headers: scenario.headers, body: scenario.body, connections: CONNECTIONS };
  const warmed = timing.warmup > 0 ? (await autocannon({ ...options, duration: timing.warmup })).requests.total : 0;
  const more = (timing.warmupRequests ?? 0) - warmed;
  if (more > 0) await autocannon({ ...options, amount: more });
  const before = cpuMicros(pid);
  const dbBefore = cpuOf(await dbPids());
  const result = await autocannon({ ...options, duration: timing.duration });
  const requests = Math.max(1, result.requests.total);
  // A backend that started during the run counts from 0.
  let dbMicros = 0;
  for (const [dbPid, micros] of cpuOf(await dbPids())) dbMicros += micros - (dbBefore.get(dbPid) ?? 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu: (cpuMicros(pid) - before) / requests,
    dbCpu: dbMicros / requests,
    errors: result.non2xx + result.errors,
    requests: result.requests.total,
  };
}

