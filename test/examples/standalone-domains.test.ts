// The operator CLI's domain blocks (`npm run rookery -- domains …`), run as a process on a
// DATA_DIR, as operators run it: exact output and exit codes, and the blocks are the federation
// plugin's, in the store the server opens.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { openStore } from '../../examples/standalone/store.ts';
import { federationStorage } from '../../plugins/federation/storage/index.ts';
import { childEnv } from '../helpers/processes.ts';
import { runCli } from '../helpers/standalone.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-domains-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const env = childEnv({ DATA_DIR: dataDir });

const run = (...args: string[]) => {
  const result = runCli(env, 'domains', ...args);
  return { code: result.status, out: result.stdout, err: result.stderr };
};

t.test('block, list, unblock; invalid input is refused with a clear error', async (t) => {
  t.strictSame(run('list'), { code: 0, out: 'No blocked domains.\n', err: '' });
  const before = Date.now();
  t.strictSame(run('block', 'Example.COM', '--reason', 'spam, harassment'), { code: 0, out: 'Blocked example.com and its subdomains.\n', err: '' });
  t.strictSame(run('block', 'Bücher.example'), { code: 0, out: 'Blocked xn--bcher-kva.example and its subdomains.\n', err: '' }, 'IDN stored as punycode');
  t.strictSame(run('block', 'localhost:4323'), { code: 0, out: 'Blocked localhost:4323.\n', err: '' }, 'one instance by its port');
  t.strictSame(run('block', 'example.com', '--reason', 'spam'), { code: 0, out: 'Already blocked: example.com and its subdomains (reason replaced).\n', err: '' });
  const after = Date.now();

  const listed = run('list');
  t.equal(listed.code, 0);
  t.equal(listed.err, '');
  const rows = listed.out.trimEnd().split('\n').map((line) => line.split('  '));
  t.strictSame(rows.map((r) => [r[0], r[2]]), [['example.com', 'spam'], ['localhost:4323', undefined], ['xn--bcher-kva.example', undefined]], 'by domain, with reasons');
  for (const r of rows) {
    const at = Date.parse(r[1] ?? '');
    t.ok(at >= before - 1000 && at <= after && new Date(at).toISOString() === r[1], `${r[0]}: blocked at an ISO time during the test`);
  }

  // What the server's federation plugin will read: the same store, the same repository.
  const { storage } = await openStore(readSettings({ DATA_DIR: dataDir }));
  const blocks = storage.extend(federationStorage);
  t.strictSame([await blocks.isBlocked('mastodon.example.com'), await blocks.isBlocked('localhost:4324'), await blocks.isBlocked('other.example')], [true, false, false]);
  await storage.close();

  t.strictSame(run('unblock', 'EXAMPLE.com.'), { code: 0, out: 'Unblocked example.com.\n', err: '' });
  t.strictSame(run('unblock', 'example.com'), { code: 1, out: '', err: 'example.com is not blocked.\n' });
  t.strictSame(run('block', 'not a domain'), { code: 1, out: '', err: 'Invalid domain: "not a domain"\n' });
  t.strictSame(run('block', 'https://example.org/'), { code: 1, out: '', err: 'Invalid domain: "https://example.org/"\n' });
  t.strictSame(run('unblock', 'a..b'), { code: 1, out: '', err: 'Invalid domain: "a..b"\n' });
  t.strictSame(run('block', 'example.org', '--reason', 'x'.repeat(1001)), { code: 1, out: '', err: 'The reason is longer than 1000 characters\n' });
  const missing = run('block');
  t.equal(missing.code, 2, 'no domain: usage');
  t.match(missing.err, /^Which domain\? domains block needs one\.\nUsage: npm run rookery/);
  const unknown = run('frobnicate');
  t.equal(unknown.code, 2);
  t.match(unknown.err, /^Unknown command: domains frobnicate\nUsage: npm run rookery/);
  t.equal(run('list').out, `localhost:4323  ${rows[1]?.[1]}\nxn--bcher-kva.example  ${rows[2]?.[1]}\n`, 'what is left');
});
