// remove_from_followers across servers: bob on B follows alice on A; alice removes him from her
// followers, and B hears it as a Reject of the Follow (as Mastodon sends it): bob follows alice
// no more, on both sides.

import t from 'tap';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross } from '../../helpers/federation.ts';
import type { Harness } from '../../helpers/harness.ts';

t.test('a remote follower removed is told with a Reject', async (t) => {
  const [a, b] = (await federatingInstances(t, 2)) as [Harness, Harness];
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  const aliceOnB = await followAcross(b, [bob], a, 'alice');
  const followers = (await a.request('GET', `/api/v1/accounts/${alice.account.id}/followers`, { token: alice.token })).json as { id: string; acct: string }[];
  t.same(followers.map((f) => f.acct), [`bob@${new URL(b.core.config.baseUrl).host}`]);
  const removed = await a.request('POST', `/api/v1/accounts/${followers[0]?.id}/remove_from_followers`, { token: alice.token });
  t.same([removed.statusCode, removed.json.followed_by], [200, false]);
  const relationship = await eventually(
    async () => {
      await drainAll([a, b]);
      return ((await b.request('GET', `/api/v1/accounts/relationships?id[]=${aliceOnB}`, { token: bob.token })).json as { following: boolean; requested: boolean }[])[0];
    },
    (r) => r?.following === false,
    'B hears of it',
  );
  t.same([relationship?.following, relationship?.requested], [false, false], 'bob follows alice no more on B');
  t.equal((await a.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.followers_count, 0, 'nor on A');
});
