// 'admin.sign_up': a new local account is announced to everyone whose role may manage users
// (Moderator, Admin, Owner), at sign-up, so that one waiting for approval reaches those who
// approve it; nobody else is told, and a remote account is never announced.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';

t.test('staff who manage users hear of each new account; others do not', async (t) => {
  const h = await harness({ config: { registrations: { approvalRequired: true } } });
  t.teardown(() => h.close());
  const owner = await h.user('olga', { role: 'Owner', scopes: ['read'] });
  const mia = await h.user('mia', { role: 'Moderator', scopes: ['read'] });
  const plain = await h.user('plain', { scopes: ['read'] });
  await h.rookery.drain();
  t.strictSame((await h.request('GET', '/api/v1/notifications', { token: owner.token })).json.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]), [
    ['admin.sign_up', plain.account.id],
    ['admin.sign_up', mia.account.id],
  ], 'the owner: every account made after hers, newest first');

  const app = await h.app(['read', 'write']);
  const res = await h.request('POST', '/api/v1/accounts', {
    token: app.token,
    payload: { username: 'newbie', email: 'newbie@example.com', password: 'correct horse battery', agreement: 'true', locale: 'en', reason: 'I like birds' },
  });
  t.equal(res.statusCode, 200, res.body);
  const notes = await h.request('GET', '/api/v1/notifications', { token: mia.token });
  t.equal(notes.statusCode, 200);
  t.match(notes.json[0], { type: 'admin.sign_up', account: { username: 'newbie' } }, 'a sign-up through the API reaches the moderator');
  t.notOk('status' in notes.json[0] && notes.json[0].status !== null, 'no status');
  t.strictSame((await h.request('GET', '/api/v1/notifications', { token: plain.token })).json, [], 'a user without the permission hears nothing');

  const grouped = await h.request('GET', '/api/v2/notifications', { token: mia.token });
  t.match(grouped.json.notification_groups[0], { type: 'admin.sign_up', notifications_count: 1 });
  const only = await h.request('GET', '/api/v1/notifications?types[]=admin.sign_up', { token: owner.token });
  t.equal(only.json.length, 3, 'types[] takes admin.sign_up');
  const without = await h.request('GET', '/api/v1/notifications?exclude_types[]=admin.sign_up', { token: owner.token });
  t.strictSame(without.json, [], 'and exclude_types[] does');
});
