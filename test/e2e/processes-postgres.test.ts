// One instance as four processes (test/helpers/four-processes.ts), two web, one streaming and
// one worker, on one PostgreSQL database (DATABASE_URL) and Redis: every status, favourite,
// notification and stream event exactly once, and no acknowledged write lost to a kill -9.

import t from 'tap';
import { fourProcesses } from '../helpers/four-processes.ts';
import { testPostgres } from '../helpers/postgres.ts';

// About 80 s alone; 150 s and more beside the other e2e files on a loaded machine.
t.setTimeout(300_000);

t.test('2 web + 1 streaming + 1 worker on one PostgreSQL database and Redis', async (t) => {
  const postgres = await testPostgres(t.teardown.bind(t));
  await fourProcesses(t, { DATABASE_URL: postgres.url });
  // The data is where DATABASE_URL said, not in a SQLite file beside it.
  const [row] = await postgres.query('SELECT count(*)::int AS n FROM statuses');
  t.ok(Number(row?.['n']) > 100, `${String(row?.['n'])} statuses in the PostgreSQL database`);
});
