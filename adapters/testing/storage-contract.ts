// The storage contract: one suite that every storage adapter must pass (memory, SQLite, and
// any future one such as MongoDB). It checks the comments of core/domain/ports/storage.ts, line by
// line, with exact values, against a fresh store per test.
//
// An adapter's test file calls storageContract(t, name, open). `open` returns a handle with:
// - storage: a fresh, empty store;
// - reopen (durable adapters): close the store and open the same data again;
// - connect (shared adapters): a second, independent connection to the same data (what a
//   second process would use). The atomic operations are then also raced across connections;
// - cleanup: close everything and remove the data.
//
// It ships as `rookery/testing`, so an adapter outside this repository runs the same suite.
// Run it under tap (`npm install --save-dev tap`); `t` is tap's root test, and conflicts must
// be thrown as the StorageConflict exported by 'rookery':
//
//   import t from 'tap';
//   import { storageContract } from 'rookery/testing';
//   import { openMyStorage } from '../src/index.ts';
//
//   storageContract(t, 'my store', async () => {
//     const storage = await openMyStorage({ database: `contract-${crypto.randomUUID()}` });
//     return { storage, cleanup: () => storage.close() }; // also drop the database here
//   });
//
// The suite only calls the tap methods in ContractTest, so its types do not depend on tap's.

import { StorageConflict, type AdminAccountFilter, type Page, type Storage, type StatusQuery, type StorageExtension } from '../../core/domain/ports/storage.ts';
import { probeStorage } from './probe-extension.ts';
import { inboxContract } from './inbox-contract.ts';
import { tagsContract } from './tags-contract.ts';
import { analyticsContract } from './analytics-contract.ts';
import { stampContract } from './stamp-contract.ts';
import { quotesContract } from './quotes-contract.ts';
import type { AccessToken, Account, Id, Report, Status, StatusMark, Visibility } from '../../core/domain/model.ts';
import {
  IdSeq,
  NO_EFFECTS,
  POST,
  T0,
  account,
  application,
  block,
  boost,
  code,
  edit,
  filter,
  follow,
  list,
  mark,
  mute,
  notification,
  replyTo,
  session,
  sortedIds,
  status,
  token,
  user,
} from './fixtures.ts';

/** What the suite needs of a tap Test: tap's `t`, and the `t` of each subtest, fit it. The
 * message is a rest tuple, not optional, so that tap's types fit under exactOptionalPropertyTypes. */
export interface ContractTest {
  test(name: string, body: (t: ContractTest) => Promise<void>): unknown;
  equal(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  strictSame(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  pass(message: string): unknown;
  fail(message: string): unknown;
}

export interface StoreHandle {
  storage: Storage;
  reopen?: () => Promise<Storage>;
  connect?: () => Promise<Storage>;
  cleanup(): Promise<void>;
}

export type OpenStore = () => Promise<StoreHandle>;

const ALL: Visibility[] = ['public', 'unlisted', 'private', 'direct'];
const HOUR = 3_600_000;

export function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to exist`);
  return value;
}

export const idsOf = (items: readonly { id: Id }[]): Id[] => items.map((i) => i.id);

/** One fresh store, an id sequence and shortcuts for the common steps. */
export class World {
  s: Storage;
  readonly handle: StoreHandle;
  readonly seq = new IdSeq();
  constructor(handle: StoreHandle) {
    this.handle = handle;
    this.s = handle.storage;
  }
  id(): Id {
    return this.seq.next();
  }
  async account(o: Partial<Account> = {}, withUser = false): Promise<Account> {
    const a = account(this.id(), o);
    await this.s.accounts.create(a, withUser ? user(a.id) : undefined);
    return a;
  }
  async post(accountId: Id, o: Partial<Status> = {}, effects = POST): Promise<Status> {
    const s = status(this.id(), accountId, o);
    const r = await this.s.statuses.create(s, effects);
    if (!r.created) throw new Error('post: not created');
    return r.status;
  }
  async acct(accountId: Id): Promise<Account> {
    return must(await this.s.accounts.get(accountId), `account ${accountId}`);
  }
  async st(statusId: Id): Promise<Status> {
    return must(await this.s.statuses.get(statusId), `status ${statusId}`);
  }
  async reopen(): Promise<void> {
    const reopen = must(this.handle.reopen, 'reopen');
    this.s = await reopen();
  }
}

export async function rejectsConflict(t: ContractTest, promise: Promise<unknown>, rule: string, message: string): Promise<void> {
  try {
    await promise;
    t.fail(`${message}: expected StorageConflict '${rule}', but it succeeded`);
  } catch (error) {
    t.equal(error instanceof StorageConflict ? `StorageConflict ${error.rule}` : String(error), `StorageConflict ${rule}`, message);
  }
}

export const count = <T>(values: readonly T[], wanted: T): number => values.filter((v) => v === wanted).length;

/** The three ways a contract test runs: on a fresh store (it), also raced against a second
 * connection (shared), and across a reopen (durable). Plugins' contracts use the same runner. */
export function contractRunner(t: ContractTest, adapterName: string, open: OpenStore) {
  const it = (name: string, body: (t: ContractTest, w: World) => Promise<void>): void => {
    void t.test(`${adapterName}: ${name}`, async (t) => {
      const handle = await open();
      try {
        await body(t, new World(handle));
      } finally {
        await handle.cleanup();
      }
    });
  };
  /** Runs only when the adapter can open a second connection to the same data. */
  const shared = (name: string, body: (t: ContractTest, w: World, other: Storage) => Promise<void>): void => {
    it(name, async (t, w) => {
      if (!w.handle.connect) {
        t.pass('single-connection adapter: nothing to race across connections');
        return;
      }
      const other = await w.handle.connect();
      try {
        await body(t, w, other);
      } finally {
        await other.close();
      }
    });
  };
  /** Runs only for adapters whose data survives a reopen. */
  const durable = (name: string, body: (t: ContractTest, w: World) => Promise<void>): void => {
    it(name, async (t, w) => {
      if (!w.handle.reopen) {
        t.pass('non-durable adapter: no reopen');
        return;
      }
      await body(t, w);
    });
  };
  return { it, shared, durable };
}

export function storageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, shared, durable } = contractRunner(t, adapterName, open);
  inboxContract(it, shared);
  tagsContract(it, shared);
  analyticsContract(it);
  quotesContract(it, shared);
  stampContract(it, shared);

  // ---- accounts --------------------------------------------------------------------------------

  it('accounts: create, get, getMany, findByUsername, update', async (t, w) => {
    const a = account(w.id(), { username: 'Alice', displayName: 'Alice A' });
    const u = user(a.id, { email: 'Alice@Example.org' });
    await w.s.accounts.create(a, u);
    t.strictSame(await w.s.accounts.get(a.id), a, 'get returns the account as created');
    t.equal(await w.s.accounts.get(w.id()), null, 'get of a missing id is null');
    t.equal(await w.s.accounts.get('not-an-id'), null, 'get of something that is not an id is null');

    const remote = account(w.id(), { username: 'alice', domain: 'Remote.Example', url: 'https://remote.example/@alice', uri: 'https://remote.example/u/alice' });
    await w.s.accounts.create(remote);
    t.strictSame(await w.s.accounts.findByUsername('ALICE', null), a, 'findByUsername ignores case (local)');
    t.strictSame(await w.s.accounts.findByUsername('alice', 'remote.EXAMPLE'), remote, 'findByUsername ignores case of username and domain');
    t.equal(await w.s.accounts.findByUsername('alice', 'other.example'), null, 'other domain: null');
    t.equal(await w.s.accounts.findByUsername('bob', null), null, 'unknown username: null');

    const many = await w.s.accounts.getMany([remote.id, w.id(), a.id]);
    t.strictSame(sortedIds(idsOf(many)), [a.id, remote.id], 'getMany skips missing ids');
    t.strictSame(idsOf(await w.s.accounts.getMany([remote.id])), [remote.id], 'getMany of one id');
    t.strictSame(await w.s.accounts.getMany([w.id()]), [], 'getMany of one missing id');

    const updated = await w.s.accounts.update(a.id, { displayName: 'New name', locked: true, fields: [], avatarUrl: 'https://files.example/a.png', note: '' });
    const expected = { ...a, displayName: 'New name', locked: true, fields: [], avatarUrl: 'https://files.example/a.png', note: '' };
    t.strictSame(updated, expected, 'update returns the updated account');
    t.strictSame(await w.s.accounts.get(a.id), expected, 'update is stored');
    t.strictSame(await w.s.accounts.update(a.id, { avatarUrl: null, bot: true, discoverable: false, headerUrl: 'h' }), { ...expected, avatarUrl: null, bot: true, discoverable: false, headerUrl: 'h' }, 'update can set null');
    t.equal(await w.s.accounts.update(w.id(), { displayName: 'x' }), null, 'update of a missing account is null');

    t.strictSame(await w.s.accounts.getUser(a.id), u, 'getUser');
    t.equal(await w.s.accounts.getUser(remote.id), null, 'getUser of an account without user is null');
    t.strictSame(await w.s.accounts.findUserByEmail('alice@EXAMPLE.ORG'), u, 'findUserByEmail ignores case');
    t.equal(await w.s.accounts.findUserByEmail('nobody@example.org'), null, 'findUserByEmail: unknown is null');
    const settings = { ...u.settings, defaultVisibility: 'private' as const, expandSpoilers: true };
    const uu = await w.s.accounts.updateUser(a.id, { approved: false, confirmedAt: null, settings, locale: 'de', passwordHash: 'new', disabled: true });
    t.strictSame(uu, { ...u, approved: false, confirmedAt: null, settings, locale: 'de', passwordHash: 'new', disabled: true }, 'updateUser');
    t.strictSame(await w.s.accounts.getUser(a.id), uu, 'updateUser is stored');
    t.equal(await w.s.accounts.updateUser(remote.id, { locale: 'fr' }), null, 'updateUser without user is null');

    t.equal(await w.s.accounts.countLocalUsers(), 1, 'countLocalUsers: one');
    await w.account({}, false);
    t.equal(await w.s.accounts.countLocalUsers(), 1, 'a local account without user is not counted');
    await w.account({}, true);
    t.equal(await w.s.accounts.countLocalUsers(), 2, 'countLocalUsers: two');
    t.equal(await w.s.accounts.countLocalUsers(0), 0, 'none active: no status yet');
    await w.account({ lastStatusAt: 5000 }, true);
    t.equal(await w.s.accounts.countLocalUsers(5000), 1, 'active since: a last status at that time counts');
    t.equal(await w.s.accounts.countLocalUsers(5001), 0, 'active since: an earlier one does not');
    t.equal(await w.s.accounts.countLocalUsers(), 3, 'every user without activeSince');
  });

  it('accounts: staff roles, stored and listed', async (t, w) => {
    const owner = await w.account({ role: 'Owner' }, true);
    const plain = await w.account({}, true);
    await w.account({ username: 'far', domain: 'remote.example', uri: 'https://remote.example/u/far' });
    t.strictSame(await w.acct(owner.id), owner, 'the role as created');
    t.strictSame(idsOf(await w.s.accounts.listStaff()), [owner.id], 'listStaff: local accounts with a role');
    const moderator = await w.s.accounts.update(plain.id, { role: 'Moderator' });
    t.strictSame(moderator, { ...plain, role: 'Moderator' }, 'update sets a role');
    t.strictSame(sortedIds(idsOf(await w.s.accounts.listStaff())), sortedIds([owner.id, plain.id]));
    t.strictSame(await w.s.accounts.update(owner.id, { role: null }), { ...owner, role: null }, 'and takes it away');
    t.strictSame(idsOf(await w.s.accounts.listStaff()), [plain.id]);
  });

  it('accounts: moderation states, the admin listing and a rejected sign-up', async (t, w) => {
    const staff = await w.account({ role: 'Moderator', username: 'mod_one', displayName: 'The Moderator' }, true);
    const pending = await w.account({ username: 'new_one' }, true);
    await w.s.accounts.updateUser(pending.id, { approved: false });
    const plain = await w.account({ username: 'plain_one', displayName: 'Plain Jane' }, true);
    const far = await w.account({ username: 'far_one', domain: 'Remote.Example', uri: 'https://remote.example/u/far_one' });
    t.strictSame(await w.acct(plain.id), plain, 'no moderation: the fields are absent');

    const suspended = await w.s.accounts.update(plain.id, { suspendedAt: 5000, silencedAt: 6000 });
    t.strictSame(suspended, { ...plain, suspendedAt: 5000, silencedAt: 6000 }, 'update sets moderation times');
    t.strictSame(await w.acct(plain.id), { ...plain, suspendedAt: 5000, silencedAt: 6000 }, 'and they are stored');
    await w.s.accounts.update(far.id, { sensitizedAt: 7000 });

    const list = async (filter: AdminAccountFilter, page: Page = { limit: 40 }) => idsOf(await w.s.accounts.listForAdmin(filter, page));
    const all = [far.id, plain.id, pending.id, staff.id];
    t.strictSame(await list({}), all, 'no filter: every account, newest first');
    t.strictSame(await list({ origin: 'local' }), [plain.id, pending.id, staff.id]);
    t.strictSame(await list({ origin: 'remote' }), [far.id]);
    t.strictSame(await list({ status: 'active', origin: 'local' }), [pending.id, staff.id], 'active: not suspended');
    t.strictSame(await list({ status: 'suspended' }), [plain.id]);
    t.strictSame(await list({ status: 'silenced' }), [plain.id]);
    t.strictSame(await list({ status: 'sensitized' }), [far.id]);
    t.strictSame(await list({ status: 'pending' }), [pending.id]);
    t.strictSame(await list({ status: 'disabled' }), []);
    await w.s.accounts.updateUser(staff.id, { disabled: true });
    await w.s.accounts.updateUser(plain.id, { disabled: true });
    t.strictSame(await list({ status: 'disabled' }), [staff.id], 'disabled: not suspended');
    t.strictSame(await list({ roles: ['Moderator', 'Admin'] }), [staff.id]);
    t.strictSame(await list({ roles: [] }), []);
    t.strictSame(await list({ domain: 'REMOTE.example' }), [far.id], 'domain: case ignored');
    t.strictSame(await list({ usernamePrefix: 'PLAIN_' }), [plain.id], 'username: a prefix, case ignored, _ taken literally');
    t.strictSame(await list({ usernamePrefix: 'lain' }), [], 'a prefix only');
    t.strictSame(await list({ usernamePrefix: '%' }), [], 'no wildcards');
    t.strictSame(await list({ displayNameContains: 'jAnE' }), [plain.id], 'display name: contained, case ignored');
    t.strictSame(await list({ displayNameContains: '.*' }), [], 'taken literally');
    const email = (await w.s.accounts.getUser(staff.id))?.email ?? '';
    t.strictSame(await list({ emailPrefix: `${email.split('@')[0] ?? ''}@`.toUpperCase() }), [staff.id], 'e-mail: a prefix, case ignored');
    t.strictSame(await list({ origin: 'local', usernamePrefix: 'far' }), [], 'every criterion holds');
    t.strictSame(await list({}, { limit: 2 }), all.slice(0, 2), 'limit');
    t.strictSame(await list({}, { limit: 2, maxId: plain.id }), all.slice(2, 4), 'maxId');
    t.strictSame(await list({}, { limit: 1, minId: pending.id }), [plain.id], 'minId: the rows right above');
    t.strictSame(await list({}, { limit: 10, sinceId: pending.id }), [far.id, plain.id], 'sinceId');

    t.strictSame(await w.s.accounts.update(plain.id, { suspendedAt: null, silencedAt: null }), { ...plain }, 'undone: absent again');
    t.strictSame(await w.acct(plain.id), plain);

    t.equal(await w.s.accounts.removeUnapproved(plain.id), false, 'an approved user stays');
    t.equal(await w.s.accounts.removeUnapproved(far.id), false, 'a remote account stays');
    t.equal(await w.s.accounts.removeUnapproved(w.id()), false, 'a missing one: false');
    t.equal(await w.s.accounts.removeUnapproved('nope'), false);
    t.equal(await w.s.accounts.removeUnapproved(pending.id), true, 'an unapproved sign-up goes');
    t.equal(await w.s.accounts.get(pending.id), null);
    t.equal(await w.s.accounts.getUser(pending.id), null, 'with its user');
    t.equal(await w.s.accounts.findByUsername('new_one', null), null, 'its username is free again');
    t.equal(await w.s.accounts.removeUnapproved(pending.id), false, 'once');
  });

  it('accounts: deleted, moved and aliases, stored and reserved', async (t, w) => {
    const gone = await w.account({ username: 'gone' }, true);
    const staff = await w.account({ role: 'Admin' }, true);
    const target = await w.account({ username: 'far2', domain: 'remote.example', uri: 'https://remote.example/u/far2' });
    t.strictSame(await w.acct(gone.id), gone, 'a live account: no deletedAt, not moved, no aliases');
    const deleted = await w.s.accounts.update(gone.id, { deletedAt: 7000 });
    t.strictSame(deleted, { ...gone, deletedAt: 7000 }, 'update marks it deleted');
    t.strictSame(await w.s.accounts.findByUsername('GONE', null), deleted, 'a deleted account is still found by its username');
    await rejectsConflict(t, w.account({ username: 'gone' }, true), 'username', 'and its username stays taken');
    const aliases = ['https://remote.example/u/far2', 'https://other.example/users/x'];
    t.strictSame(await w.s.accounts.update(staff.id, { alsoKnownAs: aliases, movedToAccountId: target.id }), { ...staff, alsoKnownAs: aliases, movedToAccountId: target.id }, 'aliases and the move');
    t.strictSame(await w.acct(staff.id), { ...staff, alsoKnownAs: aliases, movedToAccountId: target.id }, 'read back');
    t.strictSame(await w.s.accounts.update(staff.id, { alsoKnownAs: [], movedToAccountId: null }), staff, 'and taken away');
    t.equal(await w.s.accounts.countLocalUsers(), 1, 'countLocalUsers leaves deleted accounts out');
    await w.s.accounts.update(staff.id, { deletedAt: 8000 });
    t.strictSame(await w.s.accounts.listStaff(), [], 'listStaff leaves deleted accounts out');
    t.equal(await w.s.accounts.countLocalUsers(), 0);
  });

  it('accounts: remote accounts found by uri, refreshed, one per uri', async (t, w) => {
    const uri = 'https://remote.example/users/carol';
    const remote = await w.account({ username: 'carol', domain: 'remote.example', uri, url: 'https://remote.example/@carol', note: '<p>hi</p>' });
    const local = await w.account({}, true);
    t.strictSame(await w.s.accounts.findByUri(uri), remote, 'findByUri returns the remote account');
    t.equal(await w.s.accounts.findByUri('https://remote.example/users/CAROL'), null, 'exact match only');
    t.equal(await w.s.accounts.findByUri('https://other.example/users/carol'), null, 'unknown uri: null');
    t.equal(await w.s.accounts.findByUri(''), null, 'the empty uri matches no local account');
    const fields = [{ name: 'web', value: '<a href="https://carol.example">carol.example</a>', verifiedAt: null }];
    const refreshed = await w.s.accounts.update(remote.id, { url: 'https://remote.example/profile/carol', note: '<p>new</p>', fields, displayName: 'Carol', locked: true });
    const expected = { ...remote, url: 'https://remote.example/profile/carol', note: '<p>new</p>', fields, displayName: 'Carol', locked: true };
    t.strictSame(refreshed, expected, 'update sets url with the profile');
    t.strictSame(await w.s.accounts.findByUri(uri), expected, 'the refresh is stored');
    await rejectsConflict(t, w.s.accounts.create(account(w.id(), { username: 'carol2', domain: 'remote.example', uri })), 'uri', 'a second account with the uri');
    t.equal(await w.s.accounts.findByUsername('carol2', 'remote.example'), null, 'nothing written');
    const other = await w.account({ username: 'carol', domain: 'other.example', uri: 'https://other.example/users/carol' });
    t.strictSame(await w.s.accounts.findByUri('https://other.example/users/carol'), other, 'same username on another domain');
    t.strictSame(await w.s.accounts.get(local.id), local, 'local account untouched');
  });

  it('statuses: remote statuses and boosts found by uri; a uri is never reused', async (t, w) => {
    const author = await w.account({ username: 'dave', domain: 'remote.example', uri: 'https://remote.example/users/dave' });
    const reader = await w.account({}, true);
    const uri = 'https://remote.example/users/dave/statuses/1';
    const remote = await w.post(author.id, { local: false, uri, url: 'https://remote.example/@dave/1', content: '<p>remote</p>', text: 'remote' });
    const own = await w.post(reader.id);
    t.strictSame(await w.s.statuses.findByUri(uri), remote, 'findByUri returns the remote status');
    t.equal(await w.s.statuses.findByUri(`${uri}/x`), null, 'unknown uri: null');
    t.equal((await w.acct(author.id)).statusesCount, 1, 'counted for its remote author');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, local: false }, { limit: 10 })), [remote.id], 'local: false selects it');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, local: true }, { limit: 10 })), [own.id], 'local: true leaves it out');
    t.equal(await w.s.statuses.countLocal(), 1, 'not counted as local');

    const boostUri = 'https://remote.example/users/dave/statuses/2/activity';
    const boost = await w.s.statuses.reblog(status(w.id(), author.id, { local: false, uri: boostUri, url: null, reblogOfId: own.id, text: '', content: '' }));
    t.equal(boost.created, true, 'a remote boost');
    t.strictSame(await w.s.statuses.findByUri(boostUri), boost.status, 'the boost is found by its activity uri');
    t.equal((await w.st(own.id)).reblogsCount, 1, 'boost counted');

    await rejectsConflict(t, w.s.statuses.create(status(w.id(), author.id, { local: false, uri }), POST), 'uri', 'a second status with the uri');
    t.equal((await w.acct(author.id)).statusesCount, 2, 'nothing counted for the refused one');
    const deleted = await w.s.statuses.delete(remote.id, T0 + 5000, POST);
    t.equal(deleted?.status.id, remote.id, 'deleted');
    t.equal(await w.s.statuses.findByUri(uri), null, 'a deleted status is not found');
    await rejectsConflict(t, w.s.statuses.create(status(w.id(), author.id, { local: false, uri }), POST), 'uri', 'the uri of a deleted status stays taken');
    t.equal(await w.s.statuses.get(remote.id), null, 'still deleted');
  });

  it('accounts: StorageConflict username (ignoring case) and email; nothing written', async (t, w) => {
    const a = account(w.id(), { username: 'alice' });
    await w.s.accounts.create(a, user(a.id, { email: 'alice@example.org' }));

    const b = account(w.id(), { username: 'ALICE' });
    await rejectsConflict(t, w.s.accounts.create(b, user(b.id)), 'username', 'same username, other case');
    t.equal(await w.s.accounts.get(b.id), null, 'the account was not written');
    t.equal(await w.s.accounts.getUser(b.id), null, 'nor its user');

    const c = account(w.id(), { username: 'carol' });
    await rejectsConflict(t, w.s.accounts.create(c, user(c.id, { email: 'ALICE@Example.ORG' })), 'email', 'same e-mail, other case');
    t.equal(await w.s.accounts.get(c.id), null, 'the account was not written (email)');
    t.equal(await w.s.accounts.findByUsername('carol', null), null, 'nor findable');

    const remote = account(w.id(), { username: 'alice', domain: 'x.example' });
    await w.s.accounts.create(remote);
    t.strictSame(await w.s.accounts.get(remote.id), remote, 'same username on another domain is fine');
    await rejectsConflict(t, w.s.accounts.create(account(w.id(), { username: 'Alice', domain: 'X.Example' })), 'username', 'same username and domain ignoring case');
    await rejectsConflict(t, w.s.accounts.create(account(a.id, { username: 'dave' })), 'id', 'same id');
    t.equal(await w.s.accounts.countLocalUsers(), 1, 'still one user');
  });

  // ---- ids and copies --------------------------------------------------------------------------

  it('ids: 64-bit ids beyond 2^53 kept exactly and ordered numerically', async (t, w) => {
    const author = await w.account();
    const ids = ['9007199254740993', '9007199254740994', '999999999999999999', '1000000000000000000', '9223372036854775807'];
    for (const i of [...ids].reverse()) await w.s.statuses.create(status(i, author.id), POST);
    for (const i of ids) t.equal((await w.st(i)).id, i, `status ${i} round-trips exactly`);
    const q: StatusQuery = { visibilities: ['public'], authorId: author.id };
    t.strictSame(idsOf(await w.s.statuses.query(q, { limit: 10 })), [...ids].reverse(), 'newest first in numeric order');
    t.strictSame(idsOf(await w.s.statuses.query(q, { limit: 10, maxId: '1000000000000000000' })), ['999999999999999999', '9007199254740994', '9007199254740993'], 'maxId compares numerically');
    t.strictSame(idsOf(await w.s.statuses.query(q, { limit: 1, minId: '9007199254740993' })), ['9007199254740994'], 'minId distinguishes ids 1 apart above 2^53');
    const fan = await w.account();
    await w.s.interactions.favourite(mark('9007199254740995', fan.id, '9007199254740993'));
    await w.s.interactions.favourite(mark('1000000000000000000', fan.id, '9223372036854775807'));
    t.strictSame((await w.s.interactions.favouritesBy(fan.id, { limit: 5 })).map((m) => m.statusId), ['9223372036854775807', '9007199254740993'], 'mark cursors compare numerically');
    t.equal((await w.acct(author.id)).statusesCount, 5, 'counters unaffected');
  });

  it('returned objects are copies; stored objects are copies of the input', async (t, w) => {
    const a = account(w.id(), { displayName: 'Original' });
    await w.s.accounts.create(a);
    a.displayName = 'mutated input';
    a.fields.push({ name: 'x', value: 'y', verifiedAt: null });
    const got = await w.acct(a.id);
    t.equal(got.displayName, 'Original', 'mutating the input after create does not change the store');
    t.equal(got.fields.length, 1, 'nested arrays of the input are not shared');
    got.displayName = 'mutated output';
    got.fields[0]!.name = 'changed';
    const again = await w.acct(a.id);
    t.equal(again.displayName, 'Original', 'mutating a returned account does not change the store');
    t.equal(again.fields[0]!.name, 'site', 'nor its nested objects');

    const created = await w.s.statuses.create(status(w.id(), a.id, { tags: ['one'], mentionIds: [] }), POST);
    if (created.created) {
      created.status.tags.push('two');
      created.status.text = 'changed';
    }
    const fromQuery = await w.s.statuses.query({ visibilities: ['public'] }, { limit: 5 });
    fromQuery[0]!.mentionIds.push('1');
    const s = await w.st(idsOf(fromQuery)[0]!);
    t.strictSame([s.tags, s.mentionIds, s.text.startsWith('text of')], [['one'], [], true], 'statuses from create and query are copies');

    const fl = filter(w.id(), a.id);
    await w.s.filters.create(fl);
    const gotFilter = must(await w.s.filters.get(fl.id), 'filter');
    gotFilter.keywords.push({ id: '5', keyword: 'x', wholeWord: false });
    t.equal((await w.s.filters.get(fl.id))?.keywords.length, 1, 'filters are copies');
  });

  // ---- statuses: create ------------------------------------------------------------------------

  it('statuses.create: counter effects, mentions and tags', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const s1 = status(w.id(), alice.id, { mentionIds: [bob.id], tags: ['cats', 'dogs'], visibility: 'direct', createdAt: T0 + 10 });
    t.strictSame(await w.s.statuses.create(s1, POST), { created: true, status: s1 }, 'created: true with the status');
    t.strictSame(await w.s.statuses.get(s1.id), s1, 'stored as given');
    let a = await w.acct(alice.id);
    t.strictSame([a.statusesCount, a.lastStatusAt], [1, T0 + 10], 'countForAuthor: statusesCount +1, lastStatusAt = createdAt');

    const reply = status(w.id(), bob.id, { inReplyToId: s1.id, inReplyToAccountId: alice.id, conversationId: s1.conversationId, createdAt: T0 + 20 });
    await w.s.statuses.create(reply, replyTo(s1.id));
    t.equal((await w.st(s1.id)).repliesCount, 1, 'countReplyOf: repliesCount +1');
    const b = await w.acct(bob.id);
    t.strictSame([b.statusesCount, b.lastStatusAt], [1, T0 + 20], 'the replier is counted');

    await w.s.statuses.create(status(w.id(), alice.id, { createdAt: T0 + 30 }), NO_EFFECTS);
    a = await w.acct(alice.id);
    t.strictSame([a.statusesCount, a.lastStatusAt], [1, T0 + 10], 'no effects: counters untouched');

    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ['public'], orMentioning: bob.id, authorId: alice.id }, { limit: 10 })).includes(s1.id), true, 'the mention is queryable');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ['public'], authorId: alice.id }, { limit: 10 })).includes(s1.id), false, 'a direct status without the mention is not');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, tag: 'dogs' }, { limit: 10 })), [s1.id], 'tags are queryable');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, tag: 'dog' }, { limit: 10 })), [], 'tag match is exact');
    await rejectsConflict(t, w.s.statuses.create(status(s1.id, bob.id), POST), 'id', 'a taken status id');
    t.equal((await w.acct(bob.id)).statusesCount, 1, 'the failed create changed no counter');
  });

  it('statuses.create: idempotency keys', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const s1 = status(w.id(), alice.id, { createdAt: T0 + 1000 });
    t.equal((await w.s.statuses.create(s1, POST, { idempotency: { key: 'k1', notBefore: T0 } })).created, true, 'first use creates');

    const s2 = status(w.id(), alice.id, { createdAt: T0 + 1500 });
    t.strictSame(await w.s.statuses.create(s2, POST, { idempotency: { key: 'k1', notBefore: T0 + 500 } }), { created: false, existing: await w.st(s1.id) }, 'same key within the window: the first status');
    t.equal(await w.s.statuses.get(s2.id), null, 'the second status was not written');
    t.equal((await w.acct(alice.id)).statusesCount, 1, 'no second count');

    const sb = status(w.id(), bob.id);
    t.equal((await w.s.statuses.create(sb, POST, { idempotency: { key: 'k1', notBefore: T0 } })).created, true, 'same key, another account: new status');

    const s3 = status(w.id(), alice.id, { createdAt: T0 + 2000 });
    t.equal((await w.s.statuses.create(s3, POST, { idempotency: { key: 'k1', notBefore: T0 + 1001 } })).created, true, 'key used before notBefore: new status');
    const s4 = status(w.id(), alice.id, { createdAt: T0 + 2500 });
    const r4 = await w.s.statuses.create(s4, POST, { idempotency: { key: 'k1', notBefore: T0 + 2000 } });
    t.strictSame(r4.created ? null : r4.existing?.id, s3.id, 'the key now points at the newer status; used exactly at notBefore counts');

    t.strictSame(await w.s.statuses.findIdempotent(alice.id, 'k1', T0 + 2000), { status: await w.st(s3.id) }, 'findIdempotent: the status the key points at');
    t.equal(await w.s.statuses.findIdempotent(alice.id, 'k1', T0 + 2001), null, 'findIdempotent: used before notBefore is unused');
    t.equal(await w.s.statuses.findIdempotent(alice.id, 'never', T0), null, 'findIdempotent: an unknown key');
    t.equal(await w.s.statuses.findIdempotent(bob.id, 'k1', T0 + 2000), null, 'findIdempotent: keys belong to one account');
    await w.s.statuses.delete(s3.id, T0 + 3000, POST);
    t.strictSame(await w.s.statuses.findIdempotent(alice.id, 'k1', T0), { status: null }, 'findIdempotent: the first status was deleted');
    t.strictSame(await w.s.statuses.create(status(w.id(), alice.id), POST, { idempotency: { key: 'k1', notBefore: T0 } }), { created: false, existing: null }, 'the first status was deleted: existing null');
    t.equal((await w.acct(alice.id)).statusesCount, 1, 'alice: s1 counted, s3 counted and uncounted');
  });

  it('statuses.create: concurrent creates with one idempotency key create one status', async (t, w) => {
    const alice = await w.account();
    const attempts = Array.from({ length: 6 }, () => status(w.id(), alice.id));
    const results = await Promise.all(attempts.map((s) => w.s.statuses.create(s, POST, { idempotency: { key: 'same', notBefore: T0 } })));
    const created = results.filter((r) => r.created);
    t.equal(created.length, 1, 'exactly one created');
    const winner = created[0]?.created ? created[0].status.id : 'none';
    t.strictSame(results.filter((r) => !r.created).map((r) => (r.created ? '' : r.existing?.id)), Array(5).fill(winner), 'the others got that status');
    t.equal((await w.acct(alice.id)).statusesCount, 1, 'counted once');
    t.equal((await w.s.statuses.query({ visibilities: ALL, authorId: alice.id }, { limit: 10 })).length, 1, 'one status stored');
  });

  // ---- statuses: reblog, delete, update --------------------------------------------------------

  it('statuses.reblog: one live boost per account; counters', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account();
    const orig = await w.post(alice.id);
    const b1 = boost(w.id(), bob.id, orig, { createdAt: T0 + 7 });
    t.strictSame(await w.s.statuses.reblog(b1), { created: true, status: b1 }, 'first boost: created');
    t.equal((await w.st(orig.id)).reblogsCount, 1, 'reblogsCount +1');
    const bobAfter = await w.acct(bob.id);
    t.strictSame([bobAfter.statusesCount, bobAfter.lastStatusAt], [1, null], "booster's statusesCount +1 (lastStatusAt left alone)");

    const b2 = boost(w.id(), bob.id, orig);
    t.strictSame(await w.s.statuses.reblog(b2), { created: false, status: b1 }, 'second boost: the existing one');
    t.equal(await w.s.statuses.get(b2.id), null, 'the second boost was not written');
    t.equal((await w.st(orig.id)).reblogsCount, 1, 'no second count');
    t.strictSame(await w.s.statuses.findReblog(bob.id, orig.id), b1, 'findReblog');
    t.equal(await w.s.statuses.findReblog(carol.id, orig.id), null, 'findReblog: none');

    const [r1, r2] = await Promise.all([w.s.statuses.reblog(boost(w.id(), carol.id, orig)), w.s.statuses.reblog(boost(w.id(), carol.id, orig))]);
    t.equal(count([r1.created, r2.created], true), 1, 'two concurrent boosts: one created');
    t.equal(r1.status.id, r2.status.id, 'both answer with the same boost');
    t.equal((await w.st(orig.id)).reblogsCount, 2, 'reblogsCount counts it once');
    t.equal((await w.acct(carol.id)).statusesCount, 1, "the booster's statusesCount counts it once");

    const sneaky = boost(w.id(), bob.id, orig);
    await rejectsConflict(t, w.s.statuses.create(sneaky, NO_EFFECTS), 'reblog', 'create cannot add a second live boost either');
    t.equal(await w.s.statuses.get(sneaky.id), null, 'and writes nothing');

    await w.s.statuses.delete(b1.id, T0 + 100, POST);
    t.equal(await w.s.statuses.findReblog(bob.id, orig.id), null, 'a deleted boost is not found');
    const b3 = boost(w.id(), bob.id, orig);
    t.equal((await w.s.statuses.reblog(b3)).created, true, 'boosting again after unboost creates');
    t.strictSame([(await w.st(orig.id)).reblogsCount, (await w.acct(bob.id)).statusesCount], [2, 1], 'counters after unboost and reboost');
  });

  it('statuses.delete: soft delete, boosts, counters, pins', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account();
    const dave = await w.account();
    const p = await w.post(alice.id);
    const r = await w.post(bob.id, { inReplyToId: p.id, inReplyToAccountId: alice.id, conversationId: p.conversationId }, replyTo(p.id));
    const cb = boost(w.id(), carol.id, p);
    const db = boost(w.id(), dave.id, p);
    await w.s.statuses.reblog(cb);
    await w.s.statuses.reblog(db);
    await w.s.interactions.pin(mark(w.id(), alice.id, p.id), 5);
    await w.s.interactions.favourite(mark(w.id(), bob.id, p.id));
    t.strictSame([(await w.st(p.id)).repliesCount, (await w.st(p.id)).reblogsCount], [1, 2], 'before: 1 reply, 2 boosts');

    t.strictSame(await w.s.statuses.delete(r.id, T0 + 50, replyTo(p.id)), { status: { ...r, deletedAt: T0 + 50 }, boosts: [] }, 'deleting a reply returns it, deleted');
    t.equal((await w.st(p.id)).repliesCount, 0, 'countReplyOf reversed');
    t.equal((await w.acct(bob.id)).statusesCount, 0, 'countForAuthor reversed');

    const gone = must(await w.s.statuses.delete(p.id, T0 + 60, POST), 'delete result');
    t.strictSame(gone.status, { ...p, deletedAt: T0 + 60, reblogsCount: 2, favouritesCount: 1 }, 'the deleted status, its own counters as they were');
    t.strictSame(sortedIds(idsOf(gone.boosts)), sortedIds([cb.id, db.id]), 'its boosts are returned');
    t.strictSame(gone.boosts.map((b) => b.deletedAt), [T0 + 60, T0 + 60], 'and deleted at the same time');
    t.equal(await w.s.statuses.get(p.id), null, 'get: null after delete');
    t.equal(await w.s.statuses.get(cb.id), null, 'boosts are gone too');
    t.equal(await w.s.statuses.findReblog(carol.id, p.id), null, 'findReblog: none');
    t.strictSame(
      [(await w.acct(alice.id)).statusesCount, (await w.acct(carol.id)).statusesCount, (await w.acct(dave.id)).statusesCount],
      [0, 0, 0],
      'author and boosters lose one status each',
    );
    t.equal((await w.s.interactions.viewerState(alice.id, [p.id], [])).pinned.size, 0, 'the pin is removed (not just hidden)');
    t.strictSame(await w.s.interactions.pinsBy(alice.id), [], 'pinsBy: empty');
    t.strictSame(await w.s.interactions.favouritesBy(bob.id, { limit: 10 }), [], 'favouritesBy skips the deleted status');
    t.strictSame(await w.s.statuses.query({ visibilities: ALL }, { limit: 10 }), [], 'query skips deleted statuses and boosts');
    t.strictSame(await w.s.statuses.getMany([p.id, cb.id]), [], 'getMany skips deleted statuses');
    t.equal(await w.s.statuses.delete(p.id, T0 + 70, POST), null, 'second delete: null');
    t.equal((await w.acct(alice.id)).statusesCount, 0, 'a second delete reverses nothing');
    t.equal(await w.s.statuses.delete(w.id(), T0 + 70, POST), null, 'delete of a missing status: null');

    const q = await w.post(alice.id);
    const bq = boost(w.id(), bob.id, q);
    await w.s.statuses.reblog(bq);
    t.strictSame([(await w.st(q.id)).reblogsCount, (await w.acct(bob.id)).statusesCount], [1, 1], 'boosted');
    const unboost = must(await w.s.statuses.delete(bq.id, T0 + 80, POST), 'unboost');
    t.strictSame([unboost.status.id, unboost.boosts], [bq.id, []], 'deleting a boost');
    t.strictSame([(await w.st(q.id)).reblogsCount, (await w.acct(bob.id)).statusesCount], [0, 0], "the original's reblogsCount -1; booster -1 via effects");
  });

  it('statuses.update and edits', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account();
    const [m1, m2] = [w.id(), w.id()];
    const s = await w.post(alice.id, { visibility: 'direct', mentionIds: [bob.id], tags: ['before'], mediaIds: [m1], createdAt: T0 + 1000 });
    t.strictSame(await w.s.statuses.edits(s.id), [], 'no edits yet');

    const e0 = edit(w.id(), s, { createdAt: T0 + 1000 });
    const patch = {
      text: 'new text',
      content: '<p>new text</p>',
      spoilerText: 'cw',
      sensitive: true,
      language: 'fr',
      mentionIds: [carol.id],
      tags: ['after'],
      mediaIds: [m2, m1],
      pollId: null,
      editedAt: T0 + 5000,
    };
    const e1 = edit(w.id(), { ...s, ...patch }, { createdAt: T0 + 5000 });
    const expected = { ...s, ...patch };
    t.strictSame(await w.s.statuses.update(s.id, patch, [e0, e1]), expected, 'update returns the edited status');
    t.strictSame(await w.s.statuses.get(s.id), expected, 'and stores it');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: [], orMentioning: carol.id }, { limit: 5 })), [s.id], 'mentions replaced: new one queryable');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: [], orMentioning: bob.id }, { limit: 5 })), [], 'old mention gone');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, tag: 'after' }, { limit: 5 })), [s.id], 'tags replaced: new one queryable');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, tag: 'before' }, { limit: 5 })), [], 'old tag gone');
    t.strictSame(await w.s.statuses.edits(s.id), [e0, e1], 'revisions stored, oldest first');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, onlyMedia: true, authorId: alice.id }, { limit: 5 })), [s.id], 'its media ids make it a media status');

    const e2 = edit(w.id(), expected, { text: 'third', createdAt: T0 + 6000 });
    const pollId = w.id();
    const withPoll = await w.s.statuses.update(s.id, { ...patch, text: 'third', pollId, editedAt: T0 + 6000 }, [e2]);
    t.equal(withPoll?.pollId, pollId, 'update can set a poll id');
    t.strictSame(idsOf(await w.s.statuses.edits(s.id)), [e0.id, e1.id, e2.id], 'revisions appended');

    await rejectsConflict(t, w.s.statuses.update(s.id, { ...patch, text: 'taken revision id' }, [e2]), 'id', 'a taken revision id');
    const after = await w.st(s.id);
    t.strictSame([after.text, after.mediaIds], ['third', [m2, m1]], 'nothing written by the failed update');
    t.equal((await w.s.statuses.edits(s.id)).length, 3, 'no revision appended by the failed update');

    t.equal(await w.s.statuses.update(w.id(), patch, []), null, 'update of a missing status: null');
    await w.s.statuses.delete(s.id, T0 + 7000, POST);
    t.equal(await w.s.statuses.update(s.id, patch, []), null, 'update of a deleted status: null');
  });

  it('lookups by something that is not an id miss instead of failing', async (t, w) => {
    const bad = 'not-an-id';
    t.strictSame(
      [
        await w.s.accounts.get(bad),
        await w.s.accounts.getUser(bad),
        await w.s.accounts.update(bad, { note: 'x' }),
        await w.s.statuses.get(bad),
        await w.s.statuses.delete(bad, T0, POST),
        await w.s.lists.get(bad),
        await w.s.lists.update(bad, { title: 'x' }),
        await w.s.filters.get(bad),
        await w.s.oauth.getApplication(bad),
        await w.s.notifications.get(w.id(), bad),
      ],
      Array(10).fill(null),
      'gets and updates: null',
    );
    t.strictSame(
      [
        await w.s.lists.delete(bad),
        await w.s.filters.delete(bad),
        await w.s.oauth.revokeToken(bad, T0),
        await w.s.notifications.dismiss(w.id(), bad),
      ],
      Array(4).fill(false),
      'deletes: false',
    );
    t.strictSame(
      [await w.s.statuses.getMany([bad]), await w.s.accounts.getMany([bad]), await w.s.statuses.edits(bad)],
      [[], [], []],
      'many-lookups: empty',
    );
  });

  // ---- statuses: query -------------------------------------------------------------------------

  it('statuses.query: every field alone and combined; pagination', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account({ domain: 'remote.example', username: 'carol' });
    const dave = await w.account();
    await w.s.relationships.follow(follow(w.id(), alice.id, bob.id));
    const l = list(w.id(), dave.id);
    await w.s.lists.create(l);
    await w.s.lists.addMembers(l.id, [carol.id], [w.id()]);
    const m = { id: w.id() };

    const a1 = await w.post(alice.id, { tags: ['cats'] });
    const a2 = await w.post(alice.id, { visibility: 'unlisted' });
    const a3 = await w.post(alice.id, { visibility: 'private' });
    const a4 = await w.post(alice.id, { visibility: 'direct', mentionIds: [bob.id] });
    const b1 = await w.post(bob.id, { mediaIds: [m.id] });
    const b2 = await w.post(bob.id, { inReplyToId: a1.id, inReplyToAccountId: alice.id, conversationId: a1.conversationId }, replyTo(a1.id));
    const b3 = await w.post(bob.id, { inReplyToId: b1.id, inReplyToAccountId: bob.id, conversationId: b1.conversationId }, replyTo(b1.id));
    const c1 = await w.post(carol.id, { local: false, tags: ['cats'], uri: 'https://remote.example/s/1' });
    const c2 = boost(w.id(), carol.id, a1, { local: false });
    await w.s.statuses.reblog(c2);
    const d1 = await w.post(dave.id);
    const x = await w.post(alice.id);
    await w.s.statuses.delete(x.id, T0 + 9000, POST);

    const q = async (query: StatusQuery, page: Page = { limit: 20 }): Promise<Id[]> => idsOf(await w.s.statuses.query(query, page));
    const pub: Visibility[] = ['public'];
    t.strictSame(await q({ visibilities: pub }), idsOf([d1, c2, c1, b3, b2, b1, a1]), 'visibilities only: public, newest first, deleted excluded');
    t.strictSame(await q({ visibilities: ['public', 'unlisted'], authorId: alice.id }), idsOf([a2, a1]), 'authorId');
    t.strictSame(await q({ visibilities: ['public', 'unlisted', 'private'], orMentioning: bob.id, authorId: alice.id }), idsOf([a4, a3, a2, a1]), 'orMentioning admits a direct status');
    t.strictSame(await q({ visibilities: pub, orMentioning: bob.id }), idsOf([d1, c2, c1, b3, b2, b1, a4, a1]), 'orMentioning alone');
    t.strictSame(await q({ visibilities: [], orMentioning: bob.id }), idsOf([a4]), 'no visibilities: only the mentioning ones');
    t.strictSame(await q({ visibilities: [] }), [], 'no visibilities, no mention: nothing');
    t.strictSame(await q({ visibilities: ['public', 'unlisted', 'private'], homeOf: alice.id }), idsOf([b3, b2, b1, a3, a2, a1]), 'homeOf: the account and whom it follows');
    t.strictSame(await q({ visibilities: pub, homeOf: bob.id }), idsOf([b3, b2, b1]), 'homeOf: following nobody gives only own statuses');
    t.strictSame(await q({ visibilities: pub, listId: l.id }), idsOf([c2, c1]), 'listId: members only');
    t.strictSame(await q({ visibilities: pub, tag: 'cats' }), idsOf([c1, a1]), 'tag');
    t.strictSame(await q({ visibilities: pub, tag: 'Cats' }), [], 'tag is exact');
    t.strictSame(await q({ visibilities: pub, local: true }), idsOf([d1, b3, b2, b1, a1]), 'local true');
    t.strictSame(await q({ visibilities: pub, local: false }), idsOf([c2, c1]), 'local false');
    t.strictSame(await q({ visibilities: pub, onlyMedia: true }), idsOf([b1]), 'onlyMedia');
    t.strictSame(await q({ visibilities: pub, onlyMedia: false }), idsOf([d1, c2, c1, b3, b2, b1, a1]), 'onlyMedia false filters nothing');
    t.strictSame(await q({ visibilities: pub, excludeReblogs: true }), idsOf([d1, c1, b3, b2, b1, a1]), 'excludeReblogs');
    t.strictSame(await q({ visibilities: pub, excludeRepliesToOthers: true }), idsOf([d1, c2, c1, b3, b1, a1]), 'excludeRepliesToOthers keeps self-replies');
    t.strictSame(
      await q({ visibilities: pub, homeOf: alice.id, local: true, excludeReblogs: true, excludeRepliesToOthers: true }),
      idsOf([b3, b1, a1]),
      'combined: home + local + no boosts + no replies to others',
    );
    t.strictSame(await q({ visibilities: pub, tag: 'cats', local: false, excludeReblogs: true }), idsOf([c1]), 'combined: tag + remote');
    t.strictSame(await q({ visibilities: pub, authorId: bob.id, onlyMedia: true, homeOf: alice.id }), idsOf([b1]), 'combined: author + media + home');
    t.strictSame(await q({ visibilities: pub, listId: l.id, excludeReblogs: true }), idsOf([c1]), 'combined: list + no boosts');

    const all = { visibilities: pub };
    t.strictSame(await q(all, { limit: 3 }), idsOf([d1, c2, c1]), 'limit');
    t.strictSame(await q(all, { limit: 3, maxId: c1.id }), idsOf([b3, b2, b1]), 'maxId: strictly older');
    t.strictSame(await q(all, { limit: 2, sinceId: b2.id }), idsOf([d1, c2]), 'sinceId: the newest, strictly newer');
    t.strictSame(await q(all, { limit: 2, minId: b2.id }), idsOf([c1, b3]), 'minId: immediately newer, newest first');
    t.strictSame(await q(all, { limit: 10, minId: b2.id, maxId: d1.id }), idsOf([c2, c1, b3]), 'minId + maxId');
    t.strictSame(await q(all, { limit: 10, sinceId: a1.id, maxId: c1.id }), idsOf([b3, b2, b1]), 'sinceId + maxId');
    t.strictSame(await q(all, { limit: 0 }), [], 'limit 0: nothing');

    t.strictSame(idsOf(await w.s.statuses.replies([a1.id, b1.id])), idsOf([b2, b3]), 'replies: oldest first');
    await w.s.statuses.delete(b3.id, T0 + 9500, replyTo(b1.id));
    t.strictSame(idsOf(await w.s.statuses.replies([a1.id, b1.id, x.id])), idsOf([b2]), 'replies: live only');
    t.strictSame(await w.s.statuses.replies([]), [], 'replies of nothing');
    t.strictSame(idsOf(await w.s.statuses.getMany([a1.id, w.id(), x.id, b1.id, a1.id])), [b1.id, a1.id], 'getMany: missing, deleted and repeated ids skipped; newest first (the port\'s default order)');
    t.strictSame(idsOf(await w.s.statuses.getMany([b1.id])), [b1.id], 'getMany of one id');
    t.strictSame(await w.s.statuses.getMany([x.id]), [], 'getMany of one deleted id');
    t.equal(await w.s.statuses.countLocal(), 7, 'countLocal: live local statuses (a1-a4, b1, b2, d1)');
  });

  it('statuses.query homeOf: the authors\' statuses merged newest first, on every kind of page', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account({ domain: 'remote.example', username: 'carol' });
    const dave = await w.account();
    const eve = await w.account();
    await w.s.relationships.follow(follow(w.id(), alice.id, bob.id));
    await w.s.relationships.follow(follow(w.id(), alice.id, carol.id));
    await w.s.relationships.requestFollow(follow(w.id(), alice.id, dave.id));
    await w.s.relationships.follow(follow(w.id(), eve.id, alice.id));

    const b1 = await w.post(bob.id);
    const c1 = await w.post(carol.id, { local: false, uri: 'https://remote.example/s/1' });
    const a1 = await w.post(alice.id);
    await w.post(dave.id);
    const e1 = await w.post(eve.id);
    const b2 = await w.post(bob.id, { visibility: 'private' });
    await w.post(bob.id, { visibility: 'direct', mentionIds: [alice.id] });
    const c2 = boost(w.id(), carol.id, b1, { local: false });
    await w.s.statuses.reblog(c2);
    const gone = await w.post(bob.id);
    await w.s.statuses.delete(gone.id, T0 + 9000, POST);
    const a2 = await w.post(alice.id, { visibility: 'unlisted' });
    const a3 = await w.post(alice.id);
    const e2 = await w.post(eve.id);
    const b3 = await w.post(bob.id);
    const c3 = await w.post(carol.id, { local: false, uri: 'https://remote.example/s/3' });

    const home = { visibilities: ['public', 'unlisted', 'private'] as Visibility[], homeOf: alice.id };
    const q = async (page: Page): Promise<Id[]> => idsOf(await w.s.statuses.query(home, page));
    t.strictSame(await q({ limit: 20 }), idsOf([c3, b3, a3, a2, c2, b2, a1, c1, b1]), 'own and followed, newest first: not direct, deleted, requested or unfollowed');
    t.strictSame(await q({ limit: 3 }), idsOf([c3, b3, a3]), 'limit');
    t.strictSame(await q({ limit: 3, maxId: b3.id }), idsOf([a3, a2, c2]), 'maxId: strictly older (two of one author before the others)');
    t.strictSame(await q({ limit: 5, maxId: a2.id }), idsOf([c2, b2, a1, c1, b1]), 'maxId: more than one of each author');
    t.strictSame(await q({ limit: 2, sinceId: b2.id }), idsOf([c3, b3]), 'sinceId: the newest, strictly newer');
    t.strictSame(await q({ limit: 2, minId: b2.id }), idsOf([a2, c2]), 'minId: immediately newer, newest first');
    t.strictSame(await q({ limit: 10, minId: a1.id, maxId: b3.id }), idsOf([a3, a2, c2, b2]), 'minId + maxId');
    t.strictSame(await q({ limit: 10, sinceId: c1.id, maxId: c2.id }), idsOf([b2, a1]), 'sinceId + maxId');
    t.strictSame(await q({ limit: 0 }), [], 'limit 0: nothing');
    t.strictSame(
      idsOf(await w.s.statuses.query({ ...home, homeOf: eve.id }, { limit: 20 })),
      idsOf([e2, a3, a2, e1, a1]),
      'another reader: their own and those of whom they follow',
    );
  });

  it('statuses.reblogs: visibilities and pages', async (t, w) => {
    const alice = await w.account();
    const orig = await w.post(alice.id);
    const boosts: Status[] = [];
    for (let i = 0; i < 5; i += 1) {
      const who = await w.account();
      const b = boost(w.id(), who.id, orig, { visibility: i === 2 ? 'private' : 'public' });
      await w.s.statuses.reblog(b);
      boosts.push(b);
    }
    const [b0, b1, b2, b3, b4] = boosts as [Status, Status, Status, Status, Status];
    t.strictSame(idsOf(await w.s.statuses.reblogs(orig.id, ['public'], { limit: 10 })), idsOf([b4, b3, b1, b0]), 'public boosts, newest first');
    t.strictSame(idsOf(await w.s.statuses.reblogs(orig.id, ['public', 'private'], { limit: 10 })), idsOf([b4, b3, b2, b1, b0]), 'with private');
    t.strictSame(idsOf(await w.s.statuses.reblogs(orig.id, ['public'], { limit: 2, maxId: b3.id })), idsOf([b1, b0]), 'maxId');
    t.strictSame(idsOf(await w.s.statuses.reblogs(orig.id, ['public'], { limit: 1, minId: b0.id })), idsOf([b1]), 'minId');
    await w.s.statuses.delete(b4.id, T0 + 1, POST);
    t.strictSame(idsOf(await w.s.statuses.reblogs(orig.id, ['public'], { limit: 1 })), idsOf([b3]), 'live boosts only');
  });

  // ---- interactions ----------------------------------------------------------------------------

  it('favourites: flag and counter, concurrency, pages', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const carol = await w.account();
    const s = await w.post(alice.id);
    const fb = mark(w.id(), bob.id, s.id);
    t.equal(await w.s.interactions.favourite(fb), true, 'favourite: true when added');
    t.equal(await w.s.interactions.favourite(mark(w.id(), bob.id, s.id)), false, 'again: false');
    t.equal((await w.st(s.id)).favouritesCount, 1, 'favouritesCount 1');

    const both = await Promise.all([w.s.interactions.favourite(mark(w.id(), carol.id, s.id)), w.s.interactions.favourite(mark(w.id(), carol.id, s.id))]);
    t.equal(count(both, true), 1, 'two concurrent favourites: exactly one true');
    t.equal((await w.st(s.id)).favouritesCount, 2, 'counted once');
    const of = await w.s.interactions.favouritesOf(s.id, { limit: 10 });
    t.strictSame(of.map((m) => m.accountId), [carol.id, bob.id], 'favouritesOf: newest first');
    t.strictSame(of[1], fb, 'the mark as given');
    t.strictSame((await w.s.interactions.favouritesOf(s.id, { limit: 1, maxId: of[0]!.id })).map((m) => m.accountId), [bob.id], 'favouritesOf maxId');

    t.equal(await w.s.interactions.unfavourite(bob.id, s.id), true, 'unfavourite: true');
    t.equal(await w.s.interactions.unfavourite(bob.id, s.id), false, 'again: false');
    t.equal((await w.st(s.id)).favouritesCount, 1, 'favouritesCount -1');
    const un = await Promise.all([w.s.interactions.unfavourite(carol.id, s.id), w.s.interactions.unfavourite(carol.id, s.id)]);
    t.equal(count(un, true), 1, 'two concurrent unfavourites: exactly one true');
    t.equal((await w.st(s.id)).favouritesCount, 0, 'favouritesCount 0');

    // favouritesBy pages by the favourite's id, not the status id.
    const ts: Status[] = [];
    for (let i = 0; i < 5; i += 1) ts.push(await w.post(alice.id));
    const [t1, t2, t3, t4, t5] = ts as [Status, Status, Status, Status, Status];
    const marks: StatusMark[] = [];
    for (const target of [t5, t3, t1, t4, t2]) {
      const m = mark(w.id(), bob.id, target.id);
      marks.push(m);
      await w.s.interactions.favourite(m);
    }
    const [k1, k2, , k4] = marks as [StatusMark, StatusMark, StatusMark, StatusMark, StatusMark];
    const by = async (page: Page) => (await w.s.interactions.favouritesBy(bob.id, page)).map((m) => m.statusId);
    t.strictSame(await by({ limit: 10 }), idsOf([t2, t4, t1, t3, t5]), 'favouritesBy: newest favourite first');
    t.strictSame(await by({ limit: 2 }), idsOf([t2, t4]), 'limit');
    t.strictSame(await by({ limit: 2, maxId: k4.id }), idsOf([t1, t3]), 'maxId');
    t.strictSame(await by({ limit: 2, sinceId: k2.id }), idsOf([t2, t4]), 'sinceId');
    t.strictSame(await by({ limit: 2, minId: k1.id }), idsOf([t1, t3]), 'minId');
    await w.s.statuses.delete(t1.id, T0 + 1, POST);
    t.strictSame(await by({ limit: 10 }), idsOf([t2, t4, t3, t5]), 'favouritesBy: live statuses only');
    t.equal((await w.s.interactions.favouritesOf(t1.id, { limit: 10 })).length, 1, 'favouritesOf still lists the favourite of a deleted status');
    await rejectsConflict(t, w.s.interactions.favourite(mark(k1.id, carol.id, t2.id)), 'id', 'a taken favourite id');
    t.equal((await w.st(t2.id)).favouritesCount, 1, 'the failed favourite did not count');
  });

  it('bookmarks: flag, concurrency, pages', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const ss: Status[] = [];
    for (let i = 0; i < 4; i += 1) ss.push(await w.post(alice.id));
    const [s1, s2, s3, s4] = ss as [Status, Status, Status, Status];
    t.equal(await w.s.interactions.bookmark(mark(w.id(), bob.id, s1.id)), true, 'bookmark: true');
    t.equal(await w.s.interactions.bookmark(mark(w.id(), bob.id, s1.id)), false, 'again: false');
    const both = await Promise.all([w.s.interactions.bookmark(mark(w.id(), bob.id, s2.id)), w.s.interactions.bookmark(mark(w.id(), bob.id, s2.id))]);
    t.equal(count(both, true), 1, 'concurrent bookmarks: one true');
    const m3 = mark(w.id(), bob.id, s3.id);
    await w.s.interactions.bookmark(m3);
    await w.s.interactions.bookmark(mark(w.id(), bob.id, s4.id));
    const by = async (page: Page) => (await w.s.interactions.bookmarksBy(bob.id, page)).map((m) => m.statusId);
    t.strictSame(await by({ limit: 10 }), idsOf([s4, s3, s2, s1]), 'bookmarksBy: newest first');
    t.strictSame(await by({ limit: 2, maxId: m3.id }), idsOf([s2, s1]), 'bookmarksBy: maxId');
    t.strictSame(await by({ limit: 1, minId: m3.id }), idsOf([s4]), 'bookmarksBy: minId');
    t.strictSame((await w.s.interactions.bookmarksBy(bob.id, { limit: 1 }))[0]?.accountId, bob.id, 'marks carry the account');
    await w.s.statuses.delete(s4.id, T0 + 1, POST);
    t.strictSame(await by({ limit: 10 }), idsOf([s3, s2, s1]), 'bookmarksBy: live only');
    t.equal(await w.s.interactions.unbookmark(bob.id, s1.id), true, 'unbookmark: true');
    t.equal(await w.s.interactions.unbookmark(bob.id, s1.id), false, 'again: false');
    const un = await Promise.all([w.s.interactions.unbookmark(bob.id, s2.id), w.s.interactions.unbookmark(bob.id, s2.id)]);
    t.equal(count(un, true), 1, 'concurrent unbookmarks: one true');
    t.strictSame(await by({ limit: 10 }), idsOf([s3]), 'left: one');
  });

  it('pins: exists, limit of live pins, concurrency, order', async (t, w) => {
    const alice = await w.account();
    const ss: Status[] = [];
    for (let i = 0; i < 7; i += 1) ss.push(await w.post(alice.id));
    const pins: StatusMark[] = [];
    for (const s of ss.slice(0, 5)) {
      const m = mark(w.id(), alice.id, s.id);
      pins.push(m);
      t.equal(await w.s.interactions.pin(m, 5), 'added', `pin ${pins.length}: added`);
    }
    t.equal(await w.s.interactions.pin(mark(w.id(), alice.id, ss[0]!.id), 5), 'exists', 'pinning again: exists');
    t.equal(await w.s.interactions.pin(mark(w.id(), alice.id, ss[5]!.id), 5), 'limit', 'a sixth: limit');
    t.strictSame(await w.s.interactions.pinsBy(alice.id), [...pins].reverse(), 'pinsBy: most recently pinned first');
    await w.s.statuses.delete(ss[4]!.id, T0 + 1, POST);
    t.equal(await w.s.interactions.pin(mark(w.id(), alice.id, ss[5]!.id), 5), 'added', 'a deleted pinned status frees its place');
    t.equal(await w.s.interactions.unpin(alice.id, ss[0]!.id), true, 'unpin: true');
    t.equal(await w.s.interactions.unpin(alice.id, ss[0]!.id), false, 'again: false');
    t.equal((await w.s.interactions.pinsBy(alice.id)).length, 4, 'four pinned');

    const bob = await w.account();
    const bs: Status[] = [];
    for (let i = 0; i < 10; i += 1) bs.push(await w.post(bob.id));
    const results = await Promise.all(bs.map((s) => w.s.interactions.pin(mark(w.id(), bob.id, s.id), 5)));
    t.strictSame([count(results, 'added'), count(results, 'limit')], [5, 5], 'ten concurrent pins with max 5: exactly 5 added');
    t.equal((await w.s.interactions.pinsBy(bob.id)).length, 5, 'five stored');
  });

  it('conversation mutes', async (t, w) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const conv = w.id();
    t.equal(await w.s.interactions.muteConversation(alice.id, conv), true, 'mute: true');
    t.equal(await w.s.interactions.muteConversation(alice.id, conv), false, 'again: false');
    await w.s.interactions.muteConversation(carol.id, conv);
    await w.s.interactions.muteConversation(bob.id, w.id());
    t.strictSame(await w.s.interactions.conversationMutedBy(conv, [carol.id, bob.id, alice.id]), [carol.id, alice.id], 'conversationMutedBy: those who muted, in the given order');
    t.equal(await w.s.interactions.unmuteConversation(alice.id, conv), true, 'unmute: true');
    t.equal(await w.s.interactions.unmuteConversation(alice.id, conv), false, 'again: false');
    t.strictSame(await w.s.interactions.conversationMutedBy(conv, [alice.id, bob.id, carol.id]), [carol.id], 'after unmute');
  });

  it('viewerState: all five flags', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const s1 = await w.post(alice.id);
    const s2 = await w.post(alice.id);
    const s3 = await w.post(alice.id);
    const own = await w.post(bob.id);
    await w.s.interactions.favourite(mark(w.id(), bob.id, s1.id));
    const b = boost(w.id(), bob.id, s1);
    await w.s.statuses.reblog(b);
    await w.s.statuses.reblog(boost(w.id(), alice.id, s2));
    await w.s.interactions.bookmark(mark(w.id(), bob.id, s2.id));
    await w.s.interactions.pin(mark(w.id(), bob.id, own.id), 5);
    await w.s.interactions.muteConversation(bob.id, s1.conversationId);
    const ids = [s1.id, s2.id, s3.id, own.id, w.id()];
    const convs = [s1.conversationId, s2.conversationId, s3.conversationId];
    const v = await w.s.interactions.viewerState(bob.id, ids, convs);
    t.strictSame(
      [[...v.favourited], [...v.reblogged], [...v.bookmarked], [...v.pinned], [...v.mutedConversations]],
      [[s1.id], [s1.id], [s2.id], [own.id], [s1.conversationId]],
      'favourited, reblogged, bookmarked, pinned, mutedConversations',
    );
    await w.s.statuses.delete(b.id, T0 + 1, POST);
    t.equal((await w.s.interactions.viewerState(bob.id, ids, convs)).reblogged.size, 0, 'reblogged: live boosts only');
    const none = await w.s.interactions.viewerState(alice.id, [s1.id, own.id], []);
    t.strictSame([none.favourited.size, none.reblogged.size, none.bookmarked.size, none.pinned.size, none.mutedConversations.size], [0, 0, 0, 0, 0], 'another viewer: nothing');
  });

  // ---- relationships ---------------------------------------------------------------------------

  it('follow and unfollow: counters, options, concurrency, pending request', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const f = follow(w.id(), alice.id, bob.id);
    t.equal(await w.s.relationships.follow(f), 'created', 'follow: created');
    t.strictSame([(await w.acct(alice.id)).followingCount, (await w.acct(bob.id)).followersCount], [1, 1], 'counters +1');
    t.strictSame(await w.s.relationships.getFollow(alice.id, bob.id), f, 'getFollow');
    t.equal(await w.s.relationships.getFollow(bob.id, alice.id), null, 'getFollow: the other way is null');
    t.equal(await w.s.relationships.follow(follow(w.id(), alice.id, bob.id, { showReblogs: false, notify: true, languages: ['en', 'de'] })), 'updated', 'again: updated');
    t.strictSame(await w.s.relationships.getFollow(alice.id, bob.id), { ...f, showReblogs: false, notify: true, languages: ['en', 'de'] }, 'options updated, id kept');
    t.strictSame([(await w.acct(alice.id)).followingCount, (await w.acct(bob.id)).followersCount], [1, 1], 'counters unchanged by an update');
    t.equal(await w.s.relationships.unfollow(alice.id, bob.id), true, 'unfollow: true');
    t.equal(await w.s.relationships.unfollow(alice.id, bob.id), false, 'again: false');
    t.strictSame([(await w.acct(alice.id)).followingCount, (await w.acct(bob.id)).followersCount], [0, 0], 'counters -1');
    t.equal(await w.s.relationships.getFollow(alice.id, bob.id), null, 'getFollow: gone');

    const both = await Promise.all([w.s.relationships.follow(follow(w.id(), carol.id, bob.id)), w.s.relationships.follow(follow(w.id(), carol.id, bob.id))]);
    t.strictSame([count(both, 'created'), count(both, 'updated')], [1, 1], 'two concurrent follows: one created, one updated');
    t.strictSame([(await w.acct(carol.id)).followingCount, (await w.acct(bob.id)).followersCount], [1, 1], 'counted once');
    const un = await Promise.all([w.s.relationships.unfollow(carol.id, bob.id), w.s.relationships.unfollow(carol.id, bob.id)]);
    t.equal(count(un, true), 1, 'two concurrent unfollows: one true');
    t.strictSame([(await w.acct(carol.id)).followingCount, (await w.acct(bob.id)).followersCount], [0, 0], 'uncounted once');

    await w.s.relationships.requestFollow(follow(w.id(), dave.id, bob.id));
    await w.s.relationships.requestFollow(follow(w.id(), bob.id, dave.id));
    t.equal(await w.s.relationships.follow(follow(w.id(), dave.id, bob.id)), 'created', 'following after a request');
    t.strictSame(await w.s.relationships.followRequestsTo(bob.id, { limit: 10 }), [], 'the pending request is removed');
    t.strictSame((await w.s.relationships.followRequestsTo(dave.id, { limit: 10 })).map((r) => r.accountId), [bob.id], 'a request the other way is untouched');
    t.strictSame((await w.s.relationships.followRequestsBy(bob.id, { limit: 10 })).map((r) => r.targetAccountId), [dave.id], 'followRequestsBy: the requests an account made');
    t.strictSame(await w.s.relationships.followRequestsBy(dave.id, { limit: 10 }), [], 'none by the target');
  });

  it('follow requests', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const r1 = follow(w.id(), alice.id, bob.id);
    t.equal(await w.s.relationships.requestFollow(r1), 'created', 'requestFollow: created');
    t.equal(await w.s.relationships.requestFollow(follow(w.id(), alice.id, bob.id, { notify: true, showReblogs: false })), 'exists', 'again: exists');
    t.strictSame(await w.s.relationships.followRequestsTo(bob.id, { limit: 10 }), [{ ...r1, notify: true, showReblogs: false }], "the request's options are updated, its id kept");
    const both = await Promise.all([w.s.relationships.requestFollow(follow(w.id(), dave.id, alice.id)), w.s.relationships.requestFollow(follow(w.id(), dave.id, alice.id))]);
    t.strictSame([count(both, 'created'), count(both, 'exists')], [1, 1], 'concurrent requests: one created');
    const r2 = follow(w.id(), carol.id, bob.id);
    await w.s.relationships.requestFollow(r2);
    t.strictSame(idsOf(await w.s.relationships.followRequestsTo(bob.id, { limit: 10 })), [r2.id, r1.id], 'followRequestsTo: newest first');
    t.strictSame(idsOf(await w.s.relationships.followRequestsTo(bob.id, { limit: 1 })), [r2.id], 'limit');
    t.strictSame(idsOf(await w.s.relationships.followRequestsTo(bob.id, { limit: 10, maxId: r2.id })), [r1.id], 'maxId');
    t.strictSame(idsOf(await w.s.relationships.followRequestsTo(bob.id, { limit: 10, sinceId: r1.id })), [r2.id], 'sinceId');
    t.equal(await w.s.relationships.cancelFollowRequest(alice.id, bob.id), true, 'cancel: true');
    t.equal(await w.s.relationships.cancelFollowRequest(alice.id, bob.id), false, 'again: false');
    await w.s.relationships.follow(follow(w.id(), dave.id, bob.id));
    t.equal(await w.s.relationships.requestFollow(follow(w.id(), dave.id, bob.id)), 'exists', 'a follow exists: exists');
    t.strictSame(idsOf(await w.s.relationships.followRequestsTo(bob.id, { limit: 10 })), [r2.id], 'and no request is written');
  });

  it('followersOf, followingOf, localFollowers: pages', async (t, w) => {
    const bob = await w.account();
    const alice = await w.account();
    const carol = await w.account({ domain: 'remote.example', username: 'carol' });
    const dave = await w.account();
    const fa = follow(w.id(), alice.id, bob.id);
    const fc = follow(w.id(), carol.id, bob.id);
    const fd = follow(w.id(), dave.id, bob.id);
    for (const f of [fa, fc, fd]) await w.s.relationships.follow(f);
    const followers = async (page: Page) => (await w.s.relationships.followersOf(bob.id, page)).map((f) => f.accountId);
    t.strictSame(await followers({ limit: 10 }), [dave.id, carol.id, alice.id], 'followersOf: newest first');
    t.strictSame(await followers({ limit: 2 }), [dave.id, carol.id], 'limit');
    t.strictSame(await followers({ limit: 10, maxId: fc.id }), [alice.id], 'maxId');
    t.strictSame(await followers({ limit: 1, sinceId: fa.id }), [dave.id], 'sinceId: the newest');
    t.strictSame(await followers({ limit: 1, minId: fa.id }), [carol.id], 'minId: the next one up');
    t.strictSame((await w.s.relationships.followersOf(bob.id, { limit: 1 }))[0], fd, 'follows come back whole');
    const fac = follow(w.id(), alice.id, carol.id);
    await w.s.relationships.follow(fac);
    t.strictSame(idsOf(await w.s.relationships.followingOf(alice.id, { limit: 10 })), [fac.id, fa.id], 'followingOf: newest first');
    t.strictSame(idsOf(await w.s.relationships.followingOf(alice.id, { limit: 10, minId: fa.id })), [fac.id], 'followingOf: minId');
    t.strictSame(await w.s.relationships.localFollowers(bob.id), [fd, fa], 'localFollowers: local followers only, whole follows, newest first');
    t.strictSame([(await w.acct(bob.id)).followersCount, (await w.acct(alice.id)).followingCount], [3, 2], 'counters');
  });

  it('notifiedFollowers: the local follows that asked to be told of posts, newest first', async (t, w) => {
    const bob = await w.account();
    const [alice, dave, erin, frank] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const carol = await w.account({ domain: 'remote.example', username: 'carol' });
    const fa = follow(w.id(), alice.id, bob.id, { notify: true });
    const fc = follow(w.id(), carol.id, bob.id, { notify: true });
    const fd = follow(w.id(), dave.id, bob.id);
    const fe = follow(w.id(), erin.id, bob.id, { notify: true });
    for (const f of [fa, fc, fd, fe]) await w.s.relationships.follow(f);
    t.equal(await w.s.relationships.requestFollow(follow(w.id(), frank.id, bob.id, { notify: true })), 'created');
    t.strictSame(await w.s.relationships.notifiedFollowers(bob.id), [fe, fa], 'local follows with notify only (no remote one, no request), whole, newest first');
    t.strictSame(await w.s.relationships.notifiedFollowers(alice.id), [], 'an account nobody follows');
    t.strictSame(await w.s.relationships.notifiedFollowers(w.id()), [], 'an account that is not there');
    t.equal(await w.s.relationships.follow({ ...fd, id: w.id(), notify: true }), 'updated');
    t.strictSame(await w.s.relationships.notifiedFollowers(bob.id), [fe, { ...fd, notify: true }, fa], 'asking on a follow that exists: its place stays the follow\'s');
    await w.s.relationships.follow({ ...fe, notify: false });
    t.strictSame(await w.s.relationships.notifiedFollowers(bob.id), [{ ...fd, notify: true }, fa], 'no longer asking');
    await w.s.relationships.unfollow(alice.id, bob.id);
    t.strictSame(await w.s.relationships.notifiedFollowers(bob.id), [{ ...fd, notify: true }], 'an unfollow');
    t.strictSame((await w.s.relationships.localFollowers(bob.id)).map((f) => f.accountId), [erin.id, dave.id], 'localFollowers still has every local follower');
  });

  shared('notifiedFollowers read again shows every change since, made here or elsewhere', async (t, w, other) => {
    const [bob, alice, dave] = [await w.account(), await w.account(), await w.account()];
    const read = async () => (await w.s.relationships.notifiedFollowers(bob.id)).map((f) => f.accountId);
    const fa = follow(w.id(), alice.id, bob.id, { notify: true });
    await w.s.relationships.follow(fa);
    t.strictSame([await read(), await read()], [[alice.id], [alice.id]], 'a follow made here, read twice');
    const fd = follow(w.id(), dave.id, bob.id);
    await other.relationships.follow(fd);
    t.strictSame(await read(), [alice.id], 'a follow without notify made on another connection');
    await other.relationships.follow({ ...fd, notify: true });
    t.strictSame(await read(), [dave.id, alice.id], 'notify turned on, on another connection');
    await other.relationships.follow({ ...fa, notify: false });
    t.strictSame(await read(), [dave.id], 'and off');
    const kept = await w.s.relationships.notifiedFollowers(bob.id);
    (kept[0] as { accountId: Id }).accountId = alice.id;
    t.strictSame(await read(), [dave.id], 'changing what a read returned changes no later read');
  });

  it('remoteFollowersOf: follows by remote accounts only, paged', async (t, w) => {
    const bob = await w.account();
    const [carol, erin] = [await w.account({ domain: 'remote.example', username: 'carol' }), await w.account({ domain: 'elsewhere.example', username: 'erin' })];
    const [alice, dave] = [await w.account(), await w.account()];
    const fc = follow(w.id(), carol.id, bob.id);
    const fa = follow(w.id(), alice.id, bob.id);
    const fe = follow(w.id(), erin.id, bob.id);
    const fd = follow(w.id(), dave.id, bob.id);
    for (const f of [fc, fa, fe, fd]) await w.s.relationships.follow(f);
    const fca = follow(w.id(), carol.id, alice.id);
    await w.s.relationships.follow(fca);
    const remote = async (page: Page) => (await w.s.relationships.remoteFollowersOf(bob.id, page)).map((f) => f.accountId);
    t.strictSame(await remote({ limit: 10 }), [erin.id, carol.id], 'remote followers only, newest first');
    t.strictSame(await w.s.relationships.remoteFollowersOf(bob.id, { limit: 10 }), [fe, fc], 'follows come back whole');
    t.strictSame(await remote({ limit: 1 }), [erin.id], 'limit counts remote follows, not the local ones between');
    t.strictSame(await remote({ limit: 10, maxId: fe.id }), [carol.id], 'maxId');
    t.strictSame(await remote({ limit: 1, minId: fc.id }), [erin.id], 'minId');
    t.strictSame(await remote({ limit: 10, sinceId: fe.id }), [], 'sinceId');
    t.strictSame(await remote({ limit: 0 }), [], 'limit 0');
    t.strictSame(await w.s.relationships.remoteFollowersOf(alice.id, { limit: 10 }), [fca], 'another target');
    await w.s.relationships.unfollow(erin.id, bob.id);
    t.strictSame(await remote({ limit: 10 }), [carol.id], 'an unfollow');
    t.strictSame(await w.s.relationships.remoteFollowersOf(w.id(), { limit: 10 }), [], 'an account that is not there');
  });

  shared('localFollowers read again shows every change since, made here or elsewhere', async (t, w, other) => {
    const [bob, alice, dave, erin] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const read = async () => (await w.s.relationships.localFollowers(bob.id)).map((f) => f.accountId);
    const fa = follow(w.id(), alice.id, bob.id);
    await w.s.relationships.follow(fa);
    t.strictSame([await read(), await read()], [[alice.id], [alice.id]], 'a follow made here, read twice');
    await other.relationships.follow(follow(w.id(), dave.id, bob.id));
    t.strictSame(await read(), [dave.id, alice.id], 'a follow made on another connection');
    await w.s.relationships.unfollow(alice.id, bob.id);
    t.strictSame(await read(), [dave.id], 'an unfollow made here');
    await other.relationships.block(block(w.id(), bob.id, dave.id));
    t.strictSame(await read(), [], 'a block on another connection ends the follow');
    await other.relationships.follow(follow(w.id(), erin.id, bob.id));
    const kept = await w.s.relationships.localFollowers(bob.id);
    t.strictSame(kept.map((f) => f.accountId), [erin.id], 'a follow after the block');
    (kept[0] as { accountId: Id }).accountId = alice.id;
    kept.push(fa);
    t.strictSame(await read(), [erin.id], 'changing what a read returned changes no later read');
  });

  it('familiarFollows: follows of the targets by the accounts the viewer follows', async (t, w) => {
    const [me, friend, other, stranger, target, second] = [await w.account(), await w.account(), await w.account(), await w.account(), await w.account(), await w.account()];
    await w.s.relationships.follow(follow(w.id(), me.id, friend.id));
    await w.s.relationships.follow(follow(w.id(), me.id, other.id));
    const f1 = follow(w.id(), friend.id, target.id);
    const f2 = follow(w.id(), stranger.id, target.id);
    const f3 = follow(w.id(), other.id, second.id);
    const f4 = follow(w.id(), other.id, target.id);
    for (const f of [f1, f2, f3, f4]) await w.s.relationships.follow(f);
    // A pending request to the target and one by the viewer count for nothing.
    await w.s.relationships.requestFollow(follow(w.id(), me.id, stranger.id));
    await w.s.relationships.requestFollow(follow(w.id(), friend.id, second.id));
    t.strictSame(await w.s.relationships.familiarFollows(me.id, [target.id, second.id], 10), [f4, f3, f1], 'newest first, whole follows');
    t.strictSame(idsOf(await w.s.relationships.familiarFollows(me.id, [target.id], 10)), [f4.id, f1.id], 'only the asked targets');
    t.strictSame(idsOf(await w.s.relationships.familiarFollows(me.id, [target.id, second.id], 2)), [f4.id, f3.id], 'limit');
    t.strictSame(await w.s.relationships.familiarFollows(stranger.id, [target.id], 10), [], 'a viewer following nobody: none');
    t.strictSame(await w.s.relationships.familiarFollows(me.id, [], 10), [], 'no targets: none');
    t.strictSame(await w.s.relationships.familiarFollows(me.id, [me.id], 10), [], 'nobody follows me');
  });

  it('suggestions: friends of friends, then the most followed local accounts; dismissals', async (t, w) => {
    const me = await w.account();
    const [ann, ben] = [await w.account(), await w.account()];
    const [two, one, undiscoverable, requested] = [await w.account(), await w.account(), await w.account({ discoverable: false }), await w.account()];
    const far = await w.account({ domain: 'far.example', username: 'far' });
    const [popular, fan1, fan2, fan3, nobody] = [await w.account(), await w.account(), await w.account(), await w.account(), await w.account()];
    for (const [a, b] of [
      [me, ann], [me, ben], [ann, two], [ben, two], [ann, one], [ann, undiscoverable], [ann, requested], [ben, far], [ben, me],
      [fan1, popular], [fan2, popular], [fan3, popular],
    ] as const) {
      await w.s.relationships.follow(follow(w.id(), a.id, b.id));
    }
    await w.s.relationships.requestFollow(follow(w.id(), me.id, requested.id));
    const got = async (limit = 20) => (await w.s.relationships.suggestions(me.id, limit)).map((s) => [s.accountId, s.source]);
    void nobody;
    t.strictSame(
      await got(),
      [[two.id, 'friends_of_friends'], [far.id, 'friends_of_friends'], [one.id, 'friends_of_friends'], [popular.id, 'most_followed']],
      'most in common first, then most followers, then the newest; then local accounts by followers; never me, nor followed, requested, undiscoverable or unfollowed accounts',
    );
    t.strictSame(await got(2), [[two.id, 'friends_of_friends'], [far.id, 'friends_of_friends']], 'limit');
    t.strictSame(await got(4), await got(), 'limit across sources');
    await w.s.relationships.dismissSuggestion(me.id, two.id, 1);
    await w.s.relationships.dismissSuggestion(me.id, two.id, 2);
    await w.s.relationships.dismissSuggestion(me.id, popular.id, 3);
    t.strictSame(await got(3), [[far.id, 'friends_of_friends'], [one.id, 'friends_of_friends']], 'dismissed ones are gone, twice is once');
    t.equal((await w.s.relationships.suggestions(ann.id, 20)).some((s) => s.accountId === popular.id), true, "another account's suggestions keep them");
    t.strictSame(await w.s.relationships.suggestions(me.id, 0), []);
  });

  it('block: removes follows and requests both ways with their counters', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    await w.s.relationships.follow(follow(w.id(), alice.id, bob.id));
    await w.s.relationships.follow(follow(w.id(), bob.id, alice.id));
    await w.s.relationships.follow(follow(w.id(), alice.id, carol.id));
    await w.s.relationships.requestFollow(follow(w.id(), alice.id, dave.id));
    await w.s.relationships.requestFollow(follow(w.id(), dave.id, alice.id));
    const bb = block(w.id(), alice.id, bob.id);
    t.equal(await w.s.relationships.block(bb), true, 'block: true');
    t.strictSame([await w.s.relationships.getFollow(alice.id, bob.id), await w.s.relationships.getFollow(bob.id, alice.id)], [null, null], 'follows both ways removed');
    const [a, b, c] = [await w.acct(alice.id), await w.acct(bob.id), await w.acct(carol.id)];
    t.strictSame([a.followingCount, a.followersCount, b.followingCount, b.followersCount, c.followersCount], [1, 0, 0, 0, 1], 'counters of both follows reversed, others untouched');
    t.equal(await w.s.relationships.block(block(w.id(), alice.id, bob.id)), false, 'again: false');
    const db = block(w.id(), alice.id, dave.id);
    await w.s.relationships.block(db);
    t.strictSame(
      [await w.s.relationships.followRequestsTo(alice.id, { limit: 5 }), await w.s.relationships.followRequestsTo(dave.id, { limit: 5 })],
      [[], []],
      'requests both ways removed',
    );
    t.strictSame(await w.s.relationships.blocksBy(alice.id, { limit: 10 }), [db, bb], 'blocksBy: newest first, whole');
    t.strictSame(idsOf(await w.s.relationships.blocksBy(alice.id, { limit: 10, maxId: db.id })), [bb.id], 'blocksBy: maxId');
    t.strictSame(idsOf(await w.s.relationships.blocksBy(alice.id, { limit: 1, minId: bb.id })), [db.id], 'blocksBy: minId');
    const concurrent = await Promise.all([w.s.relationships.block(block(w.id(), carol.id, dave.id)), w.s.relationships.block(block(w.id(), carol.id, dave.id))]);
    t.equal(count(concurrent, true), 1, 'concurrent blocks: one true');
    t.equal(await w.s.relationships.unblock(alice.id, bob.id), true, 'unblock: true');
    t.equal(await w.s.relationships.unblock(alice.id, bob.id), false, 'again: false');
    t.strictSame(idsOf(await w.s.relationships.blocksBy(alice.id, { limit: 10 })), [db.id], 'one block left');
  });

  it('mute, unmute, mutesBy, hiddenFrom with expiry', async (t, w) => {
    const [alice, bob, carol, dave, eve, frank] = [await w.account(), await w.account(), await w.account(), await w.account(), await w.account(), await w.account()];
    const mb = mute(w.id(), alice.id, bob.id);
    t.equal(await w.s.relationships.mute(mb), true, 'mute: true when added');
    t.equal(await w.s.relationships.mute(mute(w.id(), alice.id, bob.id, { notifications: false, expiresAt: T0 + 100 })), false, 'again: false');
    t.strictSame(await w.s.relationships.mutesBy(alice.id, { limit: 10 }), [{ ...mb, notifications: false, expiresAt: T0 + 100 }], 'options updated, id kept');
    const mc = mute(w.id(), alice.id, carol.id, { expiresAt: T0 + 10_000 });
    await w.s.relationships.mute(mc);
    await w.s.relationships.block(block(w.id(), dave.id, alice.id));
    await w.s.relationships.block(block(w.id(), alice.id, eve.id));
    const hidden = async (now: number) => sortedIds(await w.s.relationships.hiddenFrom(alice.id, [bob.id, carol.id, dave.id, eve.id, frank.id], now));
    t.strictSame(await hidden(T0 + 5000), sortedIds([carol.id, dave.id, eve.id]), 'muted (live), blocking, blocked; expired mute excepted');
    t.strictSame(await hidden(T0 + 50), sortedIds([bob.id, carol.id, dave.id, eve.id]), 'before expiry the mute hides');
    t.strictSame(await hidden(T0 + 10_000), sortedIds([dave.id, eve.id]), 'a mute has expired at its expiresAt');
    t.strictSame(sortedIds(await w.s.relationships.hiddenFrom(dave.id, [alice.id, bob.id], T0)), [alice.id], 'hiddenFrom the blocker');
    t.strictSame(idsOf(await w.s.relationships.mutesBy(alice.id, { limit: 10 })), [mc.id, mb.id], 'mutesBy: newest first (expired included)');
    t.strictSame(idsOf(await w.s.relationships.mutesBy(alice.id, { limit: 1, maxId: mc.id })), [mb.id], 'mutesBy: maxId');
    t.equal(await w.s.relationships.unmute(alice.id, bob.id), true, 'unmute: true');
    t.equal(await w.s.relationships.unmute(alice.id, bob.id), false, 'again: false');
    t.strictSame(idsOf(await w.s.relationships.mutesBy(alice.id, { limit: 10 })), [mc.id], 'one mute left');
  });

  it('relationships: every fact, in the order of targetIds', async (t, w) => {
    const [alice, bob, carol, dave, eve, frank] = [await w.account(), await w.account(), await w.account(), await w.account(), await w.account(), await w.account()];
    const fab = follow(w.id(), alice.id, bob.id, { notify: true, languages: ['en'] });
    await w.s.relationships.follow(fab);
    await w.s.relationships.follow(follow(w.id(), bob.id, alice.id));
    const rac = follow(w.id(), alice.id, carol.id);
    await w.s.relationships.requestFollow(rac);
    await w.s.relationships.requestFollow(follow(w.id(), dave.id, alice.id));
    await w.s.relationships.block(block(w.id(), alice.id, eve.id));
    await w.s.relationships.block(block(w.id(), frank.id, alice.id));
    const mab = mute(w.id(), alice.id, bob.id, { expiresAt: T0 + 1 });
    await w.s.relationships.mute(mab);
    const unknown = w.id();
    const none = { following: null, followedBy: false, requested: null, requestedBy: false, blocking: false, blockedBy: false, muting: null, domainBlocking: false };
    t.strictSame(await w.s.relationships.relationships(alice.id, [frank.id, bob.id, unknown, carol.id, dave.id, eve.id]), [
      { ...none, targetId: frank.id, blockedBy: true },
      { ...none, targetId: bob.id, following: fab, followedBy: true, muting: mab },
      { ...none, targetId: unknown },
      { ...none, targetId: carol.id, requested: rac },
      { ...none, targetId: dave.id, requestedBy: true },
      { ...none, targetId: eve.id, blocking: true },
    ]);
    t.strictSame(await w.s.relationships.relationships(alice.id, []), [], 'no targets: no rows');
  });

  // ---- notifications ---------------------------------------------------------------------------

  it('notifications: filters, pages, countSince, dismiss, clear', async (t, w) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const s = await w.post(alice.id);
    const n1 = notification(w.id(), alice.id, bob.id, { type: 'mention', statusId: s.id });
    const n2 = notification(w.id(), alice.id, carol.id, { type: 'favourite', statusId: s.id });
    const n3 = notification(w.id(), alice.id, bob.id, { type: 'follow' });
    const n4 = notification(w.id(), alice.id, carol.id, { type: 'reblog', statusId: s.id });
    const n5 = notification(w.id(), alice.id, carol.id, { type: 'mention', statusId: s.id });
    const nb = notification(w.id(), bob.id, alice.id, { type: 'follow' });
    for (const n of [n1, n2, n3, n4, n5, nb]) await w.s.notifications.create(n);
    t.strictSame(await w.s.notifications.get(alice.id, n1.id), n1, 'get');
    t.equal(await w.s.notifications.get(bob.id, n1.id), null, "get: another account's notification is null");
    t.equal(await w.s.notifications.get(alice.id, w.id()), null, 'get: missing is null');
    const ls = async (f: Parameters<Storage['notifications']['list']>[1], page: Page = { limit: 10 }) => idsOf(await w.s.notifications.list(alice.id, f, page));
    t.strictSame(await ls({}), idsOf([n5, n4, n3, n2, n1]), 'list: newest first');
    t.strictSame(await ls({ types: ['mention'] }), idsOf([n5, n1]), 'types');
    t.strictSame(await ls({ excludeTypes: ['mention', 'follow'] }), idsOf([n4, n2]), 'excludeTypes');
    t.strictSame(await ls({ fromAccountId: bob.id }), idsOf([n3, n1]), 'fromAccountId');
    t.strictSame(await ls({ types: ['mention'], fromAccountId: carol.id }), idsOf([n5]), 'types + fromAccountId');
    const other = await w.post(alice.id);
    t.strictSame(await ls({ statusId: s.id, fromAccountId: carol.id }), idsOf([n5, n4, n2]), 'statusId + fromAccountId');
    t.strictSame(await ls({ statusId: other.id }), [], 'statusId: none about another status');
    t.equal(await w.s.notifications.deleteWhere(alice.id, { types: ['favourite'], fromAccountId: carol.id, statusId: other.id }), 0, 'deleteWhere by status: none about that one');
    t.strictSame(await ls({ types: ['mention', 'favourite'], excludeTypes: ['favourite'] }), idsOf([n5, n1]), 'types + excludeTypes');
    t.strictSame(await ls({}, { limit: 2, maxId: n4.id }), idsOf([n3, n2]), 'maxId');
    t.strictSame(await ls({}, { limit: 2, minId: n1.id }), idsOf([n3, n2]), 'minId');
    t.strictSame(await ls({}, { limit: 2, sinceId: n3.id }), idsOf([n5, n4]), 'sinceId');
    t.strictSame(await ls({ types: ['mention'] }, { limit: 1, maxId: n5.id }), idsOf([n1]), 'filter + page');
    t.equal(await w.s.notifications.countSince(alice.id, null, 100), 5, 'countSince: all');
    t.equal(await w.s.notifications.countSince(alice.id, n2.id, 100), 3, 'countSince: above an id');
    t.equal(await w.s.notifications.countSince(alice.id, null, 2), 2, 'countSince: at most limit');
    t.equal(await w.s.notifications.dismiss(bob.id, n1.id), false, "dismiss another's: false");
    t.equal(await w.s.notifications.dismiss(alice.id, n1.id), true, 'dismiss: true');
    t.equal(await w.s.notifications.dismiss(alice.id, n1.id), false, 'again: false');
    t.equal((await ls({})).length, 4, 'four left');
    await w.s.notifications.clear(alice.id);
    t.strictSame(await ls({}), [], 'clear: none left');
    t.strictSame(idsOf(await w.s.notifications.list(bob.id, {}, { limit: 10 })), [nb.id], "clear leaves other accounts' notifications");
  });

  // ---- lists, filters, markers -----------------------------------------------------------------

  it('lists: CRUD, members all-or-nothing, pages, listsContaining', async (t, w) => {
    const [alice, bob, carol, dave, eve] = [await w.account(), await w.account(), await w.account(), await w.account(), await w.account()];
    const l1 = list(w.id(), alice.id);
    const l2 = list(w.id(), alice.id, { exclusive: true, repliesPolicy: 'none' });
    const l3 = list(w.id(), bob.id);
    for (const l of [l1, l2, l3]) await w.s.lists.create(l);
    t.strictSame(await w.s.lists.get(l2.id), l2, 'get');
    t.equal(await w.s.lists.get(w.id()), null, 'get: missing is null');
    t.strictSame(idsOf(await w.s.lists.listBy(alice.id)), [l1.id, l2.id], 'listBy: oldest first');
    const u1 = { ...l1, title: 'Friends', repliesPolicy: 'followed' as const, exclusive: true };
    t.strictSame(await w.s.lists.update(l1.id, { title: 'Friends', repliesPolicy: 'followed', exclusive: true }), u1, 'update');
    t.strictSame(await w.s.lists.get(l1.id), u1, 'update stored');
    t.equal(await w.s.lists.update(w.id(), { title: 'x' }), null, 'update: missing is null');

    const [m1, m2] = [w.id(), w.id()];
    t.equal(await w.s.lists.addMembers(l1.id, [bob.id, carol.id], [m1, m2]), 'added', 'addMembers: added');
    t.equal(await w.s.lists.addMembers(l1.id, [dave.id, bob.id], [w.id(), w.id()]), 'duplicate', 'one already a member: duplicate');
    t.equal(await w.s.lists.addMembers(l1.id, [dave.id, dave.id], [w.id(), w.id()]), 'duplicate', 'the same account twice: duplicate');
    const all = async (listId: Id, page: Page = { limit: 0 }) => await w.s.lists.members(listId, page);
    t.strictSame(await all(l1.id), [{ id: m2, accountId: carol.id }, { id: m1, accountId: bob.id }], 'nothing of the duplicate calls was written');
    const [m5, m6] = [w.id(), w.id()];
    await w.s.lists.addMembers(l1.id, [dave.id, eve.id], [m5, m6]);
    t.strictSame((await all(l1.id)).map((m) => m.id), [m6, m5, m2, m1], 'members: limit 0 = all, newest first');
    t.strictSame((await all(l1.id, { limit: 2 })).map((m) => m.accountId), [eve.id, dave.id], 'members: limit');
    t.strictSame((await all(l1.id, { limit: 0, maxId: m5 })).map((m) => m.id), [m2, m1], 'members: maxId with limit 0');
    t.strictSame((await all(l1.id, { limit: 1, minId: m1 })).map((m) => m.id), [m2], 'members: minId');
    await w.s.lists.addMembers(l3.id, [carol.id], [w.id()]);
    t.strictSame(idsOf(await w.s.lists.listsContaining(carol.id)), [l3.id, l1.id], 'listsContaining: any owner, newest first');
    await w.s.lists.removeMembers(l1.id, [carol.id, alice.id]);
    t.strictSame((await all(l1.id)).map((m) => m.accountId), [eve.id, dave.id, bob.id], 'removeMembers');
    t.strictSame(idsOf(await w.s.lists.listsContaining(carol.id)), [l3.id], 'listsContaining after removal');
    t.equal(await w.s.lists.delete(l1.id), true, 'delete: true');
    t.equal(await w.s.lists.delete(l1.id), false, 'again: false');
    t.equal(await w.s.lists.get(l1.id), null, 'deleted');
    t.strictSame(await all(l1.id), [], 'its members are removed');
    t.strictSame(await w.s.lists.listsContaining(bob.id), [], 'listsContaining forgets the deleted list');
    t.strictSame(idsOf(await w.s.lists.listBy(alice.id)), [l2.id], 'listBy after delete');
  });

  shared('listsContaining read again shows every change since, made here or elsewhere', async (t, w, other) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const l1 = list(w.id(), alice.id);
    const l2 = list(w.id(), bob.id);
    await w.s.lists.create(l1);
    await other.lists.create(l2);
    const read = async () => (await w.s.lists.listsContaining(carol.id)).map((l) => [l.id, l.title]);
    t.strictSame(await read(), [], 'in no list');
    await w.s.lists.addMembers(l1.id, [carol.id], [w.id()]);
    t.strictSame([await read(), await read()], [[[l1.id, l1.title]], [[l1.id, l1.title]]], 'added here, read twice');
    await other.lists.addMembers(l2.id, [carol.id], [w.id()]);
    t.strictSame(await read(), [[l2.id, l2.title], [l1.id, l1.title]], 'added on another connection');
    await other.lists.update(l1.id, { title: 'Renamed' });
    t.strictSame(await read(), [[l2.id, l2.title], [l1.id, 'Renamed']], 'a list renamed on another connection');
    const kept = await w.s.lists.listsContaining(carol.id);
    (kept[0] as { title: string }).title = 'changed by a caller';
    kept.pop();
    t.strictSame(await read(), [[l2.id, l2.title], [l1.id, 'Renamed']], 'changing what a read returned changes no later read');
    await w.s.lists.removeMembers(l2.id, [carol.id]);
    t.strictSame(await read(), [[l1.id, 'Renamed']], 'removed here');
    await other.lists.delete(l1.id);
    t.strictSame(await read(), [], 'a list deleted on another connection');
  });

  it('filters: create, list, replace, delete', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const f1 = filter(w.id(), alice.id);
    const f2 = filter(w.id(), alice.id, { title: 'second', action: 'hide', expiresAt: T0 + HOUR });
    const f3 = filter(w.id(), bob.id);
    for (const f of [f1, f2, f3]) await w.s.filters.create(f);
    t.strictSame(await w.s.filters.get(f2.id), f2, 'get');
    t.equal(await w.s.filters.get(w.id()), null, 'get: missing');
    t.strictSame(idsOf(await w.s.filters.listBy(alice.id)), [f1.id, f2.id], 'listBy: oldest first');
    const replaced = {
      ...f1,
      title: 'replaced',
      context: ['thread' as const],
      action: 'blur' as const,
      keywords: [{ id: w.id(), keyword: 'a', wholeWord: false }, { id: w.id(), keyword: 'b', wholeWord: true }],
      statuses: [{ id: w.id(), statusId: w.id() }],
    };
    t.strictSame(await w.s.filters.replace(replaced), replaced, 'replace returns the filter');
    t.strictSame(await w.s.filters.get(f1.id), replaced, 'the whole filter is replaced');
    t.equal(await w.s.filters.replace(filter(w.id(), alice.id)), null, 'replace of a missing filter: null');
    t.equal(await w.s.filters.delete(f1.id), true, 'delete: true');
    t.equal(await w.s.filters.delete(f1.id), false, 'again: false');
    t.strictSame(idsOf(await w.s.filters.listBy(alice.id)), [f2.id], 'listBy after delete');
  });

  it('account notes: set, replace, remove, only the writer\'s', async (t, w) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    t.strictSame(await w.s.accountNotes.about(alice.id, [bob.id, carol.id]), new Map(), 'none yet');
    await w.s.accountNotes.set(alice.id, bob.id, 'met at the park', T0);
    await w.s.accountNotes.set(alice.id, carol.id, 'ünïcode ✓', T0);
    await w.s.accountNotes.set(bob.id, alice.id, 'bob about alice', T0);
    t.strictSame(await w.s.accountNotes.about(alice.id, [bob.id, carol.id, w.id(), 'not an id']), new Map([[bob.id, 'met at the park'], [carol.id, 'ünïcode ✓']]), 'hers, those asked');
    await w.s.accountNotes.set(alice.id, bob.id, 'changed', T0 + 1);
    t.strictSame(await w.s.accountNotes.about(alice.id, [bob.id]), new Map([[bob.id, 'changed']]), 'replaced');
    await w.s.accountNotes.set(alice.id, bob.id, '', T0 + 2);
    await w.s.accountNotes.set(alice.id, bob.id, '', T0 + 3);
    t.strictSame(await w.s.accountNotes.about(alice.id, [bob.id, carol.id]), new Map([[carol.id, 'ünïcode ✓']]), 'an empty comment removes it (twice is fine)');
    t.strictSame(await w.s.accountNotes.about(bob.id, [alice.id]), new Map([[alice.id, 'bob about alice']]), 'another writer\'s stays');
    t.strictSame(await w.s.accountNotes.about(alice.id, []), new Map());
  });

  it('markers: version 0 then +1, concurrency', async (t, w) => {
    const alice = await w.account();
    const [r1, r2, r3] = [w.id(), w.id(), w.id()];
    t.strictSame(await w.s.markers.get(alice.id, ['home', 'notifications']), [], 'none yet');
    t.strictSame(await w.s.markers.set(alice.id, 'home', r1, T0 + 1), { accountId: alice.id, timeline: 'home', lastReadId: r1, version: 0, updatedAt: T0 + 1 }, 'new marker: version 0');
    t.strictSame(await w.s.markers.set(alice.id, 'home', r2, T0 + 2), { accountId: alice.id, timeline: 'home', lastReadId: r2, version: 1, updatedAt: T0 + 2 }, 'set again: version 1');
    t.strictSame((await w.s.markers.get(alice.id, ['home', 'notifications'])).map((m) => [m.timeline, m.version]), [['home', 1]], 'get: existing only');
    await w.s.markers.set(alice.id, 'notifications', r3, T0 + 3);
    t.strictSame((await w.s.markers.get(alice.id, ['notifications', 'home'])).map((m) => [m.timeline, m.lastReadId, m.version]), [['notifications', r3, 0], ['home', r2, 1]], 'get: both');
    const many = await Promise.all(Array.from({ length: 5 }, (_, i) => w.s.markers.set(alice.id, 'home', r3, T0 + 10 + i)));
    t.strictSame(many.map((m) => m.version).sort((a, b) => a - b), [2, 3, 4, 5, 6], 'five concurrent sets: five distinct versions');
    t.equal((await w.s.markers.get(alice.id, ['home']))[0]?.version, 6, 'final version 6');
  });

  // ---- oauth -----------------------------------------------------------------------------------

  it('oauth: applications and tokens', async (t, w) => {
    const alice = await w.account();
    const app1 = application(w.id());
    const app2 = application(w.id(), { website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'] });
    await w.s.oauth.createApplication(app1);
    await w.s.oauth.createApplication(app2);
    t.strictSame(await w.s.oauth.getApplication(app1.id), app1, 'getApplication');
    t.equal(await w.s.oauth.getApplication(w.id()), null, 'getApplication: missing');
    t.strictSame(await w.s.oauth.findApplicationByClientId(app2.clientId), app2, 'findApplicationByClientId');
    t.equal(await w.s.oauth.findApplicationByClientId('nope'), null, 'findApplicationByClientId: missing');
    t.strictSame(idsOf(await w.s.oauth.getApplicationsMany([app1.id, w.id(), app2.id])), [app2.id, app1.id], 'getApplicationsMany skips missing; newest first');
    t.strictSame(idsOf(await w.s.oauth.getApplicationsMany([app2.id])), [app2.id], 'getApplicationsMany of one id');
    await rejectsConflict(t, w.s.oauth.createApplication(application(w.id(), { clientId: app1.clientId })), 'clientId', 'a taken client id');

    const t1 = token(w.id(), app1.id, alice.id, { scopes: ['read', 'write'] });
    const t2 = token(w.id(), app1.id, null);
    await w.s.oauth.createToken(t1);
    await w.s.oauth.createToken(t2);
    t.strictSame(await w.s.oauth.findTokenByHash(t1.tokenHash), t1, 'findTokenByHash');
    t.strictSame(await w.s.oauth.findTokenByHash(t2.tokenHash), t2, 'an app token (no account)');
    t.equal(await w.s.oauth.findTokenByHash('nope'), null, 'findTokenByHash: missing');
    t.equal(await w.s.oauth.revokeToken(t1.id, T0 + 9), true, 'revokeToken: true when live');
    t.strictSame(await w.s.oauth.findTokenByHash(t1.tokenHash), { ...t1, revokedAt: T0 + 9 }, 'a revoked token is still found, with revokedAt');
    t.equal(await w.s.oauth.revokeToken(t1.id, T0 + 10), false, 'revoking again: false');
    t.equal((await w.s.oauth.findTokenByHash(t1.tokenHash))?.revokedAt, T0 + 9, 'the first revocation time stays');
    t.equal(await w.s.oauth.revokeToken(w.id(), T0), false, 'revoking a missing token: false');
    const both = await Promise.all([w.s.oauth.revokeToken(t2.id, T0 + 1), w.s.oauth.revokeToken(t2.id, T0 + 2)]);
    t.equal(count(both, true), 1, 'two concurrent revocations: one true');
    await rejectsConflict(t, w.s.oauth.createToken(token(w.id(), app1.id, alice.id, { tokenHash: t1.tokenHash })), 'tokenHash', 'a taken token hash');
  });

  it('oauth: refresh tokens belong to their access token and are used once', async (t, w) => {
    const alice = await w.account();
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const withRefresh = token(w.id(), app.id, alice.id, { refreshTokenHash: 'refresh-1' });
    const without = token(w.id(), app.id, alice.id);
    await w.s.oauth.createToken(withRefresh);
    await w.s.oauth.createToken(without);
    t.strictSame(await w.s.oauth.findTokenByHash(withRefresh.tokenHash), withRefresh, 'the refresh digest is stored with the token');
    t.strictSame(await w.s.oauth.findTokenByRefreshHash('refresh-1'), withRefresh, 'findTokenByRefreshHash');
    t.equal(await w.s.oauth.findTokenByRefreshHash('nope'), null, 'findTokenByRefreshHash: unknown');
    const raced = await Promise.all([w.s.oauth.revokeTokenByRefreshHash('refresh-1', T0 + 5), w.s.oauth.revokeTokenByRefreshHash('refresh-1', T0 + 6)]);
    t.equal(raced.filter((r) => r !== null).length, 1, 'two concurrent uses: one wins');
    t.strictSame(raced.find((r) => r !== null), withRefresh, 'the winner gets the token as it was (live)');
    t.equal((await w.s.oauth.findTokenByHash(withRefresh.tokenHash))?.revokedAt !== null, true, 'and the token is revoked');
    t.equal(await w.s.oauth.revokeTokenByRefreshHash('refresh-1', T0 + 7), null, 'used again: null');
    t.equal(await w.s.oauth.revokeTokenByRefreshHash('nope', T0), null, 'unknown: null');
    const revokedFirst = token(w.id(), app.id, alice.id, { refreshTokenHash: 'refresh-2' });
    await w.s.oauth.createToken(revokedFirst);
    await w.s.oauth.revokeToken(revokedFirst.id, T0 + 8);
    t.equal(await w.s.oauth.revokeTokenByRefreshHash('refresh-2', T0 + 9), null, 'the token was revoked: its refresh token is dead');
    t.equal((await w.s.oauth.findTokenByHash(without.tokenHash))?.revokedAt, null, 'other tokens untouched');
    await rejectsConflict(t, w.s.oauth.createToken(token(w.id(), app.id, alice.id, { refreshTokenHash: 'refresh-2' })), 'refreshTokenHash', 'a taken refresh digest');
  });

  it('accounts: changeEmail', async (t, w) => {
    const a = account(w.id(), { username: 'alice' });
    await w.s.accounts.create(a, user(a.id, { email: 'alice@example.org', confirmedAt: null }));
    const b = account(w.id(), { username: 'bob' });
    await w.s.accounts.create(b, user(b.id, { email: 'bob@example.org' }));
    const changed = await w.s.accounts.changeEmail(a.id, 'Alice@New.example');
    t.equal(changed?.email, 'Alice@New.example', 'the new address');
    t.equal(changed?.confirmedAt, null, 'nothing else changes');
    t.strictSame(await w.s.accounts.findUserByEmail('alice@new.example'), changed, 'found by its new address, case ignored');
    t.equal(await w.s.accounts.findUserByEmail('alice@example.org'), null, 'not by the old one');
    await rejectsConflict(t, w.s.accounts.changeEmail(a.id, 'BOB@example.org'), 'email', "another user's address");
    t.equal((await w.s.accounts.getUser(a.id))?.email, 'Alice@New.example', 'a refused change changes nothing');
    t.equal((await w.s.accounts.changeEmail(a.id, 'alice@new.EXAMPLE'))?.email, 'alice@new.EXAMPLE', 'its own address in another case');
    const remote = account(w.id(), { username: 'carol', domain: 'remote.example' });
    await w.s.accounts.create(remote);
    t.equal(await w.s.accounts.changeEmail(remote.id, 'carol@example.org'), null, 'an account without user: null');
    t.equal(await w.s.accounts.changeEmail(w.id(), 'x@example.org'), null, 'a missing account: null');
  });

  it("oauth: an account's tokens revoked and sessions ended at once (a password reset)", async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const t1 = token(w.id(), app.id, alice.id);
    const t2 = token(w.id(), app.id, alice.id, { refreshTokenHash: 'refresh-a' });
    const t3 = token(w.id(), app.id, alice.id);
    const other = token(w.id(), app.id, bob.id);
    for (const tk of [t1, t2, t3, other]) await w.s.oauth.createToken(tk);
    await w.s.oauth.revokeToken(t3.id, T0 + 1);
    t.strictSame(sortedIds(await w.s.oauth.revokeTokensOfAccount(alice.id, T0 + 5)), sortedIds([t1.id, t2.id]), 'the live ones');
    t.equal((await w.s.oauth.findTokenByHash(t1.tokenHash))?.revokedAt, T0 + 5);
    t.equal((await w.s.oauth.findTokenByHash(t2.tokenHash))?.revokedAt, T0 + 5);
    t.equal((await w.s.oauth.findTokenByHash(t3.tokenHash))?.revokedAt, T0 + 1, 'one revoked before keeps its time');
    t.equal((await w.s.oauth.findTokenByHash(other.tokenHash))?.revokedAt, null, "another account's token is untouched");
    t.strictSame(await w.s.oauth.revokeTokensOfAccount(alice.id, T0 + 6), [], 'again: none');

    const s1 = session(w.id(), alice.id);
    const s2 = session(w.id(), alice.id);
    const s3 = session(w.id(), bob.id);
    const s4 = session(w.id(), null);
    for (const s of [s1, s2, s3, s4]) await w.s.oauth.createSession(s);
    t.equal(await w.s.oauth.deleteSessionsOf(alice.id), 2);
    t.equal(await w.s.oauth.findSessionByHash(s1.idHash, T0 + 1), null);
    t.equal(await w.s.oauth.findSessionByHash(s2.idHash, T0 + 1), null);
    t.strictSame(await w.s.oauth.findSessionByHash(s3.idHash, T0 + 1), s3, "another account's session stays");
    t.strictSame(await w.s.oauth.findSessionByHash(s4.idHash, T0 + 1), s4, 'a session without account stays');
    t.equal(await w.s.oauth.deleteSessionsOf(alice.id), 0, 'again: none');
  });

  it('oauth: authorization codes and web sessions', async (t, w) => {
    const alice = await w.account();
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const c1 = code(w.id(), app.id, alice.id);
    await w.s.oauth.createCode(c1);
    t.strictSame(await w.s.oauth.consumeCode(c1.codeHash, T0 + 1000), { ...c1, usedAt: T0 + 1000 }, 'consumeCode: the code, marked used');
    t.equal(await w.s.oauth.consumeCode(c1.codeHash, T0 + 1001), null, 'a used code: null');
    const c2 = code(w.id(), app.id, alice.id, { codeChallenge: null });
    await w.s.oauth.createCode(c2);
    t.equal(await w.s.oauth.consumeCode(c2.codeHash, c2.expiresAt + 1), null, 'an expired code: null');
    t.equal(await w.s.oauth.consumeCode(c2.codeHash, c2.expiresAt), null, 'a code has expired at its expiresAt');
    t.strictSame(await w.s.oauth.consumeCode(c2.codeHash, c2.expiresAt - 1), { ...c2, usedAt: c2.expiresAt - 1 }, 'the failed attempts did not use it up');
    t.equal(await w.s.oauth.consumeCode('nope', T0), null, 'unknown code: null');
    const c3 = code(w.id(), app.id, alice.id);
    await w.s.oauth.createCode(c3);
    const results = await Promise.all([w.s.oauth.consumeCode(c3.codeHash, T0 + 5), w.s.oauth.consumeCode(c3.codeHash, T0 + 6)]);
    t.equal(results.filter((r) => r !== null).length, 1, 'two concurrent consumes: exactly one gets the code');

    const s1 = session(w.id(), alice.id);
    const s2 = session(w.id(), null, { expiresAt: T0 + 10 });
    await w.s.oauth.createSession(s1);
    await w.s.oauth.createSession(s2);
    t.strictSame(await w.s.oauth.findSessionByHash(s1.idHash, T0 + 1), s1, 'findSessionByHash');
    t.strictSame(await w.s.oauth.findSessionByHash(s2.idHash, T0 + 9), s2, 'a session without account, unexpired');
    t.equal(await w.s.oauth.findSessionByHash(s2.idHash, T0 + 10), null, 'expired at its expiresAt: null');
    t.equal(await w.s.oauth.findSessionByHash('nope', T0), null, 'unknown: null');
    await w.s.oauth.deleteSession(s1.id);
    t.equal(await w.s.oauth.findSessionByHash(s1.idHash, T0 + 1), null, 'deleted');
    await w.s.oauth.deleteSession(s1.id);
    t.pass('deleting a missing session is fine');

    const s3 = session(w.id(), alice.id, { expiresAt: T0 + 20 });
    const s4 = session(w.id(), null, { expiresAt: T0 + 30 });
    await w.s.oauth.createSession(s3);
    await w.s.oauth.createSession(s4);
    t.equal(await w.s.oauth.pruneSessions(T0 + 20), 2, 'pruneSessions: the sessions expired at now (s2, s3)');
    t.equal(await w.s.oauth.findSessionByHash(s3.idHash, T0), null, 'a pruned session is gone, even asked as of before');
    t.strictSame(await w.s.oauth.findSessionByHash(s4.idHash, T0 + 20), s4, 'a live one stays');
    t.equal(await w.s.oauth.pruneSessions(T0 + 20), 0, 'pruning again: none');
  });

  it('oauth: the tokens issued for a code are revoked when it is replayed', async (t, w) => {
    const alice = await w.account();
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const used = code(w.id(), app.id, alice.id);
    const other = code(w.id(), app.id, alice.id);
    await w.s.oauth.createCode(used);
    await w.s.oauth.createCode(other);
    const fromCode = token(w.id(), app.id, alice.id, { authorizationCodeId: used.id });
    const fromOther = token(w.id(), app.id, alice.id, { authorizationCodeId: other.id });
    const plain = token(w.id(), app.id, alice.id);
    for (const tok of [fromCode, fromOther, plain]) await w.s.oauth.createToken(tok);
    t.strictSame(await w.s.oauth.findTokenByHash(fromCode.tokenHash), fromCode, 'the code a token was issued for is stored with it');
    t.strictSame(await w.s.oauth.findTokenByHash(plain.tokenHash), plain, 'and absent when there is none');
    const recorded: AccessToken[][] = [];
    const revoked = await w.s.oauth.revokeTokensOfCode(used.codeHash, T0 + 50, (tokens) => {
      recorded.push(tokens);
      return [];
    });
    t.strictSame(revoked, [fromCode], 'revokeTokensOfCode: the live tokens of the code, as they were');
    t.strictSame(recorded, [[fromCode]], 'handed to the outbox');
    t.equal((await w.s.oauth.findTokenByHash(fromCode.tokenHash))?.revokedAt, T0 + 50, 'now revoked');
    t.equal((await w.s.oauth.findTokenByHash(fromOther.tokenHash))?.revokedAt, null, "another code's token untouched");
    t.equal((await w.s.oauth.findTokenByHash(plain.tokenHash))?.revokedAt, null, 'a token of no code untouched');
    t.strictSame(await w.s.oauth.revokeTokensOfCode(used.codeHash, T0 + 60), [], 'again: none left');
    t.strictSame(await w.s.oauth.revokeTokensOfCode('unknown', T0 + 60), [], 'an unknown code: none');
  });

  // ---- plugin-owned storage: extensions and the writes that commit with a status -------------

  it('extend: one repository per extension; a missing engine and a second extension of one name are refused', async (t, w) => {
    t.equal(typeof w.s.engine, 'string', 'the store names its engine');
    const supported = Object.hasOwn(probeStorage.engines, w.s.engine);
    if (supported) t.equal(w.s.extend(probeStorage), w.s.extend(probeStorage), 'extend twice: the same instance');
    const none: StorageExtension<unknown> = { name: 'no-such-plugin', engines: { 'some-other-engine': () => ({}) } };
    try {
      w.s.extend(none);
      t.fail('an extension without this engine must be refused');
    } catch (error) {
      t.equal(
        String((error as Error).message),
        `the plugin "no-such-plugin" has no storage for the "${w.s.engine}" engine (it supports: some-other-engine)`,
        'the error names the plugin and the engine',
      );
    }
    const impostor: StorageExtension<unknown> = { name: probeStorage.name, engines: { [w.s.engine]: () => ({}) } };
    if (supported) {
      try {
        w.s.extend(impostor);
        t.fail('a second extension under a taken name must be refused');
      } catch (error) {
        t.equal(String((error as Error).message), 'another storage extension named "contract-probe" is already in use on this store');
      }
    } else t.pass('the probe extension has no implementation for this engine');
  });

  it('writes: checks before anything is written, applies with the status, all or nothing', async (t, w) => {
    if (!Object.hasOwn(probeStorage.engines, w.s.engine)) {
      t.pass(`the probe extension has no implementation for the ${w.s.engine} engine`);
      return;
    }
    const probe = w.s.extend(probeStorage);
    const alice = await w.account();
    const parent = await w.post(alice.id);
    const s = status(w.id(), alice.id, { inReplyToId: parent.id, inReplyToAccountId: alice.id, tags: ['probe'] });
    const seen: string[] = [];
    const r = await w.s.statuses.create(s, replyTo(parent.id), { writes: [probe.write('one', { seen }), probe.write('two', { seen })] });
    t.equal(r.created, true, 'created with its writes');
    t.strictSame(seen, ['check one', 'check two', 'apply one', 'apply two'], 'every check first, then every apply after the status write');
    t.strictSame(await probe.written(), ['one', 'two'], 'the applies are stored');

    const bad = status(w.id(), alice.id, { inReplyToId: parent.id, inReplyToAccountId: alice.id, tags: ['ghost'] });
    await rejectsConflict(t, w.s.statuses.create(bad, replyTo(parent.id), { writes: [probe.write('three'), probe.write('four', { fail: true })], idempotency: { key: 'ghost', notBefore: T0 } }), 'probe', 'a failing check refuses the write');
    t.equal(await w.s.statuses.get(bad.id), null, 'no status');
    t.strictSame(await probe.written(), ['one', 'two'], 'no apply ran, not even the one whose check passed');
    t.equal((await w.st(parent.id)).repliesCount, 1, 'no reply counted');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ALL, tag: 'ghost' }, { limit: 5 })), [], 'no tags');
    t.equal((await w.s.statuses.create(status(w.id(), alice.id), POST, { idempotency: { key: 'ghost', notBefore: T0 } })).created, true, 'no idempotency key recorded');

    const again = await w.s.statuses.create(status(w.id(), alice.id), POST, { idempotency: { key: 'ghost', notBefore: T0 }, writes: [probe.write('five', { fail: true })] });
    t.equal(again.created, false, 'an idempotent repeat answers with the first status without checking any write');

    const edited = await w.s.statuses.update(s.id, { ...s, text: 'edited', editedAt: T0 + 5 }, [], { writes: [probe.write('six')] });
    t.equal(edited?.text, 'edited', 'update runs writes too');
    await rejectsConflict(t, w.s.statuses.update(s.id, { ...s, text: 'refused', editedAt: T0 + 6 }, [edit(w.id(), s)], { writes: [probe.write('seven', { fail: true })] }), 'probe', 'a failing check refuses the edit');
    t.strictSame([(await w.st(s.id)).text, (await w.s.statuses.edits(s.id)).length, await probe.written()], ['edited', 0, ['one', 'two', 'six']], 'nothing written by the refused edit');
    t.equal(await w.s.statuses.update(w.id(), { ...s, editedAt: T0 }, [], { writes: [probe.write('eight')] }), null, 'no live status: null');
    t.strictSame(await probe.written(), ['one', 'two', 'six'], 'and no write applied');

    const foreign = { store: {}, apply() {} };
    try {
      await w.s.statuses.create(status(w.id(), alice.id), POST, { writes: [foreign] });
      t.fail('a write of another store must be refused');
    } catch (error) {
      t.equal((error as Error).message, 'a StorageWrite prepared for another store was given to this one', 'a write of another store is refused');
    }
    t.equal((await w.acct(alice.id)).statusesCount, 3, 'the parent, the one with writes, the one that took the key; the refused ones not counted');
    if (w.s.engine === 'sqlite') {
      try {
        await w.s.statuses.create(status(w.id(), alice.id), POST, { writes: [probe.write('nine', { async: true })] });
        t.fail('an asynchronous step must be refused on a synchronous engine');
      } catch (error) {
        t.equal(/returned a promise/.test((error as Error).message), true, 'a step that returns a promise is refused');
      }
      t.strictSame(await probe.written(), ['one', 'two', 'six'], 'and nothing applied');
    }
  });

  durable('writes: a plugin\'s applies and its migrations survive a reopen', async (t, w) => {
    if (!Object.hasOwn(probeStorage.engines, w.s.engine)) {
      t.pass(`the probe extension has no implementation for the ${w.s.engine} engine`);
      return;
    }
    const alice = await w.account();
    await w.s.statuses.create(status(w.id(), alice.id), POST, { writes: [w.s.extend(probeStorage).write('kept')] });
    await w.reopen();
    t.strictSame(await w.s.extend(probeStorage).written(), ['kept'], 'reopened, the extension migrates again (a no-op) and reads its rows');
  });

  // ---- the outbox: events recorded with the write ---------------------------------------------

  /** An outbox that records what it was called with and returns one job naming it. */
  const spy = <R>(name: string) => {
    const calls: R[] = [];
    const outbox = (result: R) => {
      calls.push(result);
      return [{ name, payload: { result: result as unknown }, orderingKey: name === 'created' ? 'key:created' : null }];
    };
    return { calls, outbox };
  };
  const queued = async (w: World): Promise<string[]> => {
    const jobs = await w.s.jobs.claim(Number.MAX_SAFE_INTEGER / 2, 1000, 1);
    await w.s.jobs.complete(jobs.map((j) => j.id));
    return jobs.map((j) => j.name);
  };

  it('quotes: a transition records its jobs with it', async (t, w) => {
    const [alice, bob] = [await w.account({}, true), await w.account({}, true)];
    const quoted = await w.post(alice.id);
    const quoting = await w.post(bob.id);
    const quote = { id: w.id(), statusId: quoting.id, accountId: bob.id, quotedStatusId: quoted.id, quotedAccountId: alice.id, state: 'accepted' as const, authorizationUri: null, requestUri: null, createdAt: 1000, updatedAt: 1000 };
    await w.s.quotes.save(quote);
    const revoked = spy<unknown>('revoked');
    const moved = await w.s.quotes.transition(quoting.id, ['accepted'], 'revoked', 2000, { outbox: revoked.outbox });
    t.strictSame(revoked.calls, [moved], 'the outbox is given the moved quote');
    t.equal(moved?.state, 'revoked');
    t.strictSame(await queued(w), ['revoked'], 'and its job enqueued');
    const again = spy<unknown>('again');
    t.equal(await w.s.quotes.transition(quoting.id, ['accepted'], 'revoked', 3000, { outbox: again.outbox }), null, 'nothing moved');
    t.strictSame(again.calls, [null], 'the outbox is told so (and decides the jobs)');
    await queued(w);
  });

  it('reports: create with its outbox, get, list by state and account, update with the audit log', async (t, w) => {
    const reporter = await w.account({}, true);
    const target = await w.account({}, true);
    const other = await w.account({}, true);
    const moderator = await w.account({ role: 'Moderator' }, true);
    const report = (o: Partial<Report> = {}): Report => ({
      id: w.id(), accountId: reporter.id, targetAccountId: target.id, statusIds: [], comment: '', category: 'other', ruleIds: null, forwarded: false,
      assignedAccountId: null, actionTakenAt: null, actionTakenByAccountId: null, createdAt: 1000, updatedAt: 1000, ...o,
    });
    const first = report({ statusIds: [w.id(), w.id()], comment: 'spam, twice', category: 'spam' });
    const created = spy<Report>('report');
    await w.s.reports.create(first, created.outbox);
    t.strictSame(created.calls, [first], 'the outbox is given the report');
    t.strictSame(await queued(w), ['report'], 'and its job enqueued');
    t.strictSame(await w.s.reports.get(first.id), first, 'get returns it as created');
    t.equal(await w.s.reports.get(w.id()), null);
    t.equal(await w.s.reports.get('nope'), null);
    const second = report({ accountId: other.id, category: 'violation', ruleIds: ['1', '3'] });
    await w.s.reports.create(second);
    const third = report({ targetAccountId: other.id });
    await w.s.reports.create(third);
    t.strictSame(sortedIds(idsOf(await w.s.reports.getMany([third.id, 'x', first.id]))), sortedIds([first.id, third.id]));

    const page = { limit: 10 };
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false }, page)), [third.id, second.id, first.id], 'unresolved, newest first');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false, accountId: reporter.id }, page)), [third.id, first.id], 'by reporter');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false, targetAccountId: target.id }, page)), [second.id, first.id], 'by target');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false }, { limit: 1, maxId: third.id })), [second.id], 'paged');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false }, { limit: 1, minId: first.id })), [second.id], 'minId: right above');
    t.strictSame(await w.s.reports.list({ resolved: true }, page), []);

    const action = (what: string, targetId: string) => ({ id: w.id(), accountId: moderator.id, action: what, targetType: 'Report' as const, targetId, createdAt: 2000 });
    const resolve = action('resolve', first.id);
    const resolved = await w.s.reports.update(first.id, { actionTakenAt: 2000, actionTakenByAccountId: moderator.id, updatedAt: 2000 }, resolve);
    t.strictSame(resolved, { ...first, actionTakenAt: 2000, actionTakenByAccountId: moderator.id, updatedAt: 2000 });
    t.strictSame(await w.s.reports.get(first.id), resolved, 'stored');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: true }, page)), [first.id], 'resolved now');
    t.strictSame(idsOf(await w.s.reports.list({ resolved: false }, page)), [third.id, second.id]);
    const assign = action('assigned_to_self', second.id);
    t.strictSame(await w.s.reports.update(second.id, { assignedAccountId: moderator.id, category: 'other', ruleIds: null }, assign), { ...second, assignedAccountId: moderator.id, category: 'other', ruleIds: null });
    t.equal(await w.s.reports.update(w.id(), { assignedAccountId: null }, action('unassigned', first.id)), null, 'a missing report: null, and nothing logged');
    t.strictSame(await w.s.reports.actions({ limit: 10 }), [assign, resolve], 'the audit log, newest first');
    t.strictSame(await w.s.reports.actions({ limit: 1, maxId: assign.id }), [resolve]);
  });

  it('serverBlocks: unique keys per kind, paging, update, delete, each change in the audit log', async (t, w) => {
    const admin = await w.account();
    const action = (what: string, targetType: 'EmailDomainBlock' | 'IpBlock', targetId: string) => ({ id: w.id(), accountId: admin.id, action: what, targetType, targetId, createdAt: 3000 });
    const block = (kind: 'email_domain' | 'ip' | 'canonical_email', key: string, extra = {}) => ({ id: w.id(), kind, key, severity: null, comment: '', expiresAt: null, createdAt: 1000, updatedAt: 1000, ...extra });
    const a = block('email_domain', 'spam.example');
    const createA = action('create', 'EmailDomainBlock', a.id);
    t.equal(await w.s.serverBlocks.create(a, createA), true);
    t.equal(await w.s.serverBlocks.create(block('email_domain', 'spam.example'), action('create', 'EmailDomainBlock', w.id())), false, 'a key is unique within its kind');
    const b = block('email_domain', 'junk.example');
    await w.s.serverBlocks.create(b, action('create', 'EmailDomainBlock', b.id));
    const hash = block('canonical_email', 'spam.example');
    t.equal(await w.s.serverBlocks.create(hash, action('create', 'EmailDomainBlock', hash.id)), true, 'the same key in another kind');
    const ip = block('ip', '10.0.0.0/8', { severity: 'no_access', comment: 'lab', expiresAt: 9000 });
    await w.s.serverBlocks.create(ip, action('create', 'IpBlock', ip.id));

    t.strictSame(await w.s.serverBlocks.get('email_domain', a.id), a);
    t.equal(await w.s.serverBlocks.get('ip', a.id), null, 'another kind: none');
    t.equal(await w.s.serverBlocks.get('email_domain', 'nope'), null);
    t.strictSame(await w.s.serverBlocks.get('ip', ip.id), ip);
    t.strictSame(idsOf(await w.s.serverBlocks.list('email_domain', { limit: 10 })), [b.id, a.id], 'newest first, one kind');
    t.strictSame(idsOf(await w.s.serverBlocks.list('email_domain', { limit: 1, maxId: b.id })), [a.id]);
    t.strictSame(idsOf(await w.s.serverBlocks.list('email_domain', { limit: 1, minId: a.id })), [b.id]);
    t.strictSame(idsOf(await w.s.serverBlocks.withKeys('email_domain', ['x.spam.example', 'spam.example', 'example'])), [a.id]);
    t.strictSame(await w.s.serverBlocks.withKeys('email_domain', []), []);

    const edit = action('update', 'IpBlock', ip.id);
    const updated = await w.s.serverBlocks.update('ip', ip.id, { severity: 'sign_up_block', comment: '', expiresAt: null, updatedAt: 2000 }, edit);
    t.strictSame(updated, { ...ip, severity: 'sign_up_block', comment: '', expiresAt: null, updatedAt: 2000 });
    t.strictSame(await w.s.serverBlocks.get('ip', ip.id), updated, 'stored');
    const other = block('ip', '192.168.0.0/16');
    await w.s.serverBlocks.create(other, action('create', 'IpBlock', other.id));
    t.equal(await w.s.serverBlocks.update('ip', ip.id, { key: '192.168.0.0/16' }, action('update', 'IpBlock', ip.id)), false, "another block's key");
    t.equal(await w.s.serverBlocks.update('ip', w.id(), { comment: 'x' }, action('update', 'IpBlock', ip.id)), null, 'none: null');

    const destroy = action('destroy', 'EmailDomainBlock', a.id);
    t.strictSame(await w.s.serverBlocks.delete('email_domain', a.id, destroy), a);
    t.equal(await w.s.serverBlocks.delete('email_domain', a.id, action('destroy', 'EmailDomainBlock', a.id)), null, 'gone: null, nothing logged');
    t.equal(await w.s.serverBlocks.get('email_domain', a.id), null);
    const log = await w.s.reports.actions({ limit: 3 });
    t.strictSame(log.map((x) => [x.action, x.targetType, x.targetId]), [['destroy', 'EmailDomainBlock', a.id], ['create', 'IpBlock', other.id], ['update', 'IpBlock', ip.id]], 'the audit log, newest first');
    t.strictSame(log[0], destroy);
    t.equal((await w.s.reports.actions({ limit: 10 })).length, 7, 'every change, none of the refused');
    const elsewhere = { id: w.id(), accountId: admin.id, action: 'create', targetType: 'DomainBlock' as const, targetId: '17', createdAt: 4000 };
    await w.s.serverBlocks.record(elsewhere);
    t.strictSame((await w.s.reports.actions({ limit: 1 }))[0], elsewhere, 'an action on what another store keeps');
  });

  it('accounts.update: a profile edit and the user\'s settings in one step, with its outbox', async (t, w) => {
    const a = await w.account({}, true);
    const u = await w.s.accounts.getUser(a.id);
    if (u === null) throw new Error('an account made with a user has one');
    const settings = { ...u.settings, defaultVisibility: 'unlisted' as const, defaultSensitive: true, defaultLanguage: 'de' };
    const edit = spy<unknown>('profile');
    const updated = await w.s.accounts.update(a.id, { displayName: 'Renamed', bot: true }, { settings, outbox: edit.outbox });
    t.strictSame(updated, { ...a, displayName: 'Renamed', bot: true }, 'the account as updated');
    t.strictSame(edit.calls, [updated], 'the outbox is given the updated account');
    t.strictSame(await w.s.accounts.getUser(a.id), { ...u, settings }, 'the settings replaced with it');
    t.strictSame(await queued(w), ['profile'], 'and its job enqueued');
    const missing = spy<unknown>('missing');
    t.equal(await w.s.accounts.update(w.id(), { displayName: 'x' }, { settings, outbox: missing.outbox }), null);
    t.strictSame(missing.calls, [null], 'a missing account: the outbox is given null');
    t.strictSame(await queued(w), ['missing'], 'whatever it returns is enqueued');
  });

  it('outbox: a write enqueues the jobs its outbox returns, given the write\'s result', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const created = spy<unknown>('created');
    const s = status(w.id(), alice.id);
    await w.s.statuses.create(s, POST, { outbox: created.outbox, idempotency: { key: 'k', notBefore: T0 } });
    const again = spy<unknown>('again');
    await w.s.statuses.create(status(w.id(), alice.id), POST, { outbox: again.outbox, idempotency: { key: 'k', notBefore: T0 } });
    t.strictSame(created.calls, [{ created: true, status: await w.st(s.id) }], 'called once with the result');
    t.strictSame(again.calls, [{ created: false, existing: await w.st(s.id) }], 'an idempotent repeat still calls it, with its own result');
    const [job] = await w.s.jobs.claim(Number.MAX_SAFE_INTEGER / 2, 1, 1);
    t.strictSame([job?.name, job?.orderingKey, job?.payload], ['created', 'key:created', { result: { created: true, status: await w.st(s.id) } }], 'the job as the outbox built it');
    await w.s.jobs.complete(job ? [job.id] : []);
    t.strictSame(await queued(w), ['again']);

    const fav = spy<boolean>('fav');
    await w.s.interactions.favourite(mark(w.id(), bob.id, s.id), fav.outbox);
    await w.s.interactions.favourite(mark(w.id(), bob.id, s.id), fav.outbox);
    t.strictSame(fav.calls, [true, false], 'favourite: added, then not');
    const b = spy<unknown>('boost');
    const bst = boost(w.id(), bob.id, await w.st(s.id));
    await w.s.statuses.reblog(bst, b.outbox);
    t.equal((b.calls[0] as { created: boolean }).created, true, 'reblog');
    const upd = spy<unknown>('update');
    const current = await w.st(s.id);
    await w.s.statuses.update(s.id, { ...current, text: 'edited', editedAt: T0 + 9 }, [], { outbox: upd.outbox });
    t.equal((upd.calls[0] as Status).text, 'edited', 'update');
    const del = spy<unknown>('delete');
    await w.s.statuses.delete(s.id, T0 + 10, POST, del.outbox);
    t.strictSame((del.calls[0] as { boosts: Status[] }).boosts.map((x) => x.id), [bst.id], 'delete, with the boosts it removed');
    const gone = spy<unknown>('gone');
    await w.s.statuses.delete(s.id, T0 + 11, POST, gone.outbox);
    t.strictSame(gone.calls, [null], 'a second delete: null');

    const fol = spy<string>('follow');
    await w.s.relationships.follow(follow(w.id(), alice.id, bob.id), fol.outbox);
    await w.s.relationships.follow(follow(w.id(), alice.id, bob.id), fol.outbox);
    const req = spy<string>('request');
    await w.s.relationships.requestFollow(follow(w.id(), bob.id, alice.id), req.outbox);
    const blk = spy<boolean>('block');
    await w.s.relationships.block(block(w.id(), alice.id, bob.id), blk.outbox);
    await w.s.relationships.unblock(alice.id, bob.id, blk.outbox);
    await w.s.relationships.unblock(alice.id, bob.id, blk.outbox);
    const mut = spy<boolean>('mute');
    await w.s.relationships.mute(mute(w.id(), alice.id, bob.id), mut.outbox);
    await w.s.relationships.unmute(alice.id, bob.id, mut.outbox);
    const dom = spy<boolean>('domain');
    await w.s.relationships.blockDomain({ id: w.id(), accountId: alice.id, domain: 'Far.Example', createdAt: T0 }, dom.outbox);
    await w.s.relationships.blockDomain({ id: w.id(), accountId: alice.id, domain: 'far.example', createdAt: T0 }, dom.outbox);
    await w.s.relationships.unblockDomain(alice.id, 'FAR.example', dom.outbox);
    t.strictSame([fol.calls, req.calls, blk.calls, mut.calls, dom.calls], [['created', 'updated'], ['created'], [true, true, false], [true, true], [true, false, true]], 'follows, requests, blocks, mutes, domain blocks');

    const fil = spy<unknown>('filter');
    const f = filter(w.id(), alice.id);
    await w.s.filters.create(f, fil.outbox);
    await w.s.filters.replace({ ...f, title: 'renamed' }, fil.outbox);
    await w.s.filters.delete(f.id, fil.outbox);
    await w.s.filters.delete(f.id, fil.outbox);
    t.strictSame(fil.calls, [f, { ...f, title: 'renamed' }, true, false], 'filters');

    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const tok = token(w.id(), app.id, alice.id, { refreshTokenHash: 'r1' });
    const tok2 = token(w.id(), app.id, alice.id, { tokenHash: 'other' });
    await w.s.oauth.createToken(tok);
    await w.s.oauth.createToken(tok2);
    const rev = spy<unknown>('revoke');
    await w.s.oauth.revokeTokenByRefreshHash('r1', T0, rev.outbox);
    await w.s.oauth.revokeToken(tok2.id, T0, rev.outbox);
    await w.s.oauth.revokeToken(tok2.id, T0, rev.outbox);
    t.strictSame(rev.calls, [tok, true, false], 'token revocations');
    const usr = spy<unknown>('user');
    const withUser = await w.account({}, true);
    await w.s.accounts.updateUser(withUser.id, { disabled: true }, usr.outbox);
    t.equal((usr.calls[0] as { disabled: boolean }).disabled, true, 'updateUser');
    t.strictSame(
      (await queued(w)).sort(),
      ['block', 'block', 'block', 'boost', 'delete', 'domain', 'domain', 'domain', 'fav', 'fav', 'filter', 'filter', 'filter', 'filter', 'follow', 'follow', 'gone', 'mute', 'mute', 'request', 'revoke', 'revoke', 'revoke', 'update', 'user'],
      'one job per call, each stored with its write',
    );
  });

  it('outbox: unfavourite, unfollow and cancelFollowRequest record their jobs with the write', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const s = await w.post(alice.id);
    await w.s.interactions.favourite(mark(w.id(), bob.id, s.id));
    const unfav = spy<boolean>('unfav');
    t.equal(await w.s.interactions.unfavourite(bob.id, s.id, unfav.outbox), true);
    t.equal(await w.s.interactions.unfavourite(bob.id, s.id, unfav.outbox), false);
    t.equal((await w.st(s.id)).favouritesCount, 0, 'counter moved once');
    await w.s.relationships.follow(follow(w.id(), bob.id, alice.id));
    const unfol = spy<boolean>('unfollow');
    t.equal(await w.s.relationships.unfollow(bob.id, alice.id, unfol.outbox), true);
    t.equal(await w.s.relationships.unfollow(bob.id, alice.id, unfol.outbox), false);
    t.equal((await w.acct(alice.id)).followersCount, 0);
    await w.s.relationships.requestFollow(follow(w.id(), alice.id, bob.id));
    const cancel = spy<boolean>('cancel');
    t.equal(await w.s.relationships.cancelFollowRequest(alice.id, bob.id, cancel.outbox), true);
    t.equal(await w.s.relationships.cancelFollowRequest(alice.id, bob.id, cancel.outbox), false);
    t.strictSame([unfav.calls, unfol.calls, cancel.calls], [[true, false], [true, false], [true, false]], 'each outbox is given the result');
    t.strictSame((await queued(w)).sort(), ['cancel', 'cancel', 'unfav', 'unfav', 'unfollow', 'unfollow'], 'one job per call, stored with its write');
  });

  it('outbox: a write that fails enqueues nothing', async (t, w) => {
    const alice = await w.account();
    const taken = await w.post(alice.id);
    const called: unknown[] = [];
    const outbox = (r: unknown) => {
      called.push(r);
      return [{ name: 'never', payload: null }];
    };
    await rejectsConflict(t, w.s.statuses.create(status(taken.id, alice.id), POST, { outbox }), 'id', 'the write is refused');
    t.strictSame(called, [], 'the outbox is not asked');
    t.equal(await w.s.jobs.size(), 0, 'and no job exists');
  });

  durable('outbox: the jobs of a write survive a reopen with it', async (t, w) => {
    const alice = await w.account();
    const s = status(w.id(), alice.id);
    await w.s.statuses.create(s, POST, { outbox: () => [{ name: 'durable', payload: { id: s.id }, orderingKey: 'k' }] });
    await w.reopen();
    t.strictSame(await queued(w), ['durable']);
    t.strictSame((await w.st(s.id)).id, s.id);
  });

  // ---- notifications made once per key, domain blocks, what an account hides ------------------

  it('notifications: with a key, created once per recipient', async (t, w) => {
    const alice = await w.account();
    const bob = await w.account();
    const calls: boolean[] = [];
    const outbox = (created: boolean) => {
      calls.push(created);
      return created ? [{ name: 'announce', payload: null }] : [];
    };
    t.equal(await w.s.notifications.create(notification(w.id(), alice.id, bob.id), { key: 'e1:mention', outbox }), true);
    t.equal(await w.s.notifications.create(notification(w.id(), alice.id, bob.id), { key: 'e1:mention', outbox }), false, 'the same key again: nothing');
    t.equal(await w.s.notifications.create(notification(w.id(), bob.id, alice.id), { key: 'e1:mention', outbox }), true, 'another recipient, same key');
    t.equal(await w.s.notifications.create(notification(w.id(), alice.id, bob.id)), true, 'without a key: always');
    t.strictSame(calls, [true, false, true]);
    t.equal((await w.s.notifications.list(alice.id, {}, { limit: 10 })).length, 2);
    t.equal(await w.s.jobs.size(), 2, 'one announcement per created notification');
  });

  it('domain blocks: per account, lower case, paged; relationships and hiddenState see them', async (t, w) => {
    const alice = await w.account();
    const far = await w.account({ username: 'far', domain: 'Far.Example' });
    const near = await w.account();
    t.equal(await w.s.relationships.blockDomain({ id: w.id(), accountId: alice.id, domain: 'FAR.example', createdAt: T0 }), true);
    const second = w.id();
    t.equal(await w.s.relationships.blockDomain({ id: second, accountId: alice.id, domain: 'other.example', createdAt: T0 }), true);
    t.equal(await w.s.relationships.blockDomain({ id: w.id(), accountId: alice.id, domain: 'far.example', createdAt: T0 }), false, 'once per domain');
    const blocks = await w.s.relationships.domainBlocksBy(alice.id, { limit: 10 });
    t.strictSame(blocks.map((b) => b.domain), ['other.example', 'far.example'], 'newest first, stored lower case');
    t.strictSame((await w.s.relationships.domainBlocksBy(alice.id, { limit: 10, maxId: second })).map((b) => b.domain), ['far.example'], 'paged by their id');
    const [toFar, toNear] = await w.s.relationships.relationships(alice.id, [far.id, near.id]);
    t.strictSame([toFar?.domainBlocking, toNear?.domainBlocking], [true, false], 'relationships: domainBlocking');
    t.equal(await w.s.relationships.unblockDomain(alice.id, 'Far.Example'), true);
    t.equal(await w.s.relationships.unblockDomain(alice.id, 'far.example'), false);
    t.strictSame((await w.s.relationships.hiddenState(alice.id, T0)).domains, ['other.example']);
  });

  it('hiddenState: blocks both ways, live mutes with their end, domains', async (t, w) => {
    const me = await w.account();
    const [a, b, c, d] = [await w.account(), await w.account(), await w.account(), await w.account()];
    await w.s.relationships.block(block(w.id(), me.id, a.id));
    await w.s.relationships.block(block(w.id(), b.id, me.id));
    await w.s.relationships.mute(mute(w.id(), me.id, c.id, { expiresAt: T0 + 1000 }));
    await w.s.relationships.mute(mute(w.id(), me.id, d.id, { expiresAt: T0 - 1 }));
    await w.s.relationships.blockDomain({ id: w.id(), accountId: me.id, domain: 'x.example', createdAt: T0 });
    const hidden = await w.s.relationships.hiddenState(me.id, T0);
    t.strictSame(
      { ...hidden, blocking: sortedIds(hidden.blocking), blockedBy: sortedIds(hidden.blockedBy) },
      { blocking: [a.id], blockedBy: [b.id], muting: [{ accountId: c.id, expiresAt: T0 + 1000 }], domains: ['x.example'] },
      'an expired mute is left out',
    );
    t.strictSame(await w.s.relationships.hiddenState(a.id, T0), { blocking: [], blockedBy: [me.id], muting: [], domains: [] });
  });

  // ---- several connections ---------------------------------------------------------------------

  shared('atomic operations raced across two connections', async (t, w, other) => {
    const alice = await w.account();
    const bob = await w.account();
    const conns = [w.s, other];
    const s = await w.post(alice.id);
    t.equal((await other.statuses.get(s.id))?.id, s.id, 'the second connection sees committed writes');

    const favs = await Promise.all(conns.map((c) => c.interactions.favourite(mark(w.id(), bob.id, s.id))));
    t.equal(count(favs, true), 1, 'favourite on both: one true');
    const boosts = await Promise.all(conns.map((c) => c.statuses.reblog(boost(w.id(), bob.id, s))));
    t.equal(boosts.filter((r) => r.created).length, 1, 'reblog on both: one created');
    const follows = await Promise.all(conns.map((c) => c.relationships.follow(follow(w.id(), bob.id, alice.id))));
    t.equal(count(follows, 'created'), 1, 'follow on both: one created');
    const created = await Promise.all(conns.map((c) => c.statuses.create(status(w.id(), alice.id), POST, { idempotency: { key: 'k', notBefore: T0 } })));
    t.equal(created.filter((r) => r.created).length, 1, 'idempotent create on both: one status');
    const pinTargets: Status[] = [];
    for (let i = 0; i < 8; i += 1) pinTargets.push(await w.post(alice.id));
    const pins = await Promise.all(pinTargets.map((p, i) => conns[i % 2]!.interactions.pin(mark(w.id(), alice.id, p.id), 5)));
    t.equal(count(pins, 'added'), 5, 'pins split over both with max 5: five added');
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const c = code(w.id(), app.id, alice.id);
    await w.s.oauth.createCode(c);
    const consumed = await Promise.all(conns.map((x) => x.oauth.consumeCode(c.codeHash, T0 + 1)));
    t.equal(consumed.filter((r) => r !== null).length, 1, 'consumeCode on both: one gets it');
    const versions = await Promise.all([0, 1, 2, 3].map((i) => conns[i % 2]!.markers.set(alice.id, 'home', s.id, T0 + i)));
    t.strictSame(versions.map((m) => m.version).sort(), [0, 1, 2, 3], 'markers on both: distinct versions');
    await w.s.statuses.create(status(w.id(), alice.id), POST);

    const fromOther = must(await other.statuses.get(s.id), 'status via the second connection');
    t.strictSame([fromOther.favouritesCount, fromOther.reblogsCount], [1, 1], 'counters seen from the second connection');
    const a = must(await other.accounts.get(alice.id), 'alice');
    const b = must(await other.accounts.get(bob.id), 'bob');
    t.strictSame([a.statusesCount, a.followersCount, b.statusesCount, b.followingCount], [1 + 1 + 8 + 1, 1, 1, 1], 'account counters seen from the second connection');
  });

  // ---- durability ------------------------------------------------------------------------------

  durable('durability: everything written is there after a reopen', async (t, w) => {
    const alice = await w.account({}, true);
    const bob = await w.account({ username: 'bob' }, true);
    const p = await w.post(alice.id, { tags: ['kept'], mentionIds: [bob.id], createdAt: T0 + 50 }, POST);
    const r = await w.post(bob.id, { inReplyToId: p.id, inReplyToAccountId: alice.id, conversationId: p.conversationId }, replyTo(p.id));
    await w.s.interactions.favourite(mark(w.id(), bob.id, p.id));
    await w.s.interactions.bookmark(mark(w.id(), bob.id, p.id));
    await w.s.interactions.pin(mark(w.id(), alice.id, p.id), 5);
    const b = boost(w.id(), bob.id, p);
    await w.s.statuses.reblog(b);
    await w.s.relationships.follow(follow(w.id(), bob.id, alice.id));
    const app = application(w.id());
    await w.s.oauth.createApplication(app);
    const tok = token(w.id(), app.id, alice.id);
    await w.s.oauth.createToken(tok);
    await w.s.oauth.revokeToken(tok.id, T0 + 77);
    await w.s.markers.set(alice.id, 'home', p.id, T0 + 1);
    await w.s.markers.set(alice.id, 'home', r.id, T0 + 2);
    const key = { key: 'durable', notBefore: T0 };
    await w.s.statuses.create(status(w.id(), bob.id), POST, { idempotency: key });
    const before = {
      alice: await w.acct(alice.id),
      bob: await w.acct(bob.id),
      p: await w.st(p.id),
    };

    await w.reopen();
    t.strictSame(await w.s.accounts.get(alice.id), before.alice, 'account with counters');
    t.strictSame(await w.s.accounts.get(bob.id), before.bob, 'second account');
    t.strictSame([before.alice.statusesCount, before.alice.followersCount, before.bob.statusesCount], [1, 1, 3], 'counters as written');
    t.equal((await w.s.accounts.findUserByEmail(user(alice.id).email))?.accountId, alice.id, 'user');
    t.strictSame(await w.s.statuses.get(p.id), before.p, 'status with its counters');
    t.strictSame([before.p.repliesCount, before.p.favouritesCount, before.p.reblogsCount], [1, 1, 1], 'those counters');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: [], orMentioning: bob.id, tag: 'kept' }, { limit: 5 })), [p.id], 'mentions and tags');
    const v = await w.s.interactions.viewerState(bob.id, [p.id], []);
    t.strictSame([v.favourited.has(p.id), v.bookmarked.has(p.id), v.reblogged.has(p.id)], [true, true, true], 'marks and boost');
    t.equal((await w.s.interactions.pinsBy(alice.id)).length, 1, 'pin');
    t.equal((await w.s.relationships.getFollow(bob.id, alice.id))?.accountId, bob.id, 'follow');
    t.equal((await w.s.oauth.findTokenByHash(tok.tokenHash))?.revokedAt, T0 + 77, 'token, revoked');
    t.strictSame((await w.s.markers.get(alice.id, ['home'])).map((m) => [m.lastReadId, m.version]), [[r.id, 1]], 'marker and version');
    const again = await w.s.statuses.create(status(w.id(), bob.id), POST, { idempotency: key });
    t.equal(again.created, false, 'idempotency keys are stored, not cached in memory');
    t.equal(await w.s.interactions.favourite(mark(w.id(), bob.id, p.id)), false, 'flags still decide after a reopen');
  });

  durable('durability: a failed atomic write leaves nothing behind after a reopen', async (t, w) => {
    const bob = await w.account();
    const a = account(w.id(), { username: bob.username.toUpperCase() });
    await rejectsConflict(t, w.s.accounts.create(a, user(a.id)), 'username', 'username conflict');

    await w.reopen();
    t.equal(await w.s.accounts.get(a.id), null, 'no account');
    t.equal(await w.s.accounts.getUser(a.id), null, 'no user');
  });
}
