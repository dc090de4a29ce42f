// The standalone instance under clients that never read: 200 raw sockets each pipelining ten
// requests for an 850 kB public timeline, reading nothing. Before the per-connection bounds
// the instance kept every response in memory for as long as the sockets stayed open (1.25 GB
// peak for this load, never released); now each connection is closed once it owes more than
// it may, and the instance's peak resident memory stays near where it started. Measured on
// the child process itself (/proc/<pid>/status: VmHWM is the peak), after the server said it
// closed every one of them.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { childEnv, cleanCommand, endsWithTest, freePort } from '../helpers/processes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'rookery-slow-clients-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

const CLIENTS = 200;
const PIPELINED = 10;

function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]) / 1024;
}

t.test(`${CLIENTS} clients pipelining ${PIPELINED} timelines each and never reading`, { timeout: 90_000 }, async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), BIND: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMITS: 'false' });
  const child: ChildProcess = endsWithTest(spawn(...cleanCommand(process.execPath, [join(root, 'examples/standalone/server.ts')]), { env, stdio: ['ignore', 'pipe', 'inherit'] }));
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  let partial = '';
  let cutOff = 0;
  const cutOffWaiters: (() => void)[] = [];
  await new Promise<void>((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`the instance exited with ${code}: ${output}`)));
    // pino writes a line per record; a chunk may end inside one.
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        output = (output + line).slice(-4000);
        if (line.includes('Rookery is up')) ready();
        if (line.includes('"connection closed: ')) cutOff++;
      }
      if (cutOff >= CLIENTS) for (const done of cutOffWaiters.splice(0)) done();
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('no pid');

  // An account, and 40 statuses of 10,000 raw characters (one long URL each).
  const base = `http://127.0.0.1:${port}`;
  const call = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, string>>;
  };
  const app = await call('/api/v1/apps', { client_name: 'slow', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
  const appToken = await call('/oauth/token', { grant_type: 'client_credentials', client_id: app['client_id'], client_secret: app['client_secret'], scope: 'read write' });
  const user = await call('/api/v1/accounts', { username: 'slow', email: 'slow@example.com', password: 'a long password', agreement: true }, appToken['access_token']);
  for (let i = 0; i < 40; i++) await call('/api/v1/statuses', { status: `https://example.com/${i}/${'a'.repeat(9_950)}` }, user['access_token']);
  const page = await fetch(`${base}/api/v1/timelines/public?limit=40`);
  const size = (await page.arrayBuffer()).byteLength;
  t.ok(size > 800_000, `a timeline page is ${Math.round(size / 1000)} kB`);
  const before = memoryMb(pid, 'VmRSS');

  const request = 'GET /api/v1/timelines/public?limit=40 HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(PIPELINED);
  const allCutOff = new Promise<void>((done) => (cutOff >= CLIENTS ? done() : cutOffWaiters.push(done)));
  const sockets = await Promise.all(
    Array.from(
      { length: CLIENTS },
      () =>
        new Promise<Socket>((ready) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.pause(); // never reads
            socket.write(request);
            ready(socket);
          });
          socket.on('error', () => {});
        }),
    ),
  );
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
  });
  await allCutOff;
  t.pass(`the instance closed all ${CLIENTS} connections`);
  const peak = memoryMb(pid, 'VmHWM');
  t.comment(`resident memory: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak`);
  t.ok(peak - before < 300, `the peak grew by ${(peak - before).toFixed(0)} MB, not by a response per request (${Math.round((CLIENTS * PIPELINED * size) / 1e6)} MB)`);
  const health = await fetch(`${base}/api/v1/instance`);
  t.equal(health.status, 200, 'and it still answers');
});
