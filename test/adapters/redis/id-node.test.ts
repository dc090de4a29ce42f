// reserveIdNode: every live process under one prefix holds a different number, held with a
// lifetime, given back at release, and the 65th process is told plainly that none is left.

import t from 'tap';
import { reserveIdNode, type IdNodeLease } from '../../../adapters/redis/index.ts';
import { dropPrefix, rawClient, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

t.test('64 processes hold 64 numbers; a 65th is refused; a released one is taken again', async (t) => {
  const prefix = testPrefix('id-node');
  t.teardown(() => dropPrefix(prefix));
  const leases: IdNodeLease[] = [];
  t.teardown(() => Promise.all(leases.map((lease) => lease.release())));
  for (let i = 0; i < 64; i++) leases.push(await reserveIdNode({ url: SHARED_REDIS, prefix, ttlSeconds: 120 }));
  t.strictSame(
    leases.map((lease) => lease.node).sort((a, b) => a - b),
    Array.from({ length: 64 }, (_, i) => i),
    'consecutive starts take every number once',
  );

  const client = await rawClient();
  t.teardown(() => client.destroy());
  const key = `${prefix}id-node:${leases[5]?.node}`;
  const ttl = await client.ttl(key);
  t.ok(ttl > 0 && ttl <= 120, `held with a lifetime (${ttl} s left), so a killed process frees its number`);

  await t.rejects(reserveIdNode({ url: SHARED_REDIS, prefix }), { message: `all 64 id nodes under ${prefix} are held by other processes` });

  const released = leases.splice(5, 1)[0];
  await released?.release();
  t.equal(await client.exists(key), 0, 'release removes the key');
  const again = await reserveIdNode({ url: SHARED_REDIS, prefix });
  leases.push(again);
  t.equal(again.node, released?.node, 'the only free number is the one given back');
});

t.test('a release does not remove a number another process holds now', async (t) => {
  const prefix = testPrefix('id-node');
  t.teardown(() => dropPrefix(prefix));
  const first = await reserveIdNode({ url: SHARED_REDIS, prefix });
  const client = await rawClient();
  t.teardown(() => client.destroy());
  const key = `${prefix}id-node:${first.node}`;
  // As if its lease had lapsed and another process had taken the number meanwhile.
  await client.set(key, 'someone else');
  await first.release();
  t.equal(await client.get(key), 'someone else');
});
