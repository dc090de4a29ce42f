// The standalone instance as a child process, the way operators run it: the server
// (examples/standalone/server.ts) in any role, and the operator CLI on the same settings.
// A start resolves on the line the process prints once it serves, never after a delay.

import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanCommand } from './processes.ts';

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

export interface Instance {
  readonly child: ChildProcess;
  /** The last few thousand characters it printed (stdout and stderr), for failure messages. */
  output(): string;
}

/** Starts the server and resolves once its output contains `ready` (default: the web line). */
export function startInstance(env: NodeJS.ProcessEnv, ready = 'Rookery is up'): Promise<Instance> {
  const child = spawn(...cleanCommand(process.execPath, [STANDALONE_SERVER]), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // Only the tail is kept: the request log of a loaded instance is long.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  const instance: Instance = { child, output: () => output };
  return new Promise((started, fail) => {
    let seen = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (!seen && output.includes(ready)) {
        seen = true;
        started(instance);
      }
    });
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => fail(new Error(`the instance exited (${code ?? signal}) before "${ready}": ${output}`)));
  });
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
