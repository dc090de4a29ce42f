// The standalone instance as a child process, the way operators run it: the server
// (examples/standalone/server.ts) in any role, and the operator CLI on the same settings.
// Waits are on lines the process prints, never on a delay.

import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { cleanCommand, endsWithTest } from './processes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const STANDALONE_SERVER = join(root, 'examples/standalone/server.ts');
const CLI = join(root, 'examples/standalone/cli.ts');

/** The CLI's whole result, for tests about the CLI itself. */
export function runCli(env: NodeJS.ProcessEnv, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(...cleanCommand(process.execPath, [CLI, ...args]), { env, encoding: 'utf8' });
}

/** The CLI's output; throws with its stderr when it fails. */
export function cli(env: NodeJS.ProcessEnv, ...args: string[]): string {
  const result = runCli(env, ...args);
  if (result.status !== 0) throw new Error(`cli ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** The CLI's output, like cli(), without blocking the event loop meanwhile: while spawnSync
 * blocks it, a kept-alive connection the server closes as idle is not seen closing, and the
 * next request is sent on it and fails. Use it while the test holds connections to a server. */
export function cliAsync(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const child = endsWithTest(spawn(...cleanCommand(process.execPath, [CLI, ...args]), { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(stdout.trim()) : fail(new Error(`cli ${args.join(' ')}: ${stderr}`))));
  });
}

/** The server run to its end, for settings that must stop it before it serves. */
export function runServer(env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync(...cleanCommand(process.execPath, [STANDALONE_SERVER]), { env, encoding: 'utf8' });
}

export interface Instance {
  readonly child: ChildProcess;
  /** The first line printed on stdout since the start that contains `text` (already printed, or
   * to come); rejects if the process exits first. */
  until(text: string): Promise<string>;
  /** The last few thousand characters it printed (stdout and stderr), for failure messages. */
  output(): string;
}

/** Starts the server and follows its output, line by line. */
export function spawnInstance(env: NodeJS.ProcessEnv): Instance {
  const child = endsWithTest(spawn(...cleanCommand(process.execPath, [STANDALONE_SERVER]), { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  // The latest lines only: the request log of a loaded instance is long.
  const seen: string[] = [];
  const waiting: { text: string; found(line: string): void }[] = [];
  let partial = '';
  let tail = '';
  const keep = (chunk: string) => {
    tail = (tail + chunk).slice(-8000);
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    keep(chunk.toString());
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      seen.push(line);
      if (seen.length > 5000) seen.shift();
      for (const w of [...waiting]) {
        if (!line.includes(w.text)) continue;
        waiting.splice(waiting.indexOf(w), 1);
        w.found(line);
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  const exited = new Promise<never>((_, fail) => child.once('exit', (code, signal) => fail(new Error(`the instance exited (${code ?? signal}): ${tail}`))));
  exited.catch(() => undefined);
  return {
    child,
    output: () => tail,
    until(text) {
      const earlier = seen.find((line) => line.includes(text));
      if (earlier !== undefined) return Promise.resolve(earlier);
      return Promise.race([new Promise<string>((found) => waiting.push({ text, found })), exited]);
    },
  };
}

/** Starts the server and resolves once it printed `ready` (default: the web line). */
export async function startInstance(env: NodeJS.ProcessEnv, ready = 'Rookery is up'): Promise<Instance> {
  const instance = spawnInstance(env);
  await instance.until(ready);
  return instance;
}

function ended(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => done(code));
    child.kill(signal);
  });
}

/** SIGTERM, then the exit code once it has stopped. */
export function stopInstance(instance: Instance): Promise<number | null> {
  return ended(instance.child, 'SIGTERM');
}

/** SIGKILL: no clean-up of any kind, as a crash. */
export async function killInstance(instance: Instance): Promise<void> {
  await ended(instance.child, 'SIGKILL');
}

/** What an instance's SQLite file holds that explains a stuck wait: its queued jobs (with their
 * leases and ordering keys), its dead letters and its latest statuses, read beside the running
 * instance. Integers are read as BigInt and shown as decimal strings: ids are 64-bit, and read
 * as JS numbers they throw (or lose digits). Each part is read apart, so that one that fails
 * hides none of the others. */
export function describeStore(path: string): string {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true, readBigInts: true });
  } catch (err) {
    return String(err);
  }
  const rows = (sql: string): string => {
    try {
      return JSON.stringify(db.prepare(sql).all(), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)).slice(0, 2000);
    } catch (err) {
      return String(err);
    }
  };
  try {
    return [
      rows('SELECT name, attempts, last_error, run_at, lease_until, ordering_key FROM jobs'),
      `  dead: ${rows('SELECT name, attempts, last_error FROM dead_jobs')}`,
      `  latest statuses: ${rows('SELECT id, uri, deleted_at, edited_at FROM statuses ORDER BY id DESC LIMIT 5')}`,
    ].join('\n');
  } finally {
    db.close();
  }
}
