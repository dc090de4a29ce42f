// Redis for tests: the shared server at 127.0.0.1:6379 with a key prefix of each test's own
// (removed afterwards), and private redis-server processes on a free port that a test may kill
// and start again (on the same port, with nothing kept: as a restarted cache server would be).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { endsWithTest, freePort } from './processes.ts';

/** 127.0.0.1:6379, or the private server scripts/run-tests.sh started where none answers there. */
export const SHARED_REDIS = process.env['ROOKERY_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A prefix no other test uses. */
export function testPrefix(label: string): string {
  return `rookery-test:${label}:${randomUUID()}:`;
}

/** A plain client of the test's own, connected (for looking at keys, publishing from outside). */
export async function rawClient(url: string = SHARED_REDIS) {
  const client = createClient({ url, socket: { reconnectStrategy: (n: number) => Math.min(50 * 2 ** n, 500) } });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Deletes every key under `prefix` on the server at `url`. */
export async function dropPrefix(prefix: string, url: string = SHARED_REDIS): Promise<void> {
  const client = await rawClient(url);
  try {
    let cursor = '0';
    do {
      const reply = await client.scan(cursor, { MATCH: `${prefix}*`, COUNT: 1000 });
      cursor = String(reply.cursor);
      if (reply.keys.length > 0) await client.del(reply.keys);
    } while (cursor !== '0');
  } finally {
    client.destroy();
  }
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** SIGKILL (by pid), then waits for the process to be gone. */
  kill(): Promise<void>;
  /** A new redis-server on the same port. */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(): Promise<void>;
}

function launch(port: number): Promise<ChildProcess> {
  const child = endsWithTest(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  return new Promise((ready, fail) => {
    let output = '';
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) ready(child);
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`redis-server on port ${port} exited with ${code}: ${output}`)));
  });
}

/** A private redis-server on a free port (ready once it says so); killed by `teardown`. */
export async function privateRedis(teardown: (fn: () => void | Promise<void>) => void): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = await launch(port);
  const kill = async () => {
    const current = child;
    if (current === null) return;
    child = null;
    current.removeAllListeners('exit');
    await new Promise<void>((gone) => {
      current.once('exit', () => gone());
      current.kill('SIGKILL');
    });
  };
  const server: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid ?? -1;
    },
    kill,
    async start() {
      if (child !== null) throw new Error('already running');
      child = await launch(port);
    },
    async restart() {
      await kill();
      child = await launch(port);
    },
  };
  teardown(kill);
  return server;
}
