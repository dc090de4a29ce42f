// POST /api/v1/reports and the moderators' reports API, as Mastodon 4.4 answers them: exact
// codes, bodies and error texts; staff told once per reported account; every change logged.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { post } from '../../helpers/api.ts';

async function setup() {
  const h = await harness({ config: { rules: ['Be kind', 'No spam'] } });
  const alice = await h.user('alice', { scopes: ['read', 'write'] });
  const spammer = await h.user('spammer');
  const mia = await h.user('mia', { role: 'Moderator', scopes: ['read', 'write', 'admin:read', 'admin:write'] });
  const plain = await h.user('plain', { scopes: ['read', 'write', 'admin:read', 'admin:write'] });
  return { h, alice, spammer, mia, plain };
}

t.test('POST /api/v1/reports: the Report entity, and one admin.report per open account', async (t) => {
  const { h, alice, spammer, mia } = await setup();
  t.teardown(() => h.close());
  const one = await post(h, spammer, 'buy now');
  const res = await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: spammer.account.id, status_ids: [one.id], comment: 'spam', category: 'spam' } });
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json, { action_taken: false, action_taken_at: null, category: 'spam', comment: 'spam', forwarded: false, status_ids: [one.id], rule_ids: null, target_account: { id: spammer.account.id } });
  t.match(res.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  // Moderators also hear of sign-ups (admin.sign_up, sign-ups.test.ts): the reports' kind only.
  const notes = await h.request('GET', '/api/v1/notifications?types[]=admin.report', { token: mia.token });
  t.equal(notes.json.length, 1);
  t.match(notes.json[0], { type: 'admin.report', account: { id: alice.account.id }, report: { id: res.json.id, category: 'spam', target_account: { id: spammer.account.id } } });

  const grouped = await h.request('GET', '/api/v2/notifications?types[]=admin.report', { token: mia.token });
  t.equal(grouped.statusCode, 200);
  t.match(grouped.json.notification_groups, [{ type: 'admin.report', notifications_count: 1, sample_account_ids: [alice.account.id], report: { id: res.json.id } }]);

  const second = await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: spammer.account.id, rule_ids: ['2'], category: 'other' } });
  t.equal(second.statusCode, 200);
  t.equal(second.json.category, 'violation', 'rules make it a violation');
  t.strictSame(second.json.rule_ids, ['2']);
  t.equal((await h.request('GET', '/api/v1/notifications?types[]=admin.report', { token: mia.token })).json.length, 1, 'an open report already: nobody told again');
  t.equal((await h.request('GET', '/api/v1/notifications', { token: alice.token })).json.length, 0, 'the reporter is not told');
});

t.test('POST /api/v1/reports: Mastodon\'s refusals', async (t) => {
  const { h, alice, spammer, mia } = await setup();
  t.teardown(() => h.close());
  const mine = await post(h, alice, 'my own');
  const hidden = await post(h, spammer, 'private', { visibility: 'private' });
  const send = (payload: Record<string, unknown>, token = alice.token) => h.request('POST', '/api/v1/reports', { token, payload });
  const cases: [Record<string, unknown>, number, string][] = [
    [{}, 404, 'Record not found'],
    [{ account_id: '999999' }, 404, 'Record not found'],
    [{ account_id: spammer.account.id, status_ids: [mine.id] }, 404, 'Record not found'],
    [{ account_id: spammer.account.id, status_ids: [hidden.id] }, 404, 'Record not found'],
    [{ account_id: spammer.account.id, status_ids: ['x'] }, 404, 'Record not found'],
    [{ account_id: spammer.account.id, comment: 'x'.repeat(1001) }, 422, 'Validation failed: Comment is too long (maximum is 1000 characters)'],
    [{ account_id: spammer.account.id, category: 'rude' }, 422, 'Validation failed: Category is not included in the list'],
    [{ account_id: spammer.account.id, category: 'violation' }, 422, 'Validation failed: Rule ids does not reference valid rules'],
    [{ account_id: spammer.account.id, rule_ids: ['7'] }, 422, 'Validation failed: Rule ids does not reference valid rules'],
    [{ account_id: spammer.account.id, status_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) }, 422, 'Validation failed: Status ids is too long (maximum is 100 statuses)'],
  ];
  for (const [payload, status, error] of cases) {
    const res = await send(payload);
    t.strictSame([res.statusCode, res.json], [status, { error }], JSON.stringify(payload).slice(0, 80));
  }
  const reader = await h.user('reader', { scopes: ['read'] });
  t.strictSame((await send({ account_id: spammer.account.id }, reader.token)).json, { error: 'This action is outside the authorized scopes' });
  t.equal((await send({ account_id: spammer.account.id })).statusCode, 200, 'just an account is enough');
  t.equal((await h.request('GET', '/api/v1/notifications?types[]=admin.report', { token: mia.token })).json.length, 1);
});

t.test('the admin reports API', async (t) => {
  const { h, alice, spammer, mia, plain } = await setup();
  t.teardown(() => h.close());
  const status = await post(h, spammer, 'buy now');
  const first = (await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: spammer.account.id, status_ids: [status.id], comment: 'spam' } })).json;
  const second = (await h.request('POST', '/api/v1/reports', { token: plain.token, payload: { account_id: alice.account.id } })).json;

  for (const [method, path] of [['GET', '/api/v1/admin/reports'], ['GET', `/api/v1/admin/reports/${first.id}`], ['POST', `/api/v1/admin/reports/${first.id}/resolve`], ['PUT', `/api/v1/admin/reports/${first.id}`]] as const) {
    t.strictSame(await h.request(method, path, { token: plain.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method} ${path}: no permission`);
    t.strictSame(await h.request(method, path).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is not allowed' }], `${method} ${path}: no token`);
  }
  t.strictSame((await h.request('GET', '/api/v1/admin/reports', { token: alice.token })).json, { error: 'This action is outside the authorized scopes' });

  const list = await h.request('GET', '/api/v1/admin/reports', { token: mia.token });
  t.equal(list.statusCode, 200);
  t.strictSame(list.json.map((r: { id: string }) => r.id), [second.id, first.id], 'unresolved, newest first');
  const shown = list.json[1];
  t.match(shown, {
    id: first.id, action_taken: false, action_taken_at: null, category: 'other', comment: 'spam', forwarded: false,
    account: { id: alice.account.id, username: 'alice', domain: null, email: 'alice@example.com', ip: null, ips: [], locale: 'en', role: { id: '-99' }, confirmed: true, approved: true, disabled: false, silenced: false, suspended: false, sensitized: false, account: { id: alice.account.id } },
    target_account: { id: spammer.account.id }, assigned_account: null, action_taken_by_account: null, rules: [],
  });
  t.strictSame(shown.statuses.map((s: { id: string }) => s.id), [status.id]);
  t.match(list.headers['link'], new RegExp(`max_id=${first.id}|min_id=${second.id}`));

  const paged = await h.request('GET', '/api/v1/admin/reports?limit=1', { token: mia.token });
  t.strictSame(paged.json.map((r: { id: string }) => r.id), [second.id]);
  t.equal(paged.headers['link'], `<https://rookery.test/api/v1/admin/reports?limit=1&max_id=${second.id}>; rel="next", <https://rookery.test/api/v1/admin/reports?limit=1&min_id=${second.id}>; rel="prev"`);
  const byTarget = await h.request('GET', `/api/v1/admin/reports?target_account_id=${alice.account.id}`, { token: mia.token });
  t.strictSame(byTarget.json.map((r: { id: string }) => r.id), [second.id]);
  const byReporter = await h.request('GET', `/api/v1/admin/reports?account_id=${alice.account.id}`, { token: mia.token });
  t.strictSame(byReporter.json.map((r: { id: string }) => r.id), [first.id]);

  const assigned = await h.request('POST', `/api/v1/admin/reports/${first.id}/assign_to_self`, { token: mia.token });
  t.equal(assigned.statusCode, 200);
  t.match(assigned.json.assigned_account, { id: mia.account.id, role: { id: '1', name: 'Moderator' } });
  const updated = await h.request('PUT', `/api/v1/admin/reports/${first.id}`, { token: mia.token, payload: { category: 'violation', rule_ids: ['1'] } });
  t.equal(updated.statusCode, 200);
  t.match(updated.json, { category: 'violation', rules: [{ id: '1', text: 'Be kind', hint: '' }] });
  t.strictSame((await h.request('PUT', `/api/v1/admin/reports/${first.id}`, { token: mia.token, payload: { category: 'spam', rule_ids: ['1'] } })).json, { error: 'Validation failed: Rule ids must be blank' });
  t.strictSame((await h.request('PUT', `/api/v1/admin/reports/${first.id}`, { token: mia.token, payload: { category: 'nope' } })).json, { error: 'Validation failed: Category is not included in the list' });
  const resolved = await h.request('POST', `/api/v1/admin/reports/${first.id}/resolve`, { token: mia.token });
  t.match(resolved.json, { action_taken: true, action_taken_by_account: { id: mia.account.id } });
  t.match(resolved.json.action_taken_at, /Z$/);
  t.strictSame((await h.request('GET', '/api/v1/admin/reports?resolved=true', { token: mia.token })).json.map((r: { id: string }) => r.id), [first.id]);
  const reopened = await h.request('POST', `/api/v1/admin/reports/${first.id}/reopen`, { token: mia.token });
  t.match(reopened.json, { action_taken: false, action_taken_at: null, action_taken_by_account: null });
  const unassigned = await h.request('POST', `/api/v1/admin/reports/${first.id}/unassign`, { token: mia.token });
  t.equal(unassigned.json.assigned_account, null);
  t.strictSame((await h.request('GET', '/api/v1/admin/reports/999999', { token: mia.token })).json, { error: 'Record not found' });
  t.strictSame((await h.request('POST', '/api/v1/admin/reports/999999/resolve', { token: mia.token })).json, { error: 'Record not found' });

  const log = await h.core.storage.reports.actions({ limit: 10 });
  t.strictSame(log.map((a) => [a.action, a.accountId, a.targetId]), [
    ['unassigned', mia.account.id, first.id],
    ['reopen', mia.account.id, first.id],
    ['resolve', mia.account.id, first.id],
    ['update', mia.account.id, first.id],
    ['assigned_to_self', mia.account.id, first.id],
  ], 'who did what, newest first; refused changes leave nothing');
});
