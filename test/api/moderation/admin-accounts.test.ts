// The moderators' accounts API (Mastodon 4.4's /api/v1 and /api/v2/admin/accounts) and what
// its actions do to everyone else: exact codes, bodies and error texts, every action logged.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, links, post, remoteAccount } from '../../helpers/api.ts';
import { openSse } from '../../helpers/sse.ts';
import { publish } from '../../../core/domain/statuses/publish.ts';

const ADMIN_SCOPES = ['read', 'write', 'follow', 'admin:read', 'admin:write'];

async function setup(listen = false) {
  const h = await harness({ listen });
  const admin = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES, displayName: 'Ada Admin' });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  const alice = await h.user('alice', { displayName: 'Alice Liddell' });
  const bob = await h.user('bob');
  const plain = await h.user('plain', { scopes: ADMIN_SCOPES });
  return { h, admin, mia, alice, bob, plain };
}

t.test('a normal user, no token, a bad id', async (t) => {
  const { h, alice, plain, admin } = await setup();
  t.teardown(() => h.close());
  const id = alice.account.id;
  const calls: [string, string][] = [
    ['GET', '/api/v1/admin/accounts'],
    ['GET', '/api/v2/admin/accounts'],
    ['GET', `/api/v1/admin/accounts/${id}`],
    ['POST', `/api/v1/admin/accounts/${id}/approve`],
    ['POST', `/api/v1/admin/accounts/${id}/reject`],
    ['POST', `/api/v1/admin/accounts/${id}/enable`],
    ['POST', `/api/v1/admin/accounts/${id}/unsilence`],
    ['POST', `/api/v1/admin/accounts/${id}/unsuspend`],
    ['POST', `/api/v1/admin/accounts/${id}/unsensitive`],
    ['POST', `/api/v1/admin/accounts/${id}/action`],
  ];
  for (const [method, path] of calls) {
    const res = await h.request(method, path, { token: plain.token, payload: method === 'POST' ? { type: 'suspend' } : undefined });
    t.strictSame([res.statusCode, res.json], [403, { error: 'This action is not allowed' }], `${method} ${path}: a normal user`);
    const anonymous = await h.request(method, path);
    t.strictSame([anonymous.statusCode, anonymous.json], [403, { error: 'This action is not allowed' }], `${method} ${path}: no token`);
  }
  for (const bad of ['999999', 'x']) {
    for (const [method, path] of calls.slice(2)) {
      const res = await h.request(method, path.replace(id, bad), { token: admin.token, payload: method === 'POST' ? { type: 'none' } : undefined });
      t.strictSame([res.statusCode, res.json], [404, { error: 'Record not found' }], `${method} ${path} with ${bad}`);
    }
  }
  const reader = await h.user('reader', { role: 'Admin', scopes: ['read', 'admin:read'] });
  const denied = await h.request('POST', `/api/v1/admin/accounts/${id}/action`, { token: reader.token, payload: { type: 'none' } });
  t.strictSame([denied.statusCode, denied.json], [403, { error: 'This action is outside the authorized scopes' }]);
  t.equal((await h.request('GET', '/api/v1/admin/accounts', { token: reader.token })).statusCode, 200);
});

t.test('the Admin::Account entity and the listings with their filters', async (t) => {
  const { h, admin, mia, alice, plain } = await setup();
  t.teardown(() => h.close());
  const far = await remoteAccount(h, 'faraway', 'far.example');
  const shown = await h.request('GET', `/api/v1/admin/accounts/${alice.account.id}`, { token: mia.token });
  t.equal(shown.statusCode, 200);
  t.match(shown.json, {
    id: alice.account.id,
    username: 'alice',
    domain: null,
    email: 'alice@example.com',
    ip: null,
    ips: [],
    confirmed: true,
    approved: true,
    disabled: false,
    silenced: false,
    suspended: false,
    sensitized: false,
    account: { id: alice.account.id, username: 'alice', display_name: 'Alice Liddell' },
  });
  t.match(shown.json.created_at, /^\d{4}-\d\d-\d\dT/);
  t.match((await h.request('GET', `/api/v1/admin/accounts/${far.id}`, { token: mia.token })).json, { id: far.id, domain: 'far.example', email: null, role: null, confirmed: false, approved: false });

  const list = async (query: string, version = 'v1') => {
    const res = await h.request('GET', `/api/${version}/admin/accounts${query}`, { token: admin.token });
    t.equal(res.statusCode, 200, `${version} ${query}`);
    return ids(res.json);
  };
  const locals = [plain, alice, mia, admin].map((u) => u.account.id);
  t.strictSame(await list(''), (await list('?local=true')), 'v1: local by default');
  t.ok((await list('')).includes(alice.account.id));
  t.notOk((await list('')).includes(far.id), 'v1 default: no remote accounts');
  t.strictSame(await list('?remote=true'), [far.id]);
  t.strictSame(await list('?remote=true&by_domain=FAR.example'), [far.id]);
  t.strictSame(await list('?by_domain=elsewhere.example&remote=true'), []);
  t.strictSame(await list('?username=AL'), [alice.account.id], 'username: a prefix, case ignored');
  t.strictSame(await list('?display_name=liddell'), [alice.account.id], 'display name: contained');
  t.strictSame(await list('?email=alice@'), [alice.account.id]);
  t.strictSame(await list('?ip=127.0.0.1'), [], 'no sign-in addresses kept');
  t.strictSame(await list('?staff=true'), [mia.account.id, admin.account.id]);
  t.strictSame(await list('?pending=true'), []);
  t.strictSame((await list('?limit=2'))[0], locals[0], 'newest first');
  t.equal((await list('?limit=2')).length, 2);
  const paged = await h.request('GET', '/api/v1/admin/accounts?limit=2&username=a', { token: admin.token });
  t.strictSame(links(paged.headers), {
    next: `https://rookery.test/api/v1/admin/accounts?limit=2&username=a&max_id=${paged.json[1].id}`,
    prev: `https://rookery.test/api/v1/admin/accounts?limit=2&username=a&min_id=${paged.json[0].id}`,
  });

  t.ok((await list('', 'v2')).includes(far.id), 'v2: every account unless filtered');
  t.strictSame(await list('?origin=remote', 'v2'), [far.id]);
  t.strictSame(await list('?permissions=staff', 'v2'), [mia.account.id, admin.account.id]);
  t.strictSame(await list('?role_ids[]=1', 'v2'), [mia.account.id]);
  t.strictSame(await list('?role_ids[]=77', 'v2'), []);
  t.strictSame(await list('?invited_by=1', 'v2'), []);
  t.strictSame(await list('?origin=local&username=ad', 'v2'), [admin.account.id]);
  for (const [query, error] of [['?origin=mars', 'Unknown origin: mars'], ['?status=asleep', 'Unknown status: asleep']]) {
    const res = await h.request('GET', `/api/v2/admin/accounts${query}`, { token: admin.token });
    t.strictSame([res.statusCode, res.json], [400, { error }]);
  }
});

t.test('approve and reject pending sign-ups; enable a disabled user', async (t) => {
  const { h, admin, alice } = await setup();
  t.teardown(() => h.close());
  const pending = await h.user('newbie', { approved: false });
  const other = await h.user('other', { approved: false });
  const far = await remoteAccount(h, 'faraway');
  const list = await h.request('GET', '/api/v1/admin/accounts?pending=true', { token: admin.token });
  t.strictSame(ids(list.json), [other.account.id, pending.account.id]);
  t.match((await h.request('GET', '/api/v2/admin/accounts?status=pending', { token: admin.token })).json, [{ id: other.account.id, approved: false }, { id: pending.account.id }]);
  const refused = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: pending.token });
  t.strictSame([refused.statusCode, refused.json], [403, { error: 'Your login is currently pending approval' }]);

  const approved = await h.request('POST', `/api/v1/admin/accounts/${pending.account.id}/approve`, { token: admin.token });
  t.equal(approved.statusCode, 200);
  t.match(approved.json, { id: pending.account.id, approved: true });
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: pending.token })).statusCode, 200);
  t.strictSame((await h.request('POST', `/api/v1/admin/accounts/${pending.account.id}/approve`, { token: admin.token })).json, { error: 'This action is not allowed' }, 'approved already');
  t.equal((await h.request('POST', `/api/v1/admin/accounts/${pending.account.id}/reject`, { token: admin.token })).statusCode, 403, 'an approved user cannot be rejected');
  t.equal((await h.request('POST', `/api/v1/admin/accounts/${far.id}/approve`, { token: admin.token })).statusCode, 403, 'a remote account has no sign-up');

  const rejected = await h.request('POST', `/api/v1/admin/accounts/${other.account.id}/reject`, { token: admin.token });
  t.strictSame([rejected.statusCode, rejected.json], [200, {}]);
  t.strictSame((await h.request('GET', `/api/v1/admin/accounts/${other.account.id}`, { token: admin.token })).json, { error: 'Record not found' }, 'a rejected sign-up is gone');
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: other.token })).statusCode, 401, 'with its token');

  const disabled = await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/action`, { token: admin.token, payload: { type: 'disable' } });
  t.strictSame([disabled.statusCode, disabled.json], [200, {}]);
  t.match((await h.request('GET', `/api/v1/admin/accounts/${alice.account.id}`, { token: admin.token })).json, { disabled: true });
  t.strictSame(ids((await h.request('GET', '/api/v1/admin/accounts?disabled=true', { token: admin.token })).json), [alice.account.id]);
  const off = await h.request('GET', '/api/v1/timelines/home', { token: alice.token });
  t.strictSame([off.statusCode, off.json], [403, { error: 'Your login is currently disabled' }]);
  const grant = await h.request('POST', '/oauth/token', {
    payload: { grant_type: 'password', username: 'alice@example.com', password: 'correct horse battery', client_id: alice.application.clientId, client_secret: 'x', scope: 'read' },
  });
  t.not(grant.statusCode, 200, 'no new token either');
  const enabled = await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/enable`, { token: admin.token });
  t.match([enabled.statusCode, enabled.json], [200, { id: alice.account.id, disabled: false }]);
  t.equal((await h.request('GET', '/api/v1/timelines/home', { token: alice.token })).statusCode, 200, 'its token works again');

  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(
    log.map((a) => [a.action, a.targetType, a.targetId, a.accountId]),
    [
      ['enable', 'User', alice.account.id, admin.account.id],
      ['disable', 'User', alice.account.id, admin.account.id],
      ['reject', 'User', other.account.id, admin.account.id],
      ['approve', 'User', pending.account.id, admin.account.id],
    ],
  );
});

t.test('action: validation, roles, silence, sensitive and their undoing', async (t) => {
  const { h, admin, mia, alice, bob } = await setup();
  t.teardown(() => h.close());
  const act = (token: string, id: string, payload: Record<string, unknown>) => h.request('POST', `/api/v1/admin/accounts/${id}/action`, { token, payload });
  const cases: [Record<string, unknown>, number, string][] = [
    [{}, 422, "Validation failed: Type can't be blank, Type is not included in the list"],
    [{ type: 'ban' }, 422, 'Validation failed: Type is not included in the list'],
    [{ type: 'none', report_id: '999999' }, 404, 'Record not found'],
    [{ type: 'none', warning_preset_id: '1' }, 404, 'Record not found'],
  ];
  for (const [payload, status, error] of cases) {
    const res = await act(admin.token, alice.account.id, payload);
    t.strictSame([res.statusCode, res.json], [status, { error }], JSON.stringify(payload));
  }
  t.strictSame((await act(mia.token, admin.account.id, { type: 'suspend' })).json, { error: 'This action is not allowed' }, 'a moderator cannot suspend an admin');
  t.strictSame((await act(mia.token, alice.account.id, { type: 'disable' })).statusCode, 200, 'a moderator may disable a user');
  await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/enable`, { token: mia.token });

  await follow(h, bob, alice);
  const loud = await post(h, alice, 'loud and public');
  const carol = await h.user('carol');
  t.equal((await act(mia.token, alice.account.id, { type: 'silence' })).statusCode, 200);
  const shown = await h.request('GET', `/api/v1/admin/accounts/${alice.account.id}`, { token: mia.token });
  t.match(shown.json, { silenced: true, account: { limited: true } });
  const publicFor = async (token: string | null) => ids((await h.request('GET', '/api/v1/timelines/public', { token })).json);
  t.notOk((await publicFor(carol.token)).includes(loud.id), 'off the public timeline for a non-follower');
  t.notOk((await publicFor(null)).includes(loud.id), 'and for nobody signed in');
  t.ok((await publicFor(bob.token)).includes(loud.id), 'a follower still sees it');
  t.equal((await h.request('GET', `/api/v1/statuses/${loud.id}`, { token: carol.token })).statusCode, 200, 'the status itself is still there');
  t.strictSame(ids((await h.request('GET', '/api/v1/admin/accounts?silenced=true', { token: admin.token })).json), [alice.account.id]);
  t.equal((await post(h, alice, 'quieter now')).visibility, 'unlisted', 'a silenced author publishes public as unlisted');
  t.match((await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/unsilence`, { token: admin.token })).json, { silenced: false });
  t.ok((await publicFor(carol.token)).includes(loud.id), 'unsilenced: back');

  const pic = await post(h, bob, 'no warning');
  t.equal((await act(admin.token, bob.account.id, { type: 'sensitive' })).statusCode, 200);
  t.equal((await h.request('GET', `/api/v1/statuses/${pic.id}`, { token: carol.token })).json.sensitive, true, 'sensitized: rendered sensitive');
  t.strictSame(ids((await h.request('GET', '/api/v2/admin/accounts?status=sensitized', { token: admin.token })).json), [bob.account.id]);
  t.match((await h.request('POST', `/api/v1/admin/accounts/${bob.account.id}/unsensitive`, { token: admin.token })).json, { sensitized: false });
  t.equal((await h.request('GET', `/api/v1/statuses/${pic.id}`, { token: carol.token })).json.sensitive, false);
  t.strictSame((await h.request('POST', `/api/v1/admin/accounts/${bob.account.id}/unsuspend`, { token: admin.token })).json, { error: 'This action is not allowed' }, 'not suspended');

  const log = await h.core.storage.reports.actions({ limit: 20 });
  t.strictSame(
    log.map((a) => [a.action, a.targetType]),
    [
      ['unsensitive', 'Account'],
      ['sensitive', 'Account'],
      ['unsilence', 'Account'],
      ['silence', 'Account'],
      ['enable', 'User'],
      ['disable', 'User'],
    ],
  );
});

t.test('a report resolved with a suspension, seen from another user, over HTTP and a live stream', async (t) => {
  const { h, mia, alice, bob } = await setup(true);
  t.teardown(() => h.close());
  const carol = await h.user('carol');
  await follow(h, carol, bob);
  const bobPost = await post(h, bob, 'bob says hello');
  const reply = await post(h, carol, { status: '@bob hello back', in_reply_to_id: bobPost.id });
  const carolPost = await post(h, carol, 'carol says hi');
  await h.request('POST', `/api/v1/statuses/${carolPost.id}/favourite`, { token: bob.token });
  t.strictSame(ids((await h.request('GET', `/api/v1/statuses/${carolPost.id}/favourited_by`, { token: carol.token })).json), [bob.account.id]);
  const report = await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: bob.account.id, status_ids: [bobPost.id], comment: 'rude' } });
  t.equal(report.statusCode, 200);

  const base = `${h.core.config.baseUrl}/api/v1/streaming`;
  const bobStream = await openSse(`${base}/user`, { authorization: `Bearer ${bob.token}` });
  const carolStream = await openSse(`${base}/public`, { authorization: `Bearer ${carol.token}` });
  t.teardown(() => {
    bobStream.close();
    carolStream.close();
  });
  t.equal(bobStream.status, 200);
  const before = await post(h, bob, 'still here');
  await carolStream.next((e) => e.event === 'update' && JSON.parse(e.data).id === before.id);

  const suspended = await h.request('POST', `/api/v1/admin/accounts/${bob.account.id}/action`, { token: mia.token, payload: { type: 'suspend', report_id: report.json.id, text: 'Be nice' } });
  t.strictSame([suspended.statusCode, suspended.json], [200, {}]);
  await bobStream.ended;
  t.pass("the suspended user's stream ended");

  t.strictSame(ids((await h.request('GET', '/api/v1/admin/accounts?suspended=true', { token: mia.token })).json), [bob.account.id]);
  t.notOk(ids((await h.request('GET', '/api/v1/admin/accounts', { token: mia.token })).json).includes(bob.account.id), 'v1 lists active accounts by default');
  const resolved = await h.request('GET', `/api/v1/admin/reports/${report.json.id}`, { token: mia.token });
  t.match(resolved.json, { action_taken: true, action_taken_by_account: { id: mia.account.id }, target_account: { id: bob.account.id, suspended: true } });

  const profile = await h.request('GET', `/api/v1/accounts/${bob.account.id}`, { token: carol.token });
  t.equal(profile.statusCode, 200);
  t.match(profile.json, { id: bob.account.id, suspended: true, display_name: '', note: '', fields: [], emojis: [] });
  const statuses = await h.request('GET', `/api/v1/accounts/${bob.account.id}/statuses`, { token: carol.token });
  t.strictSame([statuses.statusCode, statuses.json], [200, []]);
  t.strictSame((await h.request('GET', `/api/v1/statuses/${bobPost.id}`, { token: carol.token })).json, { error: 'Record not found' });
  const thread = await h.request('GET', `/api/v1/statuses/${reply.id}/context`, { token: carol.token });
  t.strictSame(thread.json.ancestors, [], 'gone from threads');
  t.notOk(ids((await h.request('GET', '/api/v1/timelines/home', { token: carol.token })).json).some((id) => id === bobPost.id || id === before.id), 'gone from home');
  t.notOk(ids((await h.request('GET', '/api/v1/timelines/public', { token: carol.token })).json).includes(before.id), 'gone from public');
  t.strictSame((await h.request('GET', '/api/v2/search?q=bob&type=accounts', { token: carol.token })).json.accounts, [], 'not found by search');
  const followed = await h.request('POST', `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });
  t.strictSame([followed.statusCode, followed.json], [404, { error: 'Record not found' }], 'nobody can follow it');
  t.strictSame((await h.request('GET', `/api/v1/accounts/relationships?id[]=${bob.account.id}`, { token: carol.token })).json, [], 'relationships leave it out');
  t.strictSame((await h.request('GET', `/api/v1/accounts/${carol.account.id}/following`, { token: carol.token })).json, [], 'and lists of follows');
  t.strictSame((await h.request('GET', `/api/v1/accounts/${bob.account.id}/followers`, { token: carol.token })).json, [], 'its own lists are empty');
  t.strictSame((await h.request('GET', `/api/v1/statuses/${carolPost.id}/favourited_by`, { token: carol.token })).json, [], 'and who favourited');
  t.match((await h.request('GET', `/api/v1/accounts/relationships?id[]=${bob.account.id}&with_suspended=true`, { token: carol.token })).json, [{ id: bob.account.id, following: true }], 'unless asked');

  const refused = await h.request('GET', '/api/v1/timelines/home', { token: bob.token });
  t.strictSame([refused.statusCode, refused.json], [403, { error: 'Your login is currently disabled' }], "the suspended user's token is refused");
  const again = await openSse(`${base}/user`, { authorization: `Bearer ${bob.token}` });
  t.strictSame([again.status, JSON.parse(again.body)], [401, { error: 'Invalid access token' }], 'and so is a new stream');

  // A status published for it anyway (a scheduled one, an embedding app's) reaches nobody:
  // carol's next status arrives, and bob's did not before it.
  const suspendedBob = await h.core.storage.accounts.get(bob.account.id);
  if (suspendedBob === null) throw new Error('bob is still stored');
  const late = await publish(h.core, { account: suspendedBob, user: await h.core.storage.accounts.getUser(bob.account.id), applicationId: null }, { status: 'published while suspended' }, null);
  await h.rookery.drain();
  if (late.kind !== 'status') throw new Error('published');
  const after = await post(h, carol, 'carol after');
  await carolStream.next((e) => e.event === 'update' && JSON.parse(e.data).id === after.id);
  t.notOk(carolStream.events.some((e) => e.event === 'update' && JSON.parse(e.data).id === late.status.id), 'no more statuses of the suspended account on streams');
  t.notOk(ids((await h.request('GET', '/api/v1/timelines/home', { token: carol.token })).json).includes(late.status.id), 'nor on timelines');

  const restored = await h.request('POST', `/api/v1/admin/accounts/${bob.account.id}/unsuspend`, { token: mia.token });
  t.match([restored.statusCode, restored.json], [200, { id: bob.account.id, suspended: false, account: { username: 'bob', discoverable: true } }]);
  t.notOk('suspended' in restored.json.account);
  t.equal((await h.request('GET', `/api/v1/statuses/${bobPost.id}`, { token: carol.token })).statusCode, 200, 'unsuspended: back');
  t.ok(ids((await h.request('GET', '/api/v1/timelines/home', { token: carol.token })).json).includes(bobPost.id));
  t.strictSame(ids((await h.request('GET', `/api/v1/accounts/${carol.account.id}/following`, { token: carol.token })).json), [bob.account.id], 'back in lists of follows');
  t.equal((await h.request('GET', '/api/v1/timelines/home', { token: bob.token })).statusCode, 200, 'its token works again');
  const live = await openSse(`${base}/user`, { authorization: `Bearer ${bob.token}` });
  t.equal(live.status, 200);
  live.close();
  const log = await h.core.storage.reports.actions({ limit: 5 });
  t.strictSame(log.slice(0, 3).map((a) => [a.action, a.targetType]), [['unsuspend', 'Account'], ['resolve', 'Report'], ['suspend', 'Account']]);
});
