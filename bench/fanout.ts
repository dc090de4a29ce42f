// The streaming half of `npm run bench`: Rookery's uWebSockets.js streaming server against a
// bare uWebSockets.js server broadcasting the same bytes already encoded, in one run.
// - Broadcast: 1,000 and 5,000 clients on WebSocket and on SSE; one status published through
//   the API per round; delivery latency from the publishing request to its receipt by every
//   client (p50 / p99 / max), events missed, and server memory per idle connection.
// - Sustained rate: 1,000 WebSocket clients, each an account with its own blocks, mutes and
//   keyword filters; statuses published at growing rates; the highest rate at which every
//   event reaches every client with a p99 under one second.
// Both measured twice, as two deployments: one process on the in-process bus, and a web process
// (API and worker) with a streaming process of its own on the Redis bus and queue.
// Servers on core 0, clients and publisher on core 1 (when taskset exists). Not a test.

import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SIZES = (process.env['BENCH_FANOUT_SIZES'] ?? '1000,5000').split(',').map(Number);
const STEP_SECONDS = Number(process.env['BENCH_STEP_SECONDS'] ?? 4);
const pinned = spawnSync('taskset', ['-cp', '1', String(process.pid)]).status === 0;

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const pause = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

interface Server {
  child: ChildProcess;
  ask<T>(message: object, key: string): Promise<T>;
}

/** A child on core 0 with IPC (and --expose-gc, so memory can be read after a collection). */
async function startServer(script: string, args: string[]): Promise<Server> {
  const child = fork(join(root, script), args, {
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each server process, written there at exit.
    execArgv: ['--expose-gc', ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : [])],
    env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (pinned && child.pid !== undefined) spawnSync('taskset', ['-cp', '0', String(child.pid)]);
  await new Promise<void>((ready, fail) => {
    child.once('message', () => ready());
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code}`)));
  });
  return {
    child,
    ask<T>(message: object, key: string) {
      return new Promise<T>((answer) => {
        const listener = (reply: Record<string, unknown>) => {
          if (!(key in reply)) return;
          child.off('message', listener);
          answer(reply[key] as T);
        };
        child.on('message', listener);
        child.send(message);
      });
    },
  };
}

function stop(server: Server): Promise<void> {
  return new Promise((done) => {
    server.child.once('exit', () => done());
    server.child.kill('SIGTERM');
  });
}

// ---- clients ------------------------------------------------------------------------------

/** One client: `onMarker` is told each marker it sees, once. */
interface Client {
  close(): void;
}

type Seen = (marker: string, at: number) => void;

const MARKER = /mk(\d+)z/g;

function scan(text: string, seen: Set<string>, onSeen: Seen): void {
  const at = performance.now();
  for (const match of text.matchAll(MARKER)) {
    const marker = match[0];
    if (seen.has(marker)) continue;
    seen.add(marker);
    onSeen(marker, at);
  }
}

function openWs(url: string, onSeen: Seen): Promise<Client> {
  return new Promise((ready, fail) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const seen = new Set<string>();
    ws.on('message', (data: Buffer) => scan(data.toString('latin1'), seen, onSeen));
    ws.once('open', () => ready({ close: () => ws.terminate() }));
    ws.once('error', fail);
  });
}

function openSse(port: number, path: string, onSeen: Seen): Promise<Client> {
  return new Promise((ready, fail) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const seen = new Set<string>();
    let tail = '';
    let open = false;
    socket.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      if (!open) {
        open = true;
        ready({ close: () => socket.destroy() });
      }
      scan(text, seen, onSeen);
      tail = text.slice(-24);
    });
    socket.once('error', fail);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
}

/** Opens `count` clients, a few hundred at a time. */
async function openMany(count: number, open: (i: number) => Promise<Client>): Promise<Client[]> {
  const clients: Client[] = [];
  for (let start = 0; start < count; start += 250) {
    const batch = await Promise.all(Array.from({ length: Math.min(250, count - start) }, (_, j) => open(start + j)));
    clients.push(...batch);
  }
  return clients;
}

// ---- measurements -------------------------------------------------------------------------

interface Stats {
  rss: number;
  heap: number;
  cpu: number;
  hub?: { connections: number; subscriptions: number };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Broadcast {
  p50: number;
  p99: number;
  max: number;
  missed: number;
  perConnection: number;
  cpuPerRound: number;
}

/** Rounds of one event to `count` connected clients; latencies of every delivery. */
/** CPU time (µs) of every process on the server side. */
type CpuOf = () => Promise<number>;

async function rounds(count: number, arrivals: Map<string, number[]>, send: (marker: string) => Promise<number>, cpu: CpuOf): Promise<Omit<Broadcast, 'perConnection'>> {
  const latencies: number[] = [];
  let missed = 0;
  const cpuBefore = await cpu();
  for (let round = 0; round < ROUNDS; round++) {
    const marker = `mk${Date.now()}${round}z`;
    arrivals.set(marker, []);
    const sentAt = await send(marker);
    const deadline = performance.now() + 15_000;
    while ((arrivals.get(marker)?.length ?? 0) < count && performance.now() < deadline) await pause(5);
    const got = arrivals.get(marker) ?? [];
    for (const at of got) latencies.push(at - sentAt);
    missed += count - got.length;
    arrivals.delete(marker);
    await pause(200);
  }
  const cpuAfter = await cpu();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN, missed, cpuPerRound: (cpuAfter - cpuBefore) / ROUNDS / 1000 };
}

async function waitConnections(server: Server, count: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const stats = await server.ask<Stats>({ cmd: 'stats' }, 'stats');
    if (stats.hub === undefined || stats.hub.subscriptions >= count) return;
    await pause(20);
  }
  throw new Error(`only part of ${count} streams subscribed`);
}

/** Rookery as it is deployed for one set of figures: one process, or a web process (API and
 * worker) and a streaming process on the Redis bus. */
interface Deployment {
  label: string;
  httpPort: number;
  streamingPort: number;
  /** Where statuses are published and jobs drained. */
  web: Server;
  /** Where streams are held: its memory and subscriptions are the ones measured. */
  streams: Server;
  cpu: CpuOf;
  stop(): Promise<void>;
}

/** Opens and closes as many clients once before memory is measured, so that what the process
 * grows on its first connections of a kind (heap spaces, code, buffers) is not counted as the
 * cost of each connection. */
async function warmUp(open: () => Promise<Client[]>, opened: () => Promise<unknown>, closed: () => Promise<unknown>): Promise<void> {
  const clients = await open();
  await opened();
  for (const client of clients) client.close();
  await closed();
}

async function rookeryBroadcast(d: Deployment, author: string, readers: readonly string[], transport: 'ws' | 'sse', count: number): Promise<Broadcast> {
  const { streams: server, httpPort, streamingPort } = d;
  const arrivals = new Map<string, number[]>();
  const onSeen: Seen = (marker, at) => arrivals.get(marker)?.push(at);
  const open = () =>
    openMany(count, (i) =>
      transport === 'ws'
        ? openWs(`ws://127.0.0.1:${streamingPort}/api/v1/streaming?stream=public&access_token=${readers[i % readers.length]}`, onSeen)
        : openSse(streamingPort, `/api/v1/streaming/public?access_token=${readers[i % readers.length]}`, onSeen),
    );
  await warmUp(open, () => waitConnections(server, count), () => waitConnections(server, 0).catch(() => undefined));
  const before = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  const clients = await open();
  await waitConnections(server, count);
  await pause(500);
  const idle = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  const result = await rounds(count, arrivals, async (marker) => {
    const sentAt = performance.now();
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1/statuses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${author}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: `A status for everyone, ${marker}, with a little text to make it the size of a real one. #bench` }),
    });
    await res.arrayBuffer();
    return sentAt;
  }, d.cpu);
  for (const client of clients) client.close();
  await waitConnections(server, 0).catch(() => undefined);
  return { ...result, perConnection: (idle.rss - before.rss) / count };
}

async function bareBroadcast(server: Server, port: number, transport: 'ws' | 'sse', count: number, sample: { ws: string; sse: string }): Promise<Broadcast> {
  const arrivals = new Map<string, number[]>();
  const onSeen: Seen = (marker, at) => arrivals.get(marker)?.push(at);
  const open = () => openMany(count, () => (transport === 'ws' ? openWs(`ws://127.0.0.1:${port}/`, onSeen) : openSse(port, '/sse', onSeen)));
  await warmUp(open, () => pause(500), () => pause(500));
  const before = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  const clients = await open();
  await pause(500);
  const idle = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  const result = await rounds(count, arrivals, async (marker) => {
    const sentAt = performance.now();
    server.child.send({ cmd: 'broadcast', ws: sample.ws.replace('MARKER', marker), sse: sample.sse.replace('MARKER', marker) });
    return sentAt;
  }, async () => (await server.ask<Stats>({ cmd: 'stats' }, 'stats')).cpu);
  for (const client of clients) client.close();
  await pause(500);
  return { ...result, perConnection: (idle.rss - before.rss) / count };
}

/** Statuses at `rate` per second for STEP_SECONDS to 1,000 screened clients. */
async function step(httpPort: number, author: string, arrivals: Map<string, number[]>, count: number, rate: number): Promise<{ p99: number; missed: number; sent: number }> {
  const sentAt = new Map<string, number>();
  const total = Math.round(rate * STEP_SECONDS);
  const started = performance.now();
  const posts: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await pause(wait);
    const marker = `mk${Date.now()}${i}z`;
    arrivals.set(marker, []);
    sentAt.set(marker, performance.now());
    posts.push(
      fetch(`http://127.0.0.1:${httpPort}/api/v1/statuses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${author}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: `Sustained ${marker}: a status with some words in it, none of them filtered. #bench` }),
      }).then((res) => res.arrayBuffer().then(() => undefined)),
    );
  }
  await Promise.all(posts);
  const deadline = performance.now() + 10_000;
  const complete = () => [...sentAt.keys()].every((marker) => (arrivals.get(marker)?.length ?? 0) >= count);
  while (!complete() && performance.now() < deadline) await pause(20);
  const latencies: number[] = [];
  let missed = 0;
  for (const [marker, at] of sentAt) {
    const got = arrivals.get(marker) ?? [];
    for (const t of got) latencies.push(t - at);
    missed += count - got.length;
    arrivals.delete(marker);
  }
  latencies.sort((a, b) => a - b);
  return { p99: percentile(latencies, 99), missed, sent: total };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => value.toFixed(0).padStart(5);
const pct = (share: number) => `${(share * 100).toFixed(0)}%`.padStart(10);

async function inOneProcess(): Promise<Deployment> {
  const httpPort = await freePort();
  const streamingPort = await freePort();
  const server = await startServer('bench/fanout-server.ts', [String(httpPort), String(streamingPort), 'all']);
  return {
    label: 'one process, in-process bus',
    httpPort,
    streamingPort,
    web: server,
    streams: server,
    cpu: async () => (await server.ask<Stats>({ cmd: 'stats' }, 'stats')).cpu,
    stop: () => stop(server),
  };
}

/** A web process (API and worker) and a streaming process sharing a SQLite file and the Redis
 * at 127.0.0.1:6379, under a namespace of this run's own (removed at the end). */
async function overRedis(): Promise<Deployment> {
  const httpPort = await freePort();
  const streamingPort = await freePort();
  const file = join(mkdtempSync(join(tmpdir(), 'rookery-fanout-')), 'rookery.sqlite3');
  const namespace = `rookery-bench:${process.pid}:${Date.now()}`;
  const args = (role: string) => [String(httpPort), String(streamingPort), role, file, namespace];
  const web = await startServer('bench/fanout-server.ts', args('web'));
  const streams = await startServer('bench/fanout-server.ts', args('streaming'));
  return {
    label: 'Redis bus and queue, streaming in its own process',
    httpPort,
    streamingPort,
    web,
    streams,
    cpu: async () => (await web.ask<Stats>({ cmd: 'stats' }, 'stats')).cpu + (await streams.ask<Stats>({ cmd: 'stats' }, 'stats')).cpu,
    async stop() {
      await stop(streams);
      await stop(web);
      const { createClient } = await import('@redis/client');
      const client = createClient({ url: 'redis://127.0.0.1:6379' });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
      client.destroy();
    },
  };
}

/** The sample the bare server sends: what Rookery sends, byte for byte but for the marker. */
async function sampleFrames(d: Deployment, author: string, reader: string): Promise<{ ws: string; sse: string }> {
  const ws = new WebSocket(`ws://127.0.0.1:${d.streamingPort}/api/v1/streaming?stream=public&access_token=${reader}`);
  const frame = new Promise<string>((done) => ws.once('message', (data: Buffer) => done(data.toString())));
  await new Promise((open) => ws.once('open', open));
  await waitConnections(d.streams, 1);
  await fetch(`http://127.0.0.1:${d.httpPort}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${author}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'A status for everyone, mk0z, with a little text to make it the size of a real one. #bench' }),
  });
  const text = await frame;
  ws.close();
  const payload = (JSON.parse(text) as { payload: string }).payload;
  return { ws: text.replace(/mk\d+z/, 'MARKER'), sse: `event: update\ndata: ${payload.replace(/mk\d+z/, 'MARKER')}\n\n` };
}

async function measure(d: Deployment, bare: Server, barePort: number, say: (line: string) => void): Promise<void> {
  const largest = Math.max(...SIZES);
  const { author, readers } = await d.web.ask<{ author: string; readers: string[] }>({ cmd: 'seed', readers: largest, hidden: false }, 'seeded');
  const sample = await sampleFrames(d, author, readers[0] ?? '');
  say(`\n== ${d.label}`);
  say(`Fan-out: one status per round, ${ROUNDS} rounds; latency from the publishing request to receipt by every client (ms)${pinned ? '; servers on core 0, clients on core 1' : ''}`);
  say('clients  transport  Rookery: p50   p99   max  missed  mem/idle conn  CPU ms/round | bare uWS: p50   p99   max  missed  mem/idle conn | p99 ratio');
  for (const count of SIZES) {
    for (const transport of ['ws', 'sse'] as const) {
      const r = await rookeryBroadcast(d, author, readers, transport, count);
      const b = await bareBroadcast(bare, barePort, transport, count, sample);
      say(
        `${String(count).padStart(7)}  ${transport.padEnd(9)}        ${ms(r.p50)} ${ms(r.p99)} ${ms(r.max)} ${String(r.missed).padStart(7)}  ${kb(r.perConnection).padStart(13)}  ${r.cpuPerRound.toFixed(1).padStart(12)} |          ${ms(b.p50)} ${ms(b.p99)} ${ms(b.max)} ${String(b.missed).padStart(7)}  ${kb(b.perConnection).padStart(13)} | ${(r.p99 / Math.max(1, b.p99)).toFixed(2)}×`,
      );
    }
  }

  // Sustained: 1,000 accounts, each screening every status against its own hidden things.
  const screened = await d.web.ask<{ author: string; readers: string[] }>({ cmd: 'seed', readers: 1000, hidden: true }, 'seeded');
  const arrivals = new Map<string, number[]>();
  const clients = await openMany(1000, (i) =>
    openWs(`ws://127.0.0.1:${d.streamingPort}/api/v1/streaming?stream=public&access_token=${screened.readers[i]}`, (marker, at) => arrivals.get(marker)?.push(at)),
  );
  await waitConnections(d.streams, 1000);
  say(`\nSustained: 1,000 WebSocket clients, each its own account with 2 blocks, 3 mutes and a 10-keyword filter; ${STEP_SECONDS} s per step`);
  say('rate/s   sent   p99 ms  missed  server CPU  client CPU');
  let best = 0;
  for (const rate of (process.env['BENCH_RATES'] ?? '25,50,100,150,200,300,400').split(',').map(Number)) {
    // CPU of both sides over the step: a client side near 100% of its core means the figure
    // measures the clients, not the server.
    const [serverBefore, clientBefore, wallBefore] = [await d.cpu(), process.cpuUsage(), performance.now()];
    const result = await step(d.httpPort, screened.author, arrivals, 1000, rate);
    const wall = (performance.now() - wallBefore) * 1000;
    const clientCpu = process.cpuUsage(clientBefore);
    const serverShare = ((await d.cpu()) - serverBefore) / wall;
    const clientShare = (clientCpu.user + clientCpu.system) / wall;
    const ok = result.missed === 0 && result.p99 <= 1000;
    say(`${String(rate).padStart(6)} ${String(result.sent).padStart(6)}  ${ms(result.p99)}  ${String(result.missed).padStart(6)}  ${pct(serverShare)}  ${pct(clientShare)}  ${ok ? 'ok' : 'over'}`);
    if (!ok) break;
    best = rate;
    await d.web.ask({ cmd: 'drain' }, 'drained');
  }
  for (const client of clients) client.close();
  say(`Highest sustained rate with p99 <= 1 s and nothing missed: ${best} filtered updates per second to 1,000 clients.`);
}

// BENCH_FANOUT_DEPLOYMENTS=local,redis (default both).
export async function runFanout(): Promise<string[]> {
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  const barePort = await freePort();
  const bare = await startServer('bench/bare-uws.ts', [String(barePort)]);
  const chosen = (process.env['BENCH_FANOUT_DEPLOYMENTS'] ?? 'local,redis').split(',');
  try {
    for (const [name, open] of [['local', inOneProcess], ['redis', overRedis]] as const) {
      if (!chosen.includes(name)) continue;
      const deployment = await open();
      try {
        await measure(deployment, bare, barePort, say);
      } finally {
        await deployment.stop();
      }
    }
  } finally {
    await stop(bare);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) await runFanout();

