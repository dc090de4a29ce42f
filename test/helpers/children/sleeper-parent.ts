// A test process in miniature, for test/helpers/processes.test.ts: it starts a child that
// never ends on its own, tied to it with endsWithTest (or not, with `untied`), prints the
// child's pid, and then waits to be ended (or, with `exit`, exits at once by itself).
// The child writes nothing but keeps this process's stdout open: the test sees that pipe
// close only once both processes are gone.

import { spawn } from 'node:child_process';
import { endsWithTest } from '../processes.ts';

const [tie, end] = process.argv.slice(2);
const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: ['ignore', 'inherit', 'ignore'] });
if (tie !== 'untied') endsWithTest(sleeper);
process.stdout.write(`${sleeper.pid}\n`, () => {
  if (end === 'exit') process.exit(0);
});
setInterval(() => {}, 60_000);
