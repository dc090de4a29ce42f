// bench/growth.ts at a tiny size: `BENCH_PARTS=growth npm run bench` runs to the end and prints
// one line per point in the exact format `growth <workload> <size> <server CPU µs>`, for every
// workload at every size and every delivery at every follower count. The figures themselves
// are the bench's business: nothing here looks at how large they are.

import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { endsWithTest } from '../helpers/processes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const READS_AND_WRITES = ['status-anonymous', 'status-signed-in', 'home', 'public', 'hashtag', 'hashtag-rare', 'notifications', 'context', 'favourite', 'publish'];
const DELIVERIES = ['delivery-stream', 'delivery-federation'];

function runBench(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = endsWithTest(spawn(process.execPath, [join(root, 'bench/run.ts')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

t.test('the growth part prints every point, one line each, in the exact format', async (t) => {
  const { code, stdout, stderr } = await runBench({
    BENCH_PARTS: 'growth',
    BENCH_STORE: 'sqlite',
    BENCH_GROWTH_SIZES: '200,400',
    BENCH_GROWTH_FOLLOWERS: '3,6',
    BENCH_GROWTH_SECONDS: '1',
    BENCH_GROWTH_WARMUP_SECONDS: '0',
  });
  t.equal(code, 0, stderr);
  const lines = stdout.split('\n').filter((line) => line !== '');
  // Everything that is not a point is a comment.
  const points = lines.filter((line) => !line.startsWith('# '));
  for (const line of points) t.match(line, /^growth [a-z-]+ [1-9][0-9]* [0-9]+\.[0-9]$/, `a point: ${line}`);
  const expected = [
    ...[200, 400].flatMap((size) => READS_AND_WRITES.map((workload) => `${workload} ${size}`)),
    ...DELIVERIES.flatMap((workload) => [3, 6].map((followers) => `${workload} ${followers}`)),
  ];
  t.same(
    points.map((line) => line.split(' ').slice(1, 3).join(' ')),
    expected,
    'every workload at every size, then every delivery at every follower count, once each and in order',
  );
  t.notMatch(stdout, /requests failed/, 'no request of a workload failed');
});
