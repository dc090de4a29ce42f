// Moving an account within one instance, through the settings pages: the new account names the
// old one among its aliases (/settings/aliases), the old one moves (/settings/migration, with
// its password); the old one shows `moved`, and its followers now follow the new one.

import t from 'tap';
import { harness, type Harness } from '../../helpers/harness.ts';
import { Browser, forms, PASSWORD } from '../../helpers/oauth.ts';

async function signedIn(h: Harness, login: string): Promise<Browser> {
  const browser = new Browser(h);
  const form = forms((await browser.get('/auth/sign_in')).body)[0]!;
  const res = await browser.post('/auth/sign_in', { ...form.fields, 'user[email]': login, 'user[password]': PASSWORD });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode}`);
  return browser;
}

/** The first form of a page that posts to `action`, filled with `values`. */
async function submit(browser: Browser, path: string, values: Record<string, string>, pick = (f: { fields: Record<string, string> }) => f.fields['_method'] === undefined) {
  const form = forms((await browser.get(path)).body).find((f) => f.action === path && pick(f));
  if (form === undefined) throw new Error(`no form on ${path}`);
  return browser.post(path, { ...form.fields, ...values });
}

t.test('aliases, then the move: moved shows, local followers follow the new account', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const anna = await h.user('anna');
  const bob = await h.user('bob');
  const cleo = await h.user('cleo');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token, payload: { reblogs: 'false', notify: 'true' } });
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: cleo.token });
  await h.request('POST', `/api/v1/accounts/${cleo.account.id}/block`, { token: anna.token });
  const dora = await h.user('dora');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/block`, { token: dora.token });

  t.strictSame([(await new Browser(h).get('/settings/aliases')).statusCode, (await new Browser(h).get('/settings/migration')).statusCode], [302, 302], 'signed out: off to sign in');
  const old = await signedIn(h, 'alice');
  const premature = await submit(old, '/settings/migration', { 'account_migration[acct]': 'anna', 'account_migration[current_password]': PASSWORD });
  t.equal(premature.statusCode, 422);
  t.match(premature.body, 'Handle of the new account is not an alias of this account', 'the new account must name the old one first');

  const fresh = await signedIn(h, 'anna');
  const unknown = await submit(fresh, '/settings/aliases', { 'account_alias[acct]': 'nobody' });
  t.strictSame([unknown.statusCode, unknown.body.includes('Handle of the old account could not be found')], [422, true]);
  const self = await submit(fresh, '/settings/aliases', { 'account_alias[acct]': '@anna' });
  t.match(self.body, 'Handle of the old account cannot be current account');
  const forged = await fresh.post('/settings/aliases', { 'account_alias[acct]': 'alice' });
  t.equal(forged.statusCode, 403, 'no CSRF token: refused');
  const added = await submit(fresh, '/settings/aliases', { 'account_alias[acct]': 'alice@rookery.test' });
  t.equal(added.statusCode, 200);
  t.match(added.body, 'Successfully created a new alias.');
  t.match(added.body, 'https://rookery.test/users/alice');
  t.strictSame((await h.core.storage.accounts.get(anna.account.id))?.alsoKnownAs, ['https://rookery.test/users/alice']);
  t.match((await submit(fresh, '/settings/aliases', { 'account_alias[acct]': 'alice' })).body, 'Handle of the old account has already been taken');

  const wrong = await submit(old, '/settings/migration', { 'account_migration[acct]': 'anna', 'account_migration[current_password]': 'not it' });
  t.strictSame([wrong.statusCode, wrong.body.includes('Current password is invalid')], [422, true]);
  t.match((await submit(old, '/settings/migration', { 'account_migration[acct]': 'alice', 'account_migration[current_password]': PASSWORD })).body, 'Handle of the new account cannot be current account');
  const moved = await submit(old, '/settings/migration', { 'account_migration[acct]': '@anna', 'account_migration[current_password]': PASSWORD });
  t.equal(moved.statusCode, 200, moved.body);
  t.match(moved.body, 'Your followers are being moved to the new account.');
  t.match(moved.body, 'This account moved to <strong>@anna@rookery.test</strong>');
  await h.rookery.drain();

  const profile = (await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: bob.token })).json;
  t.match(profile.moved, { id: anna.account.id, username: 'anna', acct: 'anna' }, 'the old account shows moved');
  t.equal((await h.request('GET', `/api/v1/accounts/${anna.account.id}`, { token: bob.token })).json.moved, undefined, 'the new one has no moved');
  const rel = (await h.request('GET', `/api/v1/accounts/relationships?id[]=${alice.account.id}&id[]=${anna.account.id}`, { token: bob.token })).json;
  t.match(rel, [{ id: alice.account.id, following: false }, { id: anna.account.id, following: true, showing_reblogs: false, notifying: true }], 'bob moved, his options kept');
  const cleoRel = (await h.request('GET', `/api/v1/accounts/relationships?id[]=${alice.account.id}&id[]=${anna.account.id}`, { token: cleo.token })).json;
  t.match(cleoRel, [{ following: true }, { following: false, blocked_by: true }], 'a follower the new account blocks is not moved');
  t.match((await h.request('GET', `/api/v1/accounts/relationships?id[]=${anna.account.id}`, { token: dora.token })).json, [{ blocking: true }], 'who blocked the old account blocks the new one');
  const again = await submit(old, '/settings/migration', { 'account_migration[acct]': 'anna', 'account_migration[current_password]': PASSWORD });
  t.match(again.body, 'Handle of the new account is the same account you have already moved to');

  const removed = await submit(fresh, '/settings/aliases', {}, (f) => f.fields['alias'] === 'https://rookery.test/users/alice');
  t.match(removed.body, 'Successfully removed the alias.');
  t.strictSame((await h.core.storage.accounts.get(anna.account.id))?.alsoKnownAs, []);
});
