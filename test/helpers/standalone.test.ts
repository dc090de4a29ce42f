// describeStore: what a failed wait of the cross-server tests prints about each instance's
// SQLite file. Ids are 64-bit (every real one is above 2^53): read as JS numbers, they made it
// throw a RangeError that hid the jobs it was there to show.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { harness } from './harness.ts';
import { describeStore } from './standalone.ts';

t.test("the jobs, the dead letters and the latest statuses, with their 64-bit ids intact", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rookery-describe-'));
  const path = join(dir, 'rookery.sqlite3');
  const h = await harness({ storage: openSqliteStorage({ path }), worker: false });
  t.teardown(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const alice = await h.user('alice');
  const posted = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hello' }, drain: false });
  const id: string = posted.json.id;
  t.ok(BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER), `a real id is above 2^53: ${id}`);
  const now = h.clock.now();
  const jobs = h.core.storage.jobs;
  await jobs.enqueue([{ name: 'test:waiting', payload: { statusId: id } }, { name: 'test:dies', payload: null }], now);
  const dying = (await jobs.claim(now, 100, 60_000)).find((job) => job.name === 'test:dies');
  if (dying === undefined) throw new Error('the job to bury was not claimed');
  await jobs.bury(dying.id, 'it failed for good', now);

  const described = describeStore(path);
  t.notMatch(described, 'RangeError', 'no id read as a JS number');
  t.match(described, `{"name":"test:waiting","attempts":"0","last_error":null,"run_at":"${now}","lease_until":"${now + 60_000}","ordering_key":null}`, 'the queued jobs');
  t.match(described, '\n  dead: [{"name":"test:dies","attempts":"1","last_error":"it failed for good"}]', 'the dead letters');
  t.match(described, `\n  latest statuses: [{"id":"${id}","uri":`, 'the latest statuses, each id exactly as stored');
});
