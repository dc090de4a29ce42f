// The streaming half of `npm run bench`: Rookery's uWebSockets.js streaming server against a
// bare uWebSockets.js server broadcasting the same bytes already encoded, in one run.
// - Broadcast: 1,000 and 5,000 clients on WebSocket and on SSE; one status published through
//   the API per round; delivery latency from the publishing request to its receipt by every
//   client (p50 / p99 / max), events missed, and server memory per idle connection. The two
//   servers' clients are connected at once and the servers take turns, round by round, each
//   going first in every other round. BENCH_FANOUT_CONTROL=1 measures a second bare server in
//   Rookery's place: what the instrument reads for two identical servers.
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
import type { GcReading } from './gc-watch.ts';
import { measureSteal, stealText } from './steal.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// 100 rounds. The p99 of 5 was the tail of a single round. With 20, the bare server measured
// against a second bare server (BENCH_FANOUT_CONTROL) read 0.86× to 1.91× (22 runs, 1,000
// WebSockets): one round whose last few hundred clients were late set the figure. With 100 it
// read 0.84× to 1.20× (both 1,000-client rows, 4 runs): the p99 takes the tails of several
// rounds.
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 100);
const SIZES = (process.env['BENCH_FANOUT_SIZES'] ?? '1000,5000').split(',').map(Number);
const STEP_SECONDS = Number(process.env['BENCH_STEP_SECONDS'] ?? 4);
/** BENCH_FANOUT_CONTROL=1: a second bare server takes Rookery's place in the broadcast rows, so
 * that their ratio shows what the instrument reads for two identical servers. */
const CONTROL = process.env['BENCH_FANOUT_CONTROL'] === '1';
// Every thread (-a): V8's helper threads (the collector's, the compilers') are started with the
// process, and without -a kept their affinity to both cores, so a server's collections ran on the
// clients' core and the clients' on the servers' (a perf record of core 0 during the rounds: the
// bench's own concurrent marking took more of it than the bare server did).
const pinned = spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]).status === 0;

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
  if (pinned && child.pid !== undefined) spawnSync('taskset', ['-a', '-cp', '0', String(child.pid)]);
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

/** WebSocket clients the server closed after their 101: when subscriptions fall short, this
 * tells a connection lost from a subscription that never came. */
let wsClosedByServer = 0;

/** A WebSocket client that costs the bench as little as the server's work to measure: a raw
 * socket that reads frame headers only (server frames are never masked), finds markers in text
 * frames without decoding them, and answers pings. The `ws` library spent a whole core at 100
 * filtered updates per second to 1,000 clients, so the bench measured itself, not the server. */
function openWs(url: string, onSeen: Seen): Promise<Client> {
  const { port, pathname, search } = new URL(url);
  return new Promise((ready, fail) => {
    const seen = new RecentMarkers();
    let buffered: Buffer | null = null;
    let open = false;
    let closing = false;
    // Every client reads into one buffer: each read is handled before the next (what is left of
    // a frame is copied out), and no read allocates.
    const socket: Socket = connect({
      port: Number(port),
      host: '127.0.0.1',
      onread: {
        buffer: READ_BUFFER,
        callback: (size: number, into: Uint8Array) => {
          onBytes(Buffer.from(into.buffer, into.byteOffset, size));
          return true;
        },
      },
    });
    socket.setNoDelay(true);
    const onBytes = (chunk: Buffer) => {
      let data = buffered === null ? chunk : Buffer.concat([buffered, chunk]);
      buffered = null;
      if (!open) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) {
          buffered = Buffer.from(data);
          return;
        }
        if (!data.subarray(0, 12).toString('latin1').includes(' 101')) {
          fail(new Error(`WebSocket upgrade refused: ${data.subarray(0, end).toString('latin1')}`));
          socket.destroy();
          return;
        }
        open = true;
        ready({
          close: () => {
            closing = true;
            socket.destroy();
          },
        });
        data = data.subarray(end + 4);
      }
      const at = performance.now();
      let offset = 0;
      while (data.length - offset >= 2) {
        const opcode = (data[offset] as number) & 0x0f;
        let length = (data[offset + 1] as number) & 0x7f;
        let header = 2;
        if (length === 126) {
          if (data.length - offset < 4) break;
          length = data.readUInt16BE(offset + 2);
          header = 4;
        } else if (length === 127) {
          if (data.length - offset < 10) break;
          length = Number(data.readBigUInt64BE(offset + 2));
          header = 10;
        }
        if (data.length - offset < header + length) break;
        const start = offset + header;
        const stop = start + length;
        if (opcode === 0x9) socket.write(pong(data.subarray(start, stop)));
        else if (opcode === 0x1) findMarkers(data, start, stop, seen, onSeen, at);
        offset = stop;
      }
      if (offset < data.length) buffered = Buffer.from(data.subarray(offset));
    };
    socket.once('error', fail);
    socket.once('close', () => {
      if (open && !closing) wsClosedByServer += 1;
    });
    const key = Buffer.from(Array.from({ length: 16 }, () => Math.floor(Math.random() * 256))).toString('base64');
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
}

const READ_BUFFER = Buffer.alloc(256 * 1024);
/** Longer than any marker (mk, a time in ms, a few digits, z). */
const MARKER_MAX = 32;

/** A client's pong, masked as every client frame must be (with a zero mask: the payload as is). */
function pong(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x8a, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

/** The last markers a client saw. A marker is seen again only within one event (its text may
 * hold it twice) or at the seam of two SSE reads, so the last few are enough. A set of every
 * marker held each client's whole history (with 10,000 clients and the warm-up's events,
 * millions of strings), and each SSE client kept its last read alive: the bench's own process
 * then collected its old generation during rounds, and the last 1-2% of one side's deliveries
 * came 50-200 ms late, on either server's side (traced with both processes' collections). */
class RecentMarkers {
  readonly #last: string[] = [];

  /** false when the marker was among the last ones. */
  add(marker: string): boolean {
    if (this.#last.includes(marker)) return false;
    this.#last.push(marker);
    if (this.#last.length > 4) this.#last.shift();
    return true;
  }
}

/** The markers (mk<digits>z) in bytes [start, stop) of `data`, without decoding the rest. */
function findMarkers(data: Buffer, start: number, stop: number, seen: RecentMarkers, onSeen: Seen, at: number): void {
  for (let i = data.indexOf('mk', start); i >= 0 && i < stop; i = data.indexOf('mk', i + 2)) {
    let end = i + 2;
    while (end < stop && (data[end] as number) >= 0x30 && (data[end] as number) <= 0x39) end++;
    if (end === i + 2 || end >= stop || data[end] !== 0x7a) continue;
    const marker = data.toString('latin1', i, end + 1);
    if (seen.add(marker)) onSeen(marker, at);
  }
}

function openSse(port: number, path: string, onSeen: Seen): Promise<Client> {
  return new Promise((ready, fail) => {
    const seen = new RecentMarkers();
    // The last bytes of a read, copied: a marker cut in two is found whole at the seam with the
    // next read. (Reads go to the one shared buffer, as the WebSocket clients' do.)
    const tail = Buffer.alloc(MARKER_MAX);
    let tailLength = 0;
    let open = false;
    const socket: Socket = connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: READ_BUFFER,
        callback: (size: number, into: Uint8Array) => {
          const chunk = Buffer.from(into.buffer, into.byteOffset, size);
          if (!open) {
            open = true;
            ready({ close: () => socket.destroy() });
          }
          const at = performance.now();
          if (tailLength > 0) {
            const seam = Buffer.concat([tail.subarray(0, tailLength), chunk.subarray(0, MARKER_MAX)]);
            findMarkers(seam, 0, seam.length, seen, onSeen, at);
          }
          findMarkers(chunk, 0, chunk.length, seen, onSeen, at);
          tailLength = chunk.copy(tail, 0, Math.max(0, size - MARKER_MAX));
          return true;
        },
      },
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

/** Publishes statuses over kept-alive raw sockets, one request at a time on each. `fetch`
 * spent about a millisecond of the bench's own time before each request left, counted in every
 * latency here and in none of the bare server's (its broadcasts come over IPC). */
class Publisher {
  readonly #idle: Socket[] = [];
  readonly #port: number;
  readonly #token: string;

  constructor(port: number, token: string) {
    this.#port = port;
    this.#token = token;
  }

  async publish(text: string, visibility: 'public' | 'unlisted' = 'public'): Promise<void> {
    const kept = this.#idle.pop();
    if (kept !== undefined) {
      // A kept connection the server is closing just now: once more, on a new one.
      const sent = await this.#request(kept, text, visibility).then(() => true, () => false);
      if (sent) return;
    }
    await this.#request(await this.#connect(), text, visibility);
  }

  async #request(socket: Socket, text: string, visibility: 'public' | 'unlisted'): Promise<void> {
    const body = Buffer.from(JSON.stringify(visibility === 'public' ? { status: text } : { status: text, visibility }));
    const head = `POST /api/v1/statuses HTTP/1.1\r\nHost: 127.0.0.1:${this.#port}\r\nAuthorization: Bearer ${this.#token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    await new Promise<void>((done, fail) => {
      let received = Buffer.alloc(0);
      const onClose = () => fail(new Error('the server closed the connection before answering'));
      const onData = (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headers = received.subarray(0, end).toString('latin1');
        const length = /\r\ncontent-length: *(\d+)/i.exec(headers);
        const complete = length === null ? received.includes('\r\n0\r\n\r\n', end) : received.length >= end + 4 + Number(length[1]);
        if (!complete) return;
        socket.off('data', onData);
        socket.off('error', fail);
        socket.off('close', onClose);
        if (!headers.startsWith('HTTP/1.1 200')) fail(new Error(`publish refused: ${headers.split('\r\n')[0]}`));
        else done();
      };
      socket.on('data', onData);
      socket.once('error', fail);
      socket.once('close', onClose);
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
    this.#idle.push(socket);
  }

  close(): void {
    for (const socket of this.#idle.splice(0)) socket.destroy();
  }

  #connect(): Promise<Socket> {
    return new Promise((ready, fail) => {
      const socket = connect(this.#port, '127.0.0.1', () => ready(socket));
      socket.setNoDelay(true);
      socket.once('error', fail);
      // The server ends connections idle past its keep-alive time: a closed one is not reused.
      socket.once('close', () => {
        const at = this.#idle.indexOf(socket);
        if (at >= 0) this.#idle.splice(at, 1);
      });
    });
  }
}

// ---- measurements -------------------------------------------------------------------------

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
  /** The server's collections during the counted rounds: all their pauses (ms), and how many
   * were major. */
  gcPauseMs: number;
  majorGcs: number;
  /** How long its uncounted rounds took (s). */
  warmUpSeconds: number;
  /** The hypervisor's share of the machine's CPU time during the counted rounds. */
  steal: number | null;
}

/** What the bench reads of the server side, every process of it together: CPU time (µs), the
 * milliseconds since any of them last made a major collection, how many major collections they
 * made, how long all their collections paused them (ms), and the largest young generation among
 * them (bytes). */
interface ServerReading extends GcReading {
  cpu: number;
}

/** What a server process's stats reply holds. */
interface Stats extends ServerReading {
  rss: number;
  heap: number;
  hub?: { connections: number; subscriptions: number };
}

type ReadServer = () => Promise<ServerReading>;

/** One server process's reading (its stats hold it). */
const readProcess = (server: Server): Promise<ServerReading> => server.ask<Stats>({ cmd: 'stats' }, 'stats');

/** Rounds first that are not counted, for either server, like the HTTP scenarios' warm-up. A
 * first event compiles the code it runs through, and on the server's one core V8's compiler
 * threads then take their time from the event loop: traced, the first counted round's publish
 * waited 6–14 ms before its write, against about 1 ms from the fourth round on. */
const WARM_UP_ROUNDS = 3;

/** Uncounted rounds go on, at the counted rounds' pace, for at least WARM_UP_SECONDS and until
 * every server process's heap has settled to that pace, WARM_UP_MAX_SECONDS at most: its young
 * generation back to at most SETTLED_YOUNG_BYTES (V8 starts it at 1 MB and grows it to 16–32 MB
 * in a burst) and no major collection for WARM_UP_QUIET_SECONDS (each server reports both).
 * The seeding and the warm-up's events, sent back to back, grow the heap; at one event a round
 * the grown young generation is next collected only tens of seconds later, and that scavenge
 * promotes what the warm-up left in it, which brings on a mark-compact; V8's memory reducer
 * adds full collections of its own once its timer (8 s) finds allocation low. Traced (GC
 * observer, --trace-gc), with three warm-up rounds: scavenges of 5.5 and 2.8 ms, an incremental
 * mark of 5.7 ms and a mark-compact of 16 ms in the first seconds of the counted rounds, and the
 * one round they overlapped took 57 ms to write out: its 1,000 late deliveries were the p99 of
 * 100,000. With 20 s of warm-up rounds and 10 s without a major collection, the young
 * generation's first scavenge still came (4.8 ms, then an 11 ms mark-compact) in the counted
 * rounds of one run. Settled, the server's collections were scavenges of 0.4–0.9 ms every
 * seven rounds or so; those are counted, as is any major collection the rounds bring on (the
 * row reports both servers' collections). */
const WARM_UP_SECONDS = Number(process.env['BENCH_WARM_UP_SECONDS'] ?? 20);
const WARM_UP_QUIET_SECONDS = 10;
const WARM_UP_MAX_SECONDS = 120;
const SETTLED_YOUNG_BYTES = 4 * 1024 * 1024;

/** Events sent back to back to each side before its rounds, not counted either. A server in
 * use has run its publish and delivery paths many times over; after three rounds V8 still ran
 * most of the publish path unoptimized (traced: its handling before the write took 0.6–0.9 ms
 * of CPU in the counted rounds, about 0.55 ms after a few hundred events), and so did the
 * bench's own clients, for both servers. */
const WARM_UP_EVENTS = Number(process.env['BENCH_WARM_UP_EVENTS'] ?? 200);

/** Publishes no client receives, sent to Rookery before its warm-up events. Two hundred events
 * are too few for V8 to compile the publish path (a V8 code log of the server: some 25
 * functions of it, from the request's parsing to the write, compiled by Maglev inside one
 * counted round, which read 25 ms where its neighbours read 12). The bare server's publish is
 * one message and one call: nothing to warm that the events do not. */
const WARM_UP_PUBLISHES = Number(process.env['BENCH_WARM_UP_PUBLISHES'] ?? 2000);

/** The warm-up events, and a wait until every client has the last of them: nothing of the
 * warm-up is still being written out when the rounds begin. */
async function sendWarmUpEvents(side: Side, index: number): Promise<void> {
  await side.warmUp?.();
  for (let i = 1; i < WARM_UP_EVENTS; i++) await side.send(`mk${Date.now()}${index}0${i}z`);
  await sendAndCollect(side, `mk${Date.now()}${index}00z`, 60_000);
}

/** A full collection of the bench's own process, between rounds (global.gc, exposed by
 * `node --expose-gc`, as `npm run bench` starts it). The latencies are read in this process:
 * traced, one of its scavenges and an incremental marking step (5 ms together) fell inside a
 * round, every client of that round read its event late, and that one round set the server's
 * p99 at 2.07× where its others were at 1.2×. Collected between rounds, the young generation
 * is empty when a round begins and a round allocates far too little to fill it. The servers
 * are never collected this way: their collections are part of what is measured. */
const collectOwnGarbage = (globalThis as { gc?: () => void }).gc;

/** Sends one marked event and collects its arrivals until every client has it or `waitMs`
 * passed; when it was sent, and the arrival times. */
async function sendAndCollect(side: Side, marker: string, waitMs: number): Promise<{ sentAt: number; got: number[] }> {
  side.arrivals.set(marker, []);
  const sentAt = await side.send(marker);
  const deadline = performance.now() + waitMs;
  while ((side.arrivals.get(marker)?.length ?? 0) < side.count && performance.now() < deadline) await pause(5);
  const got = side.arrivals.get(marker) ?? [];
  side.arrivals.delete(marker);
  return { sentAt, got };
}

/** One server with its clients connected: `send` delivers one marked event to them. */
interface Side {
  count: number;
  arrivals: Map<string, number[]>;
  send(marker: string): Promise<number>;
  /** Work the side needs before its warm-up events, if any. */
  warmUp?(): Promise<void>;
  read: ReadServer;
}

/** Rounds of one event to each side's connected clients, the sides taking turns round by round:
 * a slow spell of the shared machine then falls on both servers' rounds alike rather than on
 * one server's whole run. Which side goes first alternates: with the same side always first,
 * a bare server in Rookery's place had the lower p99 in all ten rows of five runs (0.78× to
 * 0.98× of the other bare server's), a head start that Rookery was given until then. The
 * latencies of every delivery, per side. */
async function alternateRounds(sides: readonly Side[]): Promise<Omit<Broadcast, 'perConnection'>[]> {
  const latencies = sides.map((): number[] => []);
  // Read over the counted rounds only (from round 0).
  let stealSince: () => number | null = () => null;
  const missed = sides.map(() => 0);
  const before: ServerReading[] = [];
  for (const [i, side] of sides.entries()) await sendWarmUpEvents(side, i);
  collectOwnGarbage?.();
  let played = 0;
  /** One round: each side's event in turn, `first` going first. */
  const playRound = async (first: number, counted: boolean) => {
    played += 1;
    const order = [...sides.entries()];
    if (first !== 0) order.reverse();
    for (const [i, side] of order) {
      const { sentAt, got } = await sendAndCollect(side, `mk${Date.now()}${i}${played}z`, 15_000);
      collectOwnGarbage?.();
      await pause(200);
      if (!counted) continue;
      for (const at of got) latencies[i]?.push(at - sentAt);
      missed[i] = (missed[i] ?? 0) + side.count - got.length;
    }
  };
  const started = performance.now();
  const settled = async () => {
    const waited = performance.now() - started;
    if (waited >= WARM_UP_MAX_SECONDS * 1000) return true;
    if (waited < WARM_UP_SECONDS * 1000) return false;
    for (const side of sides) {
      const { sinceMajorGcMs, youngBytes } = await side.read();
      if (sinceMajorGcMs < WARM_UP_QUIET_SECONDS * 1000 || youngBytes > SETTLED_YOUNG_BYTES) return false;
    }
    return true;
  };
  for (let round = 0; round < WARM_UP_ROUNDS || !(await settled()); round++) await playRound(round % 2, false);
  const warmUpSeconds = (performance.now() - started) / 1000;
  for (const side of sides) before.push(await side.read());
  stealSince = measureSteal();
  for (let round = 0; round < ROUNDS; round++) await playRound(round % 2, true);
  const steal = stealSince();
  return Promise.all(sides.map(async (side, i) => {
    const after = await side.read();
    const start = before[i] ?? after;
    const sorted = (latencies[i] ?? []).sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN, missed: missed[i] ?? 0,
      cpuPerRound: (after.cpu - start.cpu) / ROUNDS / 1000,
      gcPauseMs: after.gcPauseMs - start.gcPauseMs,
      majorGcs: after.majorGcs - start.majorGcs,
      warmUpSeconds,
      steal,
    };
  }));
}

async function waitConnections(server: Server, count: number): Promise<void> {
  let subscribed = 0;
  for (let i = 0; i < 2000; i++) {
    const stats = await server.ask<Stats>({ cmd: 'stats' }, 'stats');
    if (stats.hub === undefined || stats.hub.subscriptions >= count) return;
    subscribed = stats.hub.subscriptions;
    await pause(20);
  }
  throw new Error(`only ${subscribed} of ${count} streams subscribed; WebSocket clients closed by the server after their 101 so far: ${wsClosedByServer}`);
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
  read: ReadServer;
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

/** Rookery's clients connected, and what they cost in memory each. */
async function connectRookery(d: Deployment, author: string, readers: readonly string[], transport: 'ws' | 'sse', count: number): Promise<Connected> {
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
  const publisher = new Publisher(httpPort, author);
  return {
    side: {
      count,
      arrivals,
      read: d.read,
      async send(marker) {
        const sentAt = performance.now();
        await publisher.publish(`A status for everyone, ${marker}, with a little text to make it the size of a real one. #bench`);
        return sentAt;
      },
      async warmUp() {
        // Unlisted: on no public stream, so no client gets them.
        for (let i = 0; i < WARM_UP_PUBLISHES; i++) await publisher.publish(`A status for nobody's stream, warm-up ${i}, with a little text to make it the size of a real one. #bench`, 'unlisted');
      },
    },
    perConnection: (idle.rss - before.rss) / count,
    async close() {
      publisher.close();
      for (const client of clients) client.close();
      await waitConnections(server, 0).catch(() => undefined);
    },
  };
}

/** A bare uWebSockets.js server and its port. */
interface BareServer {
  server: Server;
  port: number;
}

/** The bare server's clients connected, and what they cost in memory each. */
async function connectBare({ server, port }: BareServer, transport: 'ws' | 'sse', count: number, sample: { ws: string; sse: string }): Promise<Connected> {
  const arrivals = new Map<string, number[]>();
  const onSeen: Seen = (marker, at) => arrivals.get(marker)?.push(at);
  const open = () => openMany(count, () => (transport === 'ws' ? openWs(`ws://127.0.0.1:${port}/`, onSeen) : openSse(port, '/sse', onSeen)));
  await warmUp(open, () => pause(500), () => pause(500));
  const before = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  const clients = await open();
  await pause(500);
  const idle = await server.ask<Stats>({ cmd: 'stats', gc: true }, 'stats');
  return {
    side: {
      count,
      arrivals,
      read: () => readProcess(server),
      async send(marker) {
        const sentAt = performance.now();
        server.child.send({ cmd: 'broadcast', ws: sample.ws.replace('MARKER', marker), sse: sample.sse.replace('MARKER', marker) });
        return sentAt;
      },
    },
    perConnection: (idle.rss - before.rss) / count,
    async close() {
      for (const client of clients) client.close();
      await pause(500);
    },
  };
}

interface Connected {
  side: Side;
  perConnection: number;
  close(): Promise<void>;
}

/** The bare servers: the yardstick, and in a control run the one in Rookery's place. */
interface BareServers {
  yardstick: BareServer;
  control: BareServer | null;
}

/** Both servers' clients connected at once (each server's memory measured with only its own
 * being opened), then the rounds, taking turns. */
async function broadcast(d: Deployment, author: string, readers: readonly string[], bares: BareServers, sample: { ws: string; sse: string }, transport: 'ws' | 'sse', count: number): Promise<[Broadcast, Broadcast]> {
  // Rookery, or in a control run the second bare server in its place.
  const measured = bares.control === null ? await connectRookery(d, author, readers, transport, count) : await connectBare(bares.control, transport, count, sample);
  const yardstick = await connectBare(bares.yardstick, transport, count, sample);
  try {
    const [r, b] = await alternateRounds([measured.side, yardstick.side]);
    if (r === undefined || b === undefined) throw new Error('a server had no rounds');
    return [{ ...r, perConnection: measured.perConnection }, { ...b, perConnection: yardstick.perConnection }];
  } finally {
    await measured.close();
    await yardstick.close();
  }
}

/** Statuses at `rate` per second for STEP_SECONDS to 1,000 screened clients. */
async function step(publisher: Publisher, arrivals: Map<string, number[]>, count: number, rate: number): Promise<{ p99: number; missed: number; sent: number }> {
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
    posts.push(publisher.publish(`Sustained ${marker}: a status with some words in it, none of them filtered. #bench`));
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

/** A side's collections over its counted rounds: all their pauses, and how many were major. */
const gcText = (side: Broadcast) => `${side.gcPauseMs.toFixed(1)} ms, ${side.majorGcs} major`;
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
    read: () => readProcess(server),
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
    async read() {
      const [a, b] = [await readProcess(web), await readProcess(streams)];
      return { cpu: a.cpu + b.cpu, sinceMajorGcMs: Math.min(a.sinceMajorGcMs, b.sinceMajorGcMs), majorGcs: a.majorGcs + b.majorGcs, gcPauseMs: a.gcPauseMs + b.gcPauseMs, youngBytes: Math.max(a.youngBytes, b.youngBytes) };
    },
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

async function measure(d: Deployment, bares: BareServers, say: (line: string) => void): Promise<void> {
  const largest = Math.max(...SIZES);
  const { author, readers } = await d.web.ask<{ author: string; readers: string[] }>({ cmd: 'seed', readers: largest, hidden: false }, 'seeded');
  const sample = await sampleFrames(d, author, readers[0] ?? '');
  say(`\n== ${d.label}`);
  if (bares.control !== null) say('CONTROL RUN (BENCH_FANOUT_CONTROL=1): in the broadcast rows, a second bare uWS server stands where Rookery is named; the sustained rows are Rookery\'s');
  say(`Fan-out: one status per round, ${ROUNDS} rounds each (after ${WARM_UP_EVENTS} events and at least ${WARM_UP_SECONDS} s of rounds not counted, until every server's heap settled (young generation at most ${SETTLED_YOUNG_BYTES / 1024 / 1024} MB, no major collection for ${WARM_UP_QUIET_SECONDS} s; ${WARM_UP_MAX_SECONDS} s at most), and Rookery's ${WARM_UP_PUBLISHES.toLocaleString('en')} unlisted publishes before them), Rookery's and the bare server's taking turns, each going first in every other round; latency from the publishing request to receipt by every client (ms)${pinned ? '; servers on core 0, clients on core 1' : ''}`);
  say('clients  transport  Rookery: p50   p99   max  missed  mem/idle conn  CPU ms/round | bare uWS: p50   p99   max  missed  mem/idle conn  CPU ms/round | p99 ratio  machine  collections in the rounds, Rookery | bare  warm-up rounds');
  for (const count of SIZES) {
    for (const transport of ['ws', 'sse'] as const) {
      const [r, b] = await broadcast(d, author, readers, bares, sample, transport, count);
      say(
        `${String(count).padStart(7)}  ${transport.padEnd(9)}        ${ms(r.p50)} ${ms(r.p99)} ${ms(r.max)} ${String(r.missed).padStart(7)}  ${kb(r.perConnection).padStart(13)}  ${r.cpuPerRound.toFixed(1).padStart(12)} |          ${ms(b.p50)} ${ms(b.p99)} ${ms(b.max)} ${String(b.missed).padStart(7)}  ${kb(b.perConnection).padStart(13)}  ${b.cpuPerRound.toFixed(1).padStart(12)} | ${(r.p99 / Math.max(1, b.p99)).toFixed(2)}×  ${stealText(r.steal)}  ${gcText(r)} | ${gcText(b)}  ${r.warmUpSeconds.toFixed(0)} s`,
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
  say('rate/s   sent   p99 ms  missed  server CPU  client CPU  machine');
  let best = 0;
  const publisher = new Publisher(d.httpPort, screened.author);
  for (const rate of (process.env['BENCH_RATES'] ?? '25,50,100,150,200,300,400').split(',').map(Number)) {
    // CPU of both sides over the step: a client side near 100% of its core means the figure
    // measures the clients, not the server.
    const [serverBefore, clientBefore, wallBefore, stealSince] = [(await d.read()).cpu, process.cpuUsage(), performance.now(), measureSteal()];
    const result = await step(publisher, arrivals, 1000, rate);
    const wall = (performance.now() - wallBefore) * 1000;
    const clientCpu = process.cpuUsage(clientBefore);
    const serverShare = ((await d.read()).cpu - serverBefore) / wall;
    const clientShare = (clientCpu.user + clientCpu.system) / wall;
    const ok = result.missed === 0 && result.p99 <= 1000;
    say(`${String(rate).padStart(6)} ${String(result.sent).padStart(6)}  ${ms(result.p99)}  ${String(result.missed).padStart(6)}  ${pct(serverShare)}  ${pct(clientShare)}  ${stealText(stealSince())}  ${ok ? 'ok' : 'over'}`);
    if (!ok) break;
    best = rate;
    await d.web.ask({ cmd: 'drain' }, 'drained');
  }
  publisher.close();
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
  if (collectOwnGarbage === undefined) say('(started without --expose-gc: the bench cannot collect its own garbage between rounds, and a collection of its own may fall inside one and delay its arrivals)');
  const startBare = async (): Promise<BareServer> => {
    const port = await freePort();
    return { server: await startServer('bench/bare-uws.ts', [String(port)]), port };
  };
  const bares: BareServers = { yardstick: await startBare(), control: null };
  const chosen = (process.env['BENCH_FANOUT_DEPLOYMENTS'] ?? 'local,redis').split(',');
  try {
    if (CONTROL) bares.control = await startBare();
    for (const [name, open] of [['local', inOneProcess], ['redis', overRedis]] as const) {
      if (!chosen.includes(name)) continue;
      const deployment = await open();
      try {
        await measure(deployment, bares, say);
      } finally {
        await deployment.stop();
      }
    }
  } finally {
    await stop(bares.yardstick.server);
    if (bares.control !== null) await stop(bares.control.server);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) await runFanout();

