// bench/steal.ts: the hypervisor's share of the machine's CPU time, read from /proc/stat,
// printed beside the bench's figures.

import { existsSync } from 'node:fs';
import t from 'tap';
import { measureSteal, stealText } from '../../bench/steal.ts';

t.test('a share between 0 and 1 once the machine has counted some time', { skip: existsSync('/proc/stat') ? false : 'no /proc/stat on this system' }, async (t) => {
  const since = measureSteal();
  // The kernel counts CPU time in ticks (10 ms at most): wait until at least one passed.
  let share: number | null = null;
  const deadline = Date.now() + 2_000;
  while (share === null && Date.now() < deadline) {
    await new Promise<void>((done) => setImmediate(done));
    share = since();
  }
  t.type(share, 'number');
  t.ok(share !== null && share >= 0 && share <= 1, `share ${share}`);
});

t.test('how the share is written', async (t) => {
  t.equal(stealText(0.123), 'steal 12%');
  t.equal(stealText(0), 'steal 0%');
  t.equal(stealText(null), 'steal ?');
});
