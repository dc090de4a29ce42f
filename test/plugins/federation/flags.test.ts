// A report about a remote account with `forward` goes to its server as a Flag from the instance
// actor (Mastodon's way: the reporter stays anonymous), naming the account and the statuses;
// one without `forward` says it was not forwarded.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { startPeer } from '../../helpers/ap-peer.ts';
import { harness } from '../../helpers/harness.ts';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

t.test('a forwarded report lands as a Flag signed by the instance actor', async (t) => {
  const peer = await startPeer({ actors: [{ name: 'bob' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;
  const bob = peer.actor('bob');
  const note = `${peer.origin}/users/bob/statuses/1`;
  peer.serve('/users/bob/statuses/1', { '@context': 'https://www.w3.org/ns/activitystreams', id: note, type: 'Note', attributedTo: bob, content: '<p>rude</p>', to: [PUBLIC], published: new Date().toISOString() });
  const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(note)}&resolve=true&type=statuses`, { token: alice.token });
  const status = found.json.statuses[0];
  if (status === undefined) throw new Error(`not found: ${found.body}`);

  const quiet = await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: status.account.id, comment: 'kept here' } });
  t.equal(quiet.json.forwarded, false, 'not asked: not forwarded');
  const res = await h.request('POST', '/api/v1/reports', { token: alice.token, payload: { account_id: status.account.id, status_ids: [status.id], comment: 'rude', forward: 'true' } });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json.forwarded, true);

  const { delivery, verdict } = await peer.delivery((a) => a.type === 'Flag');
  t.strictSame({ ok: verdict.ok, reason: verdict.reason }, { ok: true, reason: 'verified' });
  t.equal(verdict.keyId, `${base}/actor#main-key`, 'signed by the instance actor, not the reporter');
  t.equal(delivery.path, '/users/bob/inbox', "to the account's own inbox");
  t.match(delivery.activity, { type: 'Flag', id: `${base}/reports/${res.json.id}`, actor: `${base}/actor`, content: 'rude', object: [bob, note] });
});
