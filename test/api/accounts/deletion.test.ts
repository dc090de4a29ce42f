// Deleting an account, by each way it comes about: its owner in the web pages (with the
// password), an admin (DELETE /api/v1/admin/accounts/:id), an embedding app
// (rookery.accounts.delete). Gone at once (tokens refused, profile 404, no sign-in), its data
// removed by the background job, its username never given again.

import t, { type Test } from 'tap';
import { openPostgresStorage } from '../../../adapters/postgres/index.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { testPostgres } from '../../helpers/postgres.ts';
import { Browser, forms, PASSWORD } from '../../helpers/oauth.ts';

const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];

async function post(h: Harness, user: TestUser, status: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/statuses', { token: user.token, payload: { status } });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json.id as string;
}

/** alice and bob know each other: follows both ways, a favourite and a boost each way, a mention. */
async function acquainted(h: Harness, alice: TestUser, bob: TestUser) {
  t.equal((await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token })).statusCode, 200);
  t.equal((await h.request('POST', `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token })).statusCode, 200);
  const aliceSaid = await post(h, alice, 'hello @bob');
  const bobSaid = await post(h, bob, 'hi all');
  await h.request('POST', `/api/v1/statuses/${bobSaid}/favourite`, { token: alice.token });
  await h.request('POST', `/api/v1/statuses/${bobSaid}/reblog`, { token: alice.token });
  await h.request('POST', `/api/v1/statuses/${aliceSaid}/favourite`, { token: bob.token });
  await h.request('POST', `/api/v1/statuses/${bobSaid}/bookmark`, { token: alice.token });
  return { aliceSaid, bobSaid };
}

async function signIn(h: Harness, login: string, password = PASSWORD): Promise<{ browser: Browser; status: number }> {
  const browser = new Browser(h);
  const form = forms((await browser.get('/auth/sign_in')).body)[0]!;
  const res = await browser.post('/auth/sign_in', { ...form.fields, 'user[email]': login, 'user[password]': password });
  return { browser, status: res.statusCode };
}

/** What bob sees of alice once she is gone (after the background job). */
async function goneFor(t: Test, h: Harness, alice: TestUser, bob: TestUser, said: { aliceSaid: string; bobSaid: string }) {
  const status = (r: { statusCode: number; json: unknown }) => [r.statusCode, r.json];
  t.strictSame(status(await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: bob.token })), [404, { error: 'Record not found' }], 'the profile is gone');
  t.strictSame(status(await h.request('GET', '/api/v1/accounts/lookup?acct=alice', { token: bob.token })), [404, { error: 'Record not found' }], 'lookup too');
  t.strictSame(status(await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token })), [401, { error: 'The access token is invalid' }], 'her token is refused');
  t.equal((await h.request('GET', `/api/v1/statuses/${said.aliceSaid}`, { token: bob.token })).statusCode, 404, 'her status is gone');
  const bobNow = (await h.request('GET', `/api/v1/accounts/${bob.account.id}`, { token: bob.token })).json;
  t.strictSame([bobNow.followers_count, bobNow.following_count], [0, 0], 'the follows both ways are gone');
  const bobStatus = (await h.request('GET', `/api/v1/statuses/${said.bobSaid}`, { token: bob.token })).json;
  t.strictSame([bobStatus.favourites_count, bobStatus.reblogs_count], [0, 0], 'her favourite and boost are withdrawn');
  const notifications = (await h.request('GET', '/api/v1/notifications', { token: bob.token })).json as { account: { id: string } }[];
  t.strictSame(notifications.filter((n) => n.account.id === alice.account.id), [], 'her notifications to bob are gone');
  const home = (await h.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as { id: string }[];
  t.notOk(home.some((s) => s.id === said.aliceSaid), 'gone from his home');
  t.equal((await signIn(h, 'alice')).status, 401, 'nobody signs in as her');
  t.strictSame(await h.core.storage.interactions.bookmarksBy(alice.account.id, { limit: 10 }), [], 'her bookmarks are gone');
  const app = await h.app(['read', 'write']);
  const again = await h.request('POST', '/api/v1/accounts', { token: app.token, payload: { username: 'alice', email: 'alice@example.com', password: 'a good password', agreement: 'true' } });
  t.equal(again.statusCode, 422, 'the username stays reserved');
  t.equal(again.json.details.email, undefined, 'the e-mail address is free again');
  t.match(again.json, { error: 'Validation failed: Username is already taken', details: { username: [{ error: 'ERR_TAKEN', description: 'is already taken' }] } });
}

t.test('the owner deletes the account from the web pages, with the password', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const said = await acquainted(h, alice, bob);

  const anonymous = await new Browser(h).get('/settings/delete');
  t.strictSame([anonymous.statusCode, anonymous.location], [302, '/auth/sign_in'], 'signed out: off to sign in');
  const { browser } = await signIn(h, 'alice');
  const shown = await browser.get('/settings/delete');
  t.equal(shown.statusCode, 200);
  t.match(shown.body, 'Signed in as <strong>@alice@rookery.test</strong>');
  const form = forms(shown.body).find((f) => f.action === '/settings/delete');
  if (form === undefined) throw new Error('no form');
  t.equal(form.fields['_method'], 'delete');

  const forged = await browser.post('/settings/delete', { 'form[password]': PASSWORD });
  t.equal(forged.statusCode, 403, 'no CSRF token: refused');
  const wrong = await browser.post('/settings/delete', { ...form.fields, 'form[password]': 'not the password' });
  t.equal(wrong.statusCode, 422);
  t.match(wrong.body, 'The information you entered was not correct');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: bob.token })).statusCode, 200, 'still there');

  const done = await browser.post('/settings/delete', { ...form.fields, 'form[password]': PASSWORD });
  t.equal(done.statusCode, 200);
  t.match(done.body, 'Your account was successfully deleted');
  t.strictSame([(await browser.get('/settings/delete')).statusCode], [302], 'the session ended with it');
  await h.rookery.drain();
  await goneFor(t, h, alice, bob, said);
});

t.test('an admin deletes an account: permission, the admin entity, the audit log', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  const owner = await h.user('olga', { role: 'Owner', scopes: ADMIN_SCOPES });
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const said = await acquainted(h, alice, bob);
  const del = (id: string, token: string) => h.request('DELETE', `/api/v1/admin/accounts/${id}`, { token });
  const status = (r: { statusCode: number; json: unknown }) => [r.statusCode, r.json];

  t.strictSame(status(await del(alice.account.id, mia.token)), [403, { error: 'This action is not allowed' }], 'a moderator may not delete user data');
  t.strictSame(status(await del(alice.account.id, bob.token)), [403, { error: 'This action is outside the authorized scopes' }], 'a user token lacks the admin scopes');
  t.strictSame(status(await del(owner.account.id, ada.token)), [403, { error: 'This action is not allowed' }], 'an admin may not delete the owner');
  t.strictSame(status(await del('123456', ada.token)), [404, { error: 'Record not found' }]);
  t.strictSame(status(await del('nope', ada.token)), [404, { error: 'Record not found' }]);

  t.strictSame(status(await del(alice.account.id, ada.token)), [403, { error: 'This action is not allowed' }], 'not suspended yet: refused, as Mastodon');
  const suspend = (id: string, token: string) => h.request('POST', `/api/v1/admin/accounts/${id}/action`, { token, payload: { type: 'suspend' } });
  t.equal((await suspend(alice.account.id, ada.token)).statusCode, 200);
  const done = await h.request('DELETE', `/api/v1/admin/accounts/${alice.account.id}`, { token: ada.token, drain: false });
  t.equal(done.statusCode, 200, done.body);
  const before = await h.request('GET', `/api/v1/statuses/${said.aliceSaid}`, { token: bob.token, drain: false });
  t.equal(before.statusCode, 404, 'her statuses are gone at once, before the background removal');
  const bobsNotifications = (await h.request('GET', '/api/v1/notifications', { token: bob.token, drain: false })).json as { account: { id: string } }[];
  t.notOk(bobsNotifications.some((n) => n.account.id === alice.account.id), 'and her notifications');
  await h.rookery.drain();
  t.match(done.json, { id: alice.account.id, username: 'alice', domain: null, email: 'alice@example.com', account: { id: alice.account.id, username: 'alice' } }, 'the admin Account entity, as it was');
  t.strictSame(status(await del(alice.account.id, ada.token)), [404, { error: 'Record not found' }], 'deleted already: gone');
  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(
    log.map((a) => [a.accountId, a.action, a.targetType, a.targetId]),
    [[ada.account.id, 'destroy', 'Account', alice.account.id], [ada.account.id, 'suspend', 'Account', alice.account.id]],
    'recorded in the audit log, after the suspension',
  );
  await goneFor(t, h, alice, bob, said);
  t.equal((await suspend(ada.account.id, owner.token)).statusCode, 200);
  t.equal((await del(ada.account.id, owner.token)).statusCode, 200, 'the owner may delete an admin');
});

t.test('an embedding app deletes an account through rookery.accounts', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const said = await acquainted(h, alice, bob);
  const lena = await h.user('lena');
  await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: lena.token, payload: { locked: 'true' } });
  await h.request('POST', `/api/v1/accounts/${lena.account.id}/follow`, { token: alice.token });
  t.equal(((await h.request('GET', '/api/v1/follow_requests', { token: lena.token })).json as unknown[]).length, 1, 'alice asked to follow lena');
  await h.rookery.accounts.delete(alice.account.id);
  await h.rookery.drain();
  await goneFor(t, h, alice, bob, said);
  t.strictSame((await h.request('GET', '/api/v1/follow_requests', { token: lena.token })).json, [], 'her pending request is gone');
  await t.rejects(h.rookery.accounts.delete(alice.account.id), { status: 404, message: 'Record not found' }, 'deleted already');
  await t.rejects(h.rookery.accounts.delete('12345'), { status: 404, message: 'Record not found' });
  await t.rejects(h.rookery.accounts.create({ username: 'ALICE', email: 'other@example.com' }), { status: 422, message: 'Validation failed: Username is already taken' }, 'the username stays reserved, whatever its case');
});

t.test('the background removal goes in bounded batches, and a run that dies is run again', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token });
  for (let i = 0; i < 230; i += 1) await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: `post ${i}` }, drain: false });
  await h.rookery.drain();
  const { deleteAccount, purgeStep } = await import('../../../core/domain/accounts/delete.ts');
  const account = await h.core.storage.accounts.get(alice.account.id);
  if (account === null) throw new Error('no account');
  // One step by hand, as a run that died after it would leave things: a hundred statuses gone.
  t.equal(await purgeStep(h.core, account), true, 'more to do');
  t.equal((await h.core.storage.accounts.get(alice.account.id))?.statusesCount, 130, 'one batch of a hundred');
  await deleteAccount(h.core, account, { kind: 'operator' });
  await h.rookery.drain();
  const after = await h.core.storage.accounts.get(alice.account.id);
  t.strictSame([after?.statusesCount, after?.followersCount, after?.deletedAt !== null], [0, 0, true], 'the job finished the rest');
  t.strictSame(await h.core.storage.statuses.query({ visibilities: ['public', 'unlisted', 'private', 'direct'], authorId: alice.account.id }, { limit: 10 }), []);
  t.equal(await purgeStep(h.core, account), false, 'nothing left');
});

t.test('on PostgreSQL: deleted by an admin, gone at once, its data removed', async (t) => {
  const server = await testPostgres((fn) => t.teardown(fn));
  const h = await harness({ storage: await openPostgresStorage({ url: server.url, pool: 4 }) });
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const said = await acquainted(h, alice, bob);
  t.equal((await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/action`, { token: ada.token, payload: { type: 'suspend' } })).statusCode, 200);
  t.equal((await h.request('DELETE', `/api/v1/admin/accounts/${alice.account.id}`, { token: ada.token })).statusCode, 200);
  await goneFor(t, h, alice, bob, said);
});
