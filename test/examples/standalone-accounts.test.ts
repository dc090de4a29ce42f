// The operator CLI's accounts with staff roles (`npm run rookery -- accounts …`), run as a
// process on a DATA_DIR: exact output and exit codes, and the role in the store the server opens.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { openStore } from '../../examples/standalone/store.ts';
import { childEnv } from '../helpers/processes.ts';
import { runCli } from '../helpers/standalone.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-accounts-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const env = childEnv({ DATA_DIR: dataDir });

const run = (...args: string[]) => {
  const result = runCli(env, 'accounts', ...args);
  return { code: result.status, out: result.stdout, err: result.stderr };
};

async function roleOf(username: string): Promise<string | null | undefined> {
  const { storage } = await openStore(readSettings({ DATA_DIR: dataDir }));
  try {
    return (await storage.accounts.findByUsername(username, null))?.role;
  } finally {
    await storage.close();
  }
}

t.test('create with a role, modify it, take it away', async (t) => {
  const created = run('create', 'alice', '--email', 'alice@example.com', '--password', 'correct horse battery', '--role', 'Owner', '--confirmed');
  t.equal(created.code, 0, created.err);
  t.match(created.out, /^Created @alice \(id \d+\) as Owner\.\n$/);
  t.equal(await roleOf('alice'), 'Owner');

  t.strictSame(run('modify', 'alice', '--role', 'moderator'), { code: 0, out: '@alice is now Moderator.\n', err: '' }, 'any case');
  t.equal(await roleOf('alice'), 'Moderator');
  t.strictSame(run('modify', 'alice', '--remove-role'), { code: 0, out: '@alice has no role now.\n', err: '' });
  t.equal(await roleOf('alice'), null);

  const plain = run('create', 'bob', '--email', 'bob@example.com', '--password', 'correct horse battery');
  t.match(plain.out, /^Created @bob \(id \d+\)\.\n$/);
  t.equal(await roleOf('bob'), null);
});

async function userOf(username: string) {
  const { storage } = await openStore(readSettings({ DATA_DIR: dataDir }));
  try {
    const account = await storage.accounts.findByUsername(username, null);
    return account === null ? null : await storage.accounts.getUser(account.id);
  } finally {
    await storage.close();
  }
}

t.test('modify, as tootctl: --disable, --enable, --approve, --confirm', async (t) => {
  const created = run('create', 'dora', '--email', 'dora@example.com', '--password', 'correct horse battery', '--unconfirmed', '--pending');
  t.equal(created.code, 0, created.err);
  t.match(await userOf('dora'), { confirmedAt: null, approved: false, disabled: false });
  t.strictSame(run('modify', 'dora', '--approve', '--confirm'), { code: 0, out: '@dora: confirm, approve done.\n', err: '' });
  const confirmed = await userOf('dora');
  t.match(confirmed, { approved: true, disabled: false });
  t.type(confirmed?.confirmedAt, 'number');
  t.strictSame(run('modify', 'dora', '--disable', '--role', 'Moderator'), { code: 0, out: '@dora: disable done.\n@dora is now Moderator.\n', err: '' });
  t.match(await userOf('dora'), { disabled: true });
  t.equal(await roleOf('dora'), 'Moderator');
  t.strictSame(run('modify', 'dora', '--enable'), { code: 0, out: '@dora: enable done.\n', err: '' });
  t.match(await userOf('dora'), { disabled: false });
});

t.test('bad input is refused with the usage', async (t) => {
  const unknown = run('modify', 'alice', '--role', 'Root');
  t.equal(unknown.code, 2);
  t.match(unknown.err, /^Unknown role: Root \(one of Moderator, Admin, Owner\)\.\nUsage: npm run rookery/);
  const neither = run('modify', 'alice');
  t.equal(neither.code, 2);
  t.match(neither.err, /^accounts modify needs --role, --remove-role, --disable, --enable, --approve or --confirm\.\nUsage/);
  const both = run('modify', 'alice', '--role', 'Admin', '--remove-role');
  t.equal(both.code, 2);
  t.match(both.err, /^--role and --remove-role exclude each other\.\nUsage/);
  const onOff = run('modify', 'alice', '--disable', '--enable');
  t.equal(onOff.code, 2);
  t.match(onOff.err, /^--disable and --enable exclude each other\.\nUsage/);
  const nobody = run('modify', 'nobody', '--role', 'Admin');
  t.equal(nobody.code, 2);
  t.match(nobody.err, /^No local account named nobody\.\nUsage/);
  const contradiction = run('create', 'carol', '--email', 'carol@example.com', '--confirmed', '--unconfirmed');
  t.equal(contradiction.code, 2);
  t.match(contradiction.err, /^--confirmed and --unconfirmed exclude each other\.\nUsage/);
  const badRole = run('create', 'carol', '--email', 'carol@example.com', '--role', 'King');
  t.equal(badRole.code, 2);
  t.equal(await roleOf('carol'), undefined, 'nothing created');
});

t.test('audit list: what moderators did, newest first', async (t) => {
  const audit = (...args: string[]) => {
    const result = runCli(env, 'audit', ...args);
    return { code: result.status, out: result.stdout, err: result.stderr };
  };
  t.strictSame(audit('list'), { code: 0, out: 'Nothing recorded.\n', err: '' });
  const { storage } = await openStore(readSettings({ DATA_DIR: dataDir }));
  const alice = await storage.accounts.findByUsername('alice', null);
  const bob = await storage.accounts.findByUsername('bob', null);
  if (alice === null || bob === null) throw new Error('made by the first test');
  const report = { id: '1000', accountId: bob.id, targetAccountId: alice.id, statusIds: [], comment: '', category: 'other' as const, ruleIds: null, forwarded: false, assignedAccountId: null, actionTakenAt: null, actionTakenByAccountId: null, createdAt: 0, updatedAt: 0 };
  await storage.reports.create(report);
  await storage.reports.update('1000', { assignedAccountId: alice.id }, { id: '2000', accountId: alice.id, action: 'assigned_to_self', targetType: 'Report', targetId: '1000', createdAt: Date.UTC(2026, 0, 2) });
  await storage.reports.update('1000', { actionTakenAt: 1 }, { id: '2001', accountId: alice.id, action: 'resolve', targetType: 'Report', targetId: '1000', createdAt: Date.UTC(2026, 0, 3) });
  await storage.close();
  t.strictSame(audit('list'), { code: 0, out: '2026-01-03T00:00:00.000Z  @alice  resolve  Report 1000\n2026-01-02T00:00:00.000Z  @alice  assigned_to_self  Report 1000\n', err: '' });
  t.strictSame(audit('list', '--limit', '1'), { code: 0, out: '2026-01-03T00:00:00.000Z  @alice  resolve  Report 1000\n', err: '' });
  const unknown = audit('show');
  t.equal(unknown.code, 2);
  t.match(unknown.err, /^Unknown command: audit show\nUsage/);
});

t.test('accounts delete: gone for good, the username reserved, the data left to the server', async (t) => {
  t.strictSame(run('delete', 'bob'), { code: 0, out: '@bob is deleted; the server removes its data in the background.\n', err: '' });
  const { storage } = await openStore(readSettings({ DATA_DIR: dataDir }));
  try {
    const bob = await storage.accounts.findByUsername('bob', null);
    t.equal(typeof bob?.deletedAt, 'number', 'marked deleted; the row stays');
    const queued = await storage.jobs.claim(Date.now() + 60_000, 1000, 60_000);
    t.ok(queued.some((job) => job.name === 'account-purge' && (job.payload as { accountId: string }).accountId === bob?.id), 'the purge is queued for the server');
  } finally {
    await storage.close();
  }
  const again = run('delete', 'bob');
  t.equal(again.code, 2);
  t.match(again.err, /^@bob was deleted already\.\nUsage/);
  const taken = run('create', 'bob', '--email', 'bob2@example.com', '--password', 'correct horse battery');
  t.strictSame([taken.code, taken.err], [1, 'Validation failed: Username is already taken\n'], 'the username is not given again');
});
