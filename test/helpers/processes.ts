// Child processes in tests must not inherit tap's loader hooks (NODE_OPTIONS --import …),
// which break other programs such as tsc. tap wraps child_process and puts NODE_OPTIONS back
// into whatever env we pass, so commands run through `env -u NODE_OPTIONS`, which removes it
// at exec time: use cleanCommand() to build the command line.

import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { onExit } from 'signal-exit';

export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_OPTIONS' || key.startsWith('TAP') || key.startsWith('_TAP')) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** A port nobody listens on right now (the kernel picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** [command, args] that run `command args…` without tap's NODE_OPTIONS. */
export function cleanCommand(command: string, args: readonly string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', command, ...args]];
}

/** Children still running, killed if this test process ends first. */
const running = new Set<ChildProcess>();
let watchingExit = false;

/** Ties `child` to this test process: if the process ends while the child still runs (tap ends
 * a test that ran out of time with SIGTERM; a run may be interrupted; a failure may skip the
 * teardown), the child is killed with it. Without this a standalone server or a redis-server
 * outlived its test, holding its port and its files. signal-exit, which tap itself uses, runs
 * the kill on the signals that end a process as well as on a normal exit. */
export function endsWithTest<T extends ChildProcess>(child: T): T {
  if (!watchingExit) {
    watchingExit = true;
    onExit(() => {
      for (const still of running) if (still.exitCode === null && still.signalCode === null) still.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}
