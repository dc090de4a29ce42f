// An account's lifecycle between servers, against an independent ActivityPub peer: a local
// account deleted is told to the servers that knew it (a Delete of the actor, signed by it);
// a remote actor's Delete removes it here; a Flag from another server becomes a report with
// the moderators told.

import t, { type Test } from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { startPeer, type Peer } from '../../helpers/ap-peer.ts';
import { harness, type Harness } from '../../helpers/harness.ts';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

async function setUp(t: Test): Promise<{ peer: Peer; h: Harness; base: string }> {
  const peer = await startPeer({ actors: [{ name: 'bob' }, { name: 'carol' }, { name: 'server', type: 'Application' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  return { peer, h, base: h.core.config.baseUrl };
}

t.test('a deleted local account: its followers’ servers get the Delete of the actor, signed by it', async (t) => {
  const { peer, h, base } = await setUp(t);
  const alice = await h.user('alice');
  const bob = peer.actor('bob');
  const follow = { '@context': AS, id: `${bob}#follows/1`, type: 'Follow', actor: bob, object: `${base}/users/alice` };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, follow)).status, 202);
  await h.rookery.drain();
  await peer.delivery((a) => a.type === 'Accept');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.followers_count, 1);
  const posted = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'soon gone' } })).json;
  await peer.delivery((a) => a.type === 'Create');

  await h.rookery.accounts.delete(alice.account.id);
  await h.rookery.drain();
  const { delivery, verdict } = await peer.delivery((a) => a.type === 'Delete' && a.object === `${base}/users/alice`);
  t.strictSame({ ok: verdict.ok, reason: verdict.reason, keyId: verdict.keyId }, { ok: true, reason: 'verified', keyId: `${base}/users/alice#main-key` }, 'signed with her key, which stays served');
  t.match(delivery.activity, { id: `${base}/users/alice#delete`, actor: `${base}/users/alice`, object: `${base}/users/alice`, to: PUBLIC });
  t.notOk(peer.deliveries.some((d) => d.activity.type === 'Delete' && d.activity.object?.id === posted.uri), 'no Delete for each status: the actor’s says it all');
  t.notOk(peer.deliveries.some((d) => d.activity.type === 'Reject' || d.activity.type === 'Undo'), 'nor for each follow');
  const actor = await peer.get(`${base}/users/alice`, null);
  t.equal(actor.status, 200, 'the actor stays, emptied, so that the Delete can be verified');
  t.equal(actor.json.name ?? '', '');
  const again = { ...follow, id: `${bob}#follows/2` };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, again)).status, 202);
  await h.rookery.drain();
  t.equal((await h.core.storage.relationships.followersOf(alice.account.id, { limit: 5 })).length, 0, 'a new Follow of a deleted account takes no hold');
});

t.test('a remote actor deleted on its server: gone here, its statuses and follows with it', async (t) => {
  const { peer, h, base } = await setUp(t);
  const alice = await h.user('alice');
  const carol = peer.actor('carol');
  const follow = { '@context': AS, id: `${carol}#follows/1`, type: 'Follow', actor: carol, object: `${base}/users/alice` };
  t.equal((await peer.post('carol', `${base}/users/alice/inbox`, follow)).status, 202);
  const note = { id: `${carol}/statuses/1`, type: 'Note', attributedTo: carol, content: '<p>hello</p>', to: [PUBLIC], published: new Date().toISOString() };
  t.equal((await peer.post('carol', `${base}/inbox`, { '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: carol, to: [PUBLIC], object: note })).status, 202);
  await h.rookery.drain();
  const stored = await h.core.storage.accounts.findByUri(carol);
  if (stored === null) throw new Error('carol was not stored');
  const status = await h.core.storage.statuses.findByUri(note.id);
  t.ok(status, 'her status is here');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.followers_count, 1);

  t.equal((await peer.post('carol', `${base}/inbox`, { '@context': AS, id: `${carol}#delete`, type: 'Delete', actor: carol, object: carol, to: [PUBLIC] })).status, 202);
  await h.rookery.drain();
  t.strictSame([(await h.request('GET', `/api/v1/accounts/${stored.id}`)).statusCode, (await h.request('GET', `/api/v1/statuses/${status?.id}`)).statusCode], [404, 404], 'her profile and status are gone');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.followers_count, 0, 'her follow of alice too');
  t.equal((await h.core.storage.accounts.findByUri(carol))?.username, 'carol', 'the row stays, so that nothing takes her name');
});

t.test('a Flag from another server becomes a report, and the moderators are told', async (t) => {
  const { peer, h, base } = await setUp(t);
  const mia = await h.user('mia', { role: 'Moderator', scopes: ['read', 'admin:read', 'admin:write'] });
  const alice = await h.user('alice');
  const bad = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'something rude' } })).json;
  const server = peer.actor('server');
  const flag = { '@context': AS, id: `${peer.origin}/reports/1`, type: 'Flag', actor: server, content: 'spam from your user', object: [`${base}/users/alice`, bad.uri, `${peer.origin}/users/bob/statuses/9`] };
  t.equal((await peer.post('server', `${base}/inbox`, flag)).status, 202);
  await h.rookery.drain();

  const reports = await h.request('GET', '/api/v1/admin/reports', { token: mia.token });
  t.equal(reports.statusCode, 200, reports.body);
  t.equal(reports.json.length, 1);
  t.match(reports.json[0], { category: 'other', comment: 'spam from your user', forwarded: false, target_account: { id: alice.account.id }, account: { domain: peer.host } });
  t.strictSame(reports.json[0].statuses.map((s: { id: string }) => s.id), [bad.id], 'with the named status of hers');
  const notifications = (await h.request('GET', '/api/v1/notifications?types[]=admin.report', { token: mia.token })).json as { type: string; report?: { id: string } }[];
  t.strictSame(notifications.map((n) => [n.type, n.report?.id]), [['admin.report', reports.json[0].id]], 'the moderator is told');

  // Naming statuses only: the report is about their author.
  const second = { ...flag, id: `${peer.origin}/reports/2`, content: 'again', object: [bad.uri] };
  t.equal((await peer.post('server', `${base}/inbox`, second)).status, 202);
  await h.rookery.drain();
  const both = (await h.request('GET', '/api/v1/admin/reports', { token: mia.token })).json as { comment: string; target_account: { id: string } }[];
  t.strictSame(both.map((r) => [r.comment, r.target_account.id]), [['again', alice.account.id], ['spam from your user', alice.account.id]]);
  // Naming nothing of ours: no report.
  const stray = { ...flag, id: `${peer.origin}/reports/3`, object: [`${peer.origin}/users/bob`] };
  t.equal((await peer.post('server', `${base}/inbox`, stray)).status, 202);
  await h.rookery.drain();
  t.equal(((await h.request('GET', '/api/v1/admin/reports', { token: mia.token })).json as unknown[]).length, 2);
});

t.test('a Move received: local followers follow the new account, the old one shows moved; a Move its target does not confirm is ignored', async (t) => {
  const { peer, h, base } = await setUp(t);
  const alice = await h.user('alice');
  const carol = peer.actor('carol');
  const bob = peer.actor('bob');
  const carolId = await resolveId(h, alice.token, `carol@${peer.host}`);
  await h.request('POST', `/api/v1/accounts/${carolId}/follow`, { token: alice.token });
  const follow = await peer.delivery((a) => a.type === 'Follow' && a.object === carol);
  t.equal((await peer.post('carol', `${base}/inbox`, { '@context': AS, id: `${carol}#accepts/1`, type: 'Accept', actor: carol, object: follow.delivery.activity })).status, 202);
  await h.rookery.drain();
  t.match((await h.request('GET', `/api/v1/accounts/relationships?id[]=${carolId}`, { token: alice.token })).json, [{ following: true }]);

  // bob does not name carol: her Move to him is not taken.
  const move = (target: string, n: number) => ({ '@context': AS, id: `${carol}#moves/${n}`, type: 'Move', actor: carol, object: carol, target });
  t.equal((await peer.post('carol', `${base}/inbox`, move(bob, 1))).status, 202);
  await h.rookery.drain();
  t.equal((await h.request('GET', `/api/v1/accounts/${carolId}`)).json.moved, undefined, 'not moved');
  t.notOk(peer.deliveries.some((d) => d.activity.type === 'Follow' && d.activity.object === bob), 'nobody follows bob');

  peer.setAliases('bob', [carol]);
  t.equal((await peer.post('carol', `${base}/inbox`, move(bob, 2))).status, 202);
  await h.rookery.drain();
  const { verdict } = await peer.delivery((a) => a.type === 'Follow' && a.object === bob);
  t.equal(verdict.ok, true, 'alice asks to follow bob');
  await peer.delivery((a) => a.type === 'Undo' && a.object?.type === 'Follow' && a.object?.object === carol);
  const bobId = (await h.core.storage.accounts.findByUri(bob))?.id;
  t.match((await h.request('GET', `/api/v1/accounts/${carolId}`)).json.moved, { id: bobId, acct: `bob@${peer.host}` }, 'carol shows moved');
  t.match((await h.request('GET', `/api/v1/accounts/relationships?id[]=${carolId}&id[]=${bobId}`, { token: alice.token })).json, [{ following: false }, { requested: true }]);
});

t.test('a local account moves to an account on another server that names it: its remote followers get the Move', async (t) => {
  const { peer, h, base } = await setUp(t);
  const alice = await h.user('alice');
  const bob = peer.actor('bob');
  const follow = { '@context': AS, id: `${bob}#follows/1`, type: 'Follow', actor: bob, object: `${base}/users/alice` };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, follow)).status, 202);
  await h.rookery.drain();
  peer.setAliases('carol', [`${base}/users/alice`]);
  const { moveAccount } = await import('../../../core/domain/accounts/move.ts');
  const account = await h.core.storage.accounts.get(alice.account.id);
  if (account === null) throw new Error('no alice');
  await moveAccount(h.core, account, `carol@${peer.host}`);
  await h.rookery.drain();
  const { delivery, verdict } = await peer.delivery((a) => a.type === 'Move');
  t.equal(verdict.ok, true);
  t.match(delivery.activity, { actor: `${base}/users/alice`, object: `${base}/users/alice`, target: peer.actor('carol') });
  const actor = await peer.get(`${base}/users/alice`, null);
  t.equal(actor.json.movedTo, peer.actor('carol'), 'her actor says where she went');
  t.match((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.moved, { acct: `carol@${peer.host}` });
});

async function resolveId(h: Harness, token: string, handle: string): Promise<string> {
  const res = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`, { token });
  const id = res.json.accounts?.[0]?.id as string | undefined;
  if (id === undefined) throw new Error(`not found: ${res.body}`);
  return id;
}
