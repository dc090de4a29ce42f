// An account's lifecycle between two Rookery instances over real HTTP: an account deleted on
// one is gone on the other (the Delete of the actor reached its follower's server), and an
// account moved from one to an account on the other takes its follower there (the Move sent,
// checked against the new account's aliases, and acted on by the follower's server).

import t from 'tap';
import { addAlias, moveAccount } from '../../../core/domain/accounts/move.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross } from '../../helpers/federation.ts';
import type { Harness } from '../../helpers/harness.ts';

async function accountOf(h: Harness, id: string) {
  const account = await h.core.storage.accounts.get(id);
  if (account === null) throw new Error(`no account ${id}`);
  return account;
}

t.test('deleted on A: gone on B; moved from A to B: the follower on B follows the new account', async (t) => {
  const [a, b] = await federatingInstances(t, 2);
  if (a === undefined || b === undefined) throw new Error('two instances');
  const alice = await a.user('alice');
  const carl = await a.user('carl');
  const bob = await b.user('bob');
  const dana = await b.user('dana');

  // A deletion.
  const aliceOnB = await followAcross(b, [bob], a, 'alice');
  await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'goodbye' } });
  await a.rookery.accounts.delete(alice.account.id);
  await eventually(
    async () => {
      await drainAll([a, b]);
      return (await b.request('GET', `/api/v1/accounts/${aliceOnB}`, { token: bob.token })).statusCode;
    },
    (status) => status === 404,
    'alice gone on B',
  );
  await drainAll([a, b]);
  t.equal((await b.request('GET', `/api/v1/accounts/${bob.account.id}`, { token: bob.token })).json.following_count, 0, "bob's follow of her is gone");
  t.strictSame(await b.core.storage.statuses.query({ visibilities: ['public', 'unlisted', 'private', 'direct'], authorId: aliceOnB }, { limit: 5 }), [], 'her status too');

  // A move: dana (B) names carl (A), carl moves to dana.
  const carlOnB = await followAcross(b, [bob], a, 'carl');
  await addAlias(b.core, await accountOf(b, dana.account.id), `carl@${new URL(a.core.config.baseUrl).host}`);
  await moveAccount(a.core, await accountOf(a, carl.account.id), `dana@${new URL(b.core.config.baseUrl).host}`);
  const relationships = async () =>
    (await b.request('GET', `/api/v1/accounts/relationships?id[]=${carlOnB}&id[]=${dana.account.id}`, { token: bob.token })).json as { following: boolean }[];
  const moved = await eventually(
    async () => {
      await drainAll([a, b]);
      return relationships();
    },
    (rels) => rels[0]?.following === false && rels[1]?.following === true,
    'bob moved from carl to dana',
  );
  t.match(moved, [{ following: false }, { following: true }]);
  t.match((await b.request('GET', `/api/v1/accounts/${carlOnB}`, { token: bob.token })).json.moved, { id: dana.account.id, acct: 'dana' }, 'B shows carl moved');
  await eventually(
    async () => {
      await drainAll([a, b]);
      return (await a.request('GET', `/api/v1/accounts/${carl.account.id}`)).json.followers_count as number;
    },
    (count) => count === 0,
    "bob's Undo of his follow of carl reached A",
  );
  t.match((await a.request('GET', `/api/v1/accounts/${carl.account.id}`)).json, { followers_count: 0, moved: { acct: `dana@${new URL(b.core.config.baseUrl).host}` } }, 'A: his follower left, and he shows moved');
});
