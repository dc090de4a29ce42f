// Child processes in tests must not inherit tap's loader hooks (NODE_OPTIONS --import …),
// which break other programs such as tsc. tap wraps child_process and puts NODE_OPTIONS back
// into whatever env we pass, so commands run through `env -u NODE_OPTIONS`, which removes it
// at exec time: use cleanCommand() to build the command line.

import { createServer } from 'node:net';

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
