// One instance as four processes (test/helpers/four-processes.ts) on one SQLite file and Redis;
// test/e2e/processes-postgres.test.ts runs the same on PostgreSQL. And the roles' settings.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fourProcesses } from '../helpers/four-processes.ts';
import { childEnv } from '../helpers/processes.ts';
import { SHARED_REDIS } from '../helpers/redis.ts';
import { runServer } from '../helpers/standalone.ts';

// About 80 s alone; 150 s and more beside the other e2e files on a loaded machine.
t.setTimeout(300_000);

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-processes-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

t.test('2 web + 1 streaming + 1 worker on one SQLite file and Redis', (t) => fourProcesses(t, {}));

t.test('a role without REDIS_URL, or an unknown one, stops the server with one clear line', async (t) => {
  const run = (extra: Record<string, string>) =>
    runServer(childEnv({ DATA_DIR: dataDir, PORT: '0', ...extra }));
  for (const [extra, line] of [
    [{ ROOKERY_ROLE: 'web' }, 'ROOKERY_ROLE=web needs REDIS_URL: the processes of one instance share events and jobs through Redis'],
    [{ ROOKERY_ROLE: 'worker', REDIS_URL: '' }, 'ROOKERY_ROLE=worker needs REDIS_URL: the processes of one instance share events and jobs through Redis'],
    [{ ROOKERY_ROLE: 'cook', REDIS_URL: SHARED_REDIS }, 'ROOKERY_ROLE must be web, streaming, worker or all, got "cook"'],
  ] as const) {
    const result = run(extra);
    t.same([result.status, result.stderr.trim()], [1, line], JSON.stringify(extra));
  }
});
