// Limited federation mode (Mastodon's LIMITED_FEDERATION_MODE): the instance federates only
// with the domains the admins allow (/api/v1/admin/domain_allows) and their subdomains. Others'
// inbox posts are refused as a blocked domain's are, and nothing is delivered to them.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { startPeer } from '../../helpers/ap-peer.ts';
import { harness } from '../../helpers/harness.ts';

const AS = 'https://www.w3.org/ns/activitystreams';

t.test('only allowed domains federate, in both directions', async (t) => {
  const peer = await startPeer({ actors: [{ name: 'bob' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, config: { limitedFederation: true }, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const ada = await h.user('ada', { role: 'Admin', scopes: ['read', 'write', 'admin:read', 'admin:write'] });
  const base = h.core.config.baseUrl;
  const inbox = `${base}/users/alice/inbox`;
  const bob = peer.actor('bob');
  const follow = (n: number) => ({ '@context': AS, id: `${bob}#follows/${n}`, type: 'Follow', actor: bob, object: `${base}/users/alice` });
  const hostname = new URL(peer.origin).hostname;

  const refused = await peer.post('bob', inbox, follow(1));
  t.strictSame([refused.status, JSON.parse(refused.body)], [403, { error: 'This domain is blocked by the instance' }], 'no allow: refused');

  const allowed = await h.request('POST', '/api/v1/admin/domain_allows', { token: ada.token, payload: { domain: hostname } });
  t.equal(allowed.statusCode, 200, allowed.body);
  const accepted = await peer.post('bob', inbox, follow(2));
  t.equal(accepted.status, 202, 'allowed (a port is not part of an allow): taken');
  const { delivery } = await peer.delivery((a) => a.type === 'Accept');
  t.equal(delivery.path, '/users/bob/inbox', 'and answered');
  const followers = await h.request('GET', `/api/v1/accounts/${alice.account.id}/followers`, { token: alice.token });
  t.equal(followers.json.length, 1, 'bob follows alice');

  // The allow lifted: alice's new post is not delivered to bob's server; allowed again, it is.
  t.strictSame((await h.request('DELETE', `/api/v1/admin/domain_allows/${allowed.json.id}`, { token: ada.token })).json, {});
  const unsent = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'not for them', visibility: 'public' } });
  t.equal(unsent.statusCode, 200, unsent.body);
  t.strictSame((await peer.post('bob', inbox, follow(3))).status, 403, 'their posts are refused again');
  await h.request('POST', '/api/v1/admin/domain_allows', { token: ada.token, payload: { domain: hostname } });
  const sent = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'for them', visibility: 'public' } });
  const created = await peer.delivery((a) => a.type === 'Create');
  t.equal(created.delivery.activity.object.id, sent.json.uri, 'the post made while allowed arrives');
  t.notOk(
    peer.deliveries.some((d) => d.activity.type === 'Create' && d.activity.object?.id === unsent.json.uri),
    'the one made outside the allow-list never went out',
  );
});

t.test('off by default: any domain federates', async (t) => {
  const peer = await startPeer({ actors: [{ name: 'bob' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  await h.user('alice');
  const bob = peer.actor('bob');
  const base = h.core.config.baseUrl;
  const res = await peer.post('bob', `${base}/users/alice/inbox`, { '@context': AS, id: `${bob}#follows/1`, type: 'Follow', actor: bob, object: `${base}/users/alice` });
  t.equal(res.status, 202);
});
