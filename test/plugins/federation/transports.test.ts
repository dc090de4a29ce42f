// Federation between an instance mounted with the hapi plugin and one on the node:http handler,
// both listening on loopback: an account found by its URL, followed (accepted at once), and a
// post delivered, signed, through each transport's inbox.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { harness, type Harness } from '../../helpers/harness.ts';

t.test('hapi and node:http instances federate', async (t) => {
  const instance = (transport: 'hapi' | 'node') => harness({ listen: true, transport, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  const a: Harness = await instance('hapi');
  const b: Harness = await instance('node');
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  const aliceUrl = `${a.core.config.baseUrl}/users/alice`;

  const found = await b.request('GET', `/api/v2/search?q=${encodeURIComponent(aliceUrl)}&resolve=true&type=accounts`, { token: bob.token });
  t.equal(found.statusCode, 200);
  t.equal(found.json.accounts.length, 1, 'found by its URL over the hapi instance');
  const remoteAlice = found.json.accounts[0];
  t.equal(remoteAlice.url, `${a.core.config.baseUrl}/@alice`);
  const followed = await b.request('POST', `/api/v1/accounts/${remoteAlice.id}/follow`, { token: bob.token });
  t.equal(followed.json.requested, true, 'a remote follow waits for its Accept');

  // A's worker runs its inbox job, accepts, and B's inbox (node:http) takes the Accept.
  await eventually(
    async () => {
      await a.rookery.drain();
      await b.rookery.drain();
      return (await b.request('GET', `/api/v1/accounts/relationships?id[]=${remoteAlice.id}`, { token: bob.token })).json;
    },
    (rels: { following: boolean }[]) => rels[0]?.following === true,
    'bob follows alice',
  );
  const aliceNow = (await a.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token })).json;
  t.equal(aliceNow.followers_count, 1);

  const posted = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Across transports', visibility: 'private' } })).json;
  const home = await eventually(
    async () => {
      await a.rookery.drain();
      await b.rookery.drain();
      return (await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as { uri: string; content: string; visibility: string }[];
    },
    (list) => list.some((s) => s.uri === posted.uri),
    'the post reaches bob',
  );
  t.match(home.find((s) => s.uri === posted.uri), { content: '<p>Across transports</p>', visibility: 'private' });

  // A status looked up by its URL: a public one is fetched and stored; a followers-only one is
  // not given to an unsigned fetch.
  const open = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Find me #here', visibility: 'public' } })).json;
  await a.rookery.drain();
  const carol = await b.user('carol');
  const byUrl = await b.request('GET', `/api/v2/search?q=${encodeURIComponent(open.uri)}&resolve=true&type=statuses`, { token: carol.token });
  t.equal(byUrl.statusCode, 200);
  t.same(byUrl.json.statuses.map((s: { uri: string }) => s.uri), [open.uri], 'a public status, by its uri');
  t.match(byUrl.json.statuses[0].content, 'Find me');
  const secret = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Not for strangers', visibility: 'private' } })).json;
  await a.rookery.drain();
  const hidden = await b.request('GET', `/api/v2/search?q=${encodeURIComponent(secret.uri)}&resolve=true&type=statuses`, { token: carol.token });
  t.equal(hidden.statusCode, 200);
  t.notOk(hidden.json.statuses.some((s: { content: string }) => s.content.includes('Not for strangers')), 'a followers-only status is not shown to a stranger');
});
