// endsWithTest: a child a test started dies with the test's process, however that process
// ends. Each case runs a miniature test process (children/sleeper-parent.ts) that starts a
// child which never ends by itself; the pipe it shares with its parent closes only once both
// are gone, so the wait is on that event (bounded, so that a survivor fails the case instead
// of hanging it).

import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { childEnv, cleanCommand, endsWithTest } from './processes.ts';

const script = join(dirname(fileURLToPath(import.meta.url)), 'children/sleeper-parent.ts');

/** The parent started, with the pid of its child, and a promise of the shared pipe's end. A
 * child left running by a failed case is killed at the case's end. */
async function startParent(t: Test, ...args: string[]) {
  const parent = endsWithTest(spawn(...cleanCommand(process.execPath, [script, ...args]), { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] }));
  let printed = '';
  const pipeClosed = new Promise<'closed'>((done) => parent.stdout.once('close', () => done('closed')));
  const pid = await new Promise<number>((found, fail) => {
    parent.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('\n')) found(Number(printed.trim()));
    });
    parent.once('exit', (code) => fail(new Error(`the parent exited (${code}) before printing its child's pid`)));
  });
  t.teardown(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const parentExited = new Promise<void>((done) => (parent.exitCode !== null || parent.signalCode !== null ? done() : parent.once('exit', () => done())));
  return { parent, pid, pipeClosed, parentExited };
}

/** 'closed' once every writer of the pipe is gone, 'open' if it is still open after a while. */
function pipeEnd(pipeClosed: Promise<'closed'>): Promise<'closed' | 'open'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<'open'>((done) => (timer = setTimeout(() => done('open'), 10_000)));
  return Promise.race([pipeClosed, bound]).finally(() => clearTimeout(timer));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

t.test('a parent ended by SIGTERM (as tap ends a test out of time) takes its child with it', async (t) => {
  const { parent, pid, pipeClosed, parentExited } = await startParent(t, 'tied');
  t.ok(alive(pid), 'the child runs');
  parent.kill('SIGTERM');
  await parentExited;
  t.equal(parent.signalCode, 'SIGTERM', 'the parent ended by the signal, as it would have without the tie');
  t.equal(await pipeEnd(pipeClosed), 'closed', 'the child is gone too');
});

t.test('a parent that exits by itself takes its child with it', async (t) => {
  const { parent, pipeClosed, parentExited } = await startParent(t, 'tied', 'exit');
  await parentExited;
  t.equal(parent.exitCode, 0);
  t.equal(await pipeEnd(pipeClosed), 'closed', 'the child is gone too');
});

t.test('without the tie the child outlives its parent (what the tie is for)', async (t) => {
  const { parent, pid, pipeClosed, parentExited } = await startParent(t, 'untied');
  parent.kill('SIGTERM');
  await parentExited;
  t.ok(alive(pid), 'the child still runs');
  process.kill(pid, 'SIGKILL');
  t.equal(await pipeEnd(pipeClosed), 'closed', 'and the pipe closes once it is killed');
});
