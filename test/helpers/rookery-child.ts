// A second Rookery process for tests: the given SQLite file, the given plugins (by name), a
// worker of its own, and a clock the test moves. It reads commands on stdin, one per line, and
// answers each on stdout once done, so a test waits on answers, never on time:
//   advance <ms>  → "advanced"          (moves this process's clock)
//   drain         → "drained <runs>"    (runs every due job; <runs>: plugin jobs run here so far)
//   close         → "closed", then exits
// Started with `node test/helpers/rookery-child.ts <database> <plugin,…>` (see processes.ts for
// running it without tap's loader); it prints "ready" once it can take commands.

import { createInterface } from 'node:readline';
import { createInProcessBus } from '../../core/domain/bus.ts';
import { createNodeSecrets } from '../../adapters/node/secrets.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { resolveConfig } from '../../core/domain/config.ts';
import { createRookery } from '../../core/mastodon/rookery.ts';
import { cardsPlugin, mediaPlugin, pollsPlugin, scheduledPlugin } from '../../plugins/index.ts';
import { countingJobs } from './counting-jobs.ts';

const [database, pluginNames = ''] = process.argv.slice(2);
if (database === undefined) throw new Error('usage: rookery-child.ts <database> [plugin,…]');
const available = { polls: pollsPlugin, scheduled: scheduledPlugin, cards: cardsPlugin, media: mediaPlugin };
const counter = { runs: 0 };
const plugins = pluginNames
  .split(',')
  .filter((name) => name !== '')
  .map((name) => {
    const make = available[name as keyof typeof available];
    if (make === undefined) throw new Error(`unknown plugin ${name}`);
    return countingJobs(make(), counter);
  });

let offset = 0;
const rookery = await createRookery({
  config: resolveConfig({ domain: 'rookery.test' }),
  storage: openSqliteStorage({ path: database }),
  bus: createInProcessBus(),
  clock: { now: () => Date.now() + offset },
  secrets: createNodeSecrets({ scryptN: 1024 }),
  plugins,
  // Small batches, so that two processes draining together share the work.
  worker: { batch: 2 },
});

const say = (line: string) => process.stdout.write(`${line}\n`);
say('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === 'advance') {
    offset += Number(argument);
    say('advanced');
  } else if (command === 'drain') {
    await rookery.drain();
    say(`drained ${counter.runs}`);
  } else if (command === 'close') {
    await rookery.close();
    say('closed');
    process.exit(0);
  } else {
    say(`unknown command ${command}`);
  }
}
