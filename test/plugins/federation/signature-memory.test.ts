// The signature scheme remembered per server: RFC 9421 for a server that signed a delivery to
// this instance with RFC 9421 alone (and was verified), draft-cavage for the others; Fedify's
// own records of RFC 9421 (made after any 404 or 5xx to the first knock) are not kept.

import t from 'tap';
import { MemoryKvStore, signRequest, type KvKey } from '@fedify/fedify';
import { federationPlugin } from '../../../plugins/index.ts';
import { SPEC_PREFIX, specMemory } from '../../../plugins/federation/signatures.ts';
import { startPeer } from '../../helpers/ap-peer.ts';
import { harness } from '../../helpers/harness.ts';

t.test('Fedify\'s records: draft-cavage kept, RFC 9421 not', async (t) => {
  const kv = new MemoryKvStore();
  const memory = specMemory(kv);
  const key: KvKey = [...SPEC_PREFIX, 'https://a.example'] as unknown as KvKey;
  await memory.set(key, 'rfc9421');
  t.equal(await memory.get(key), undefined, 'an RFC 9421 record by Fedify is dropped');
  await memory.set(key, 'draft-cavage-http-signatures-12');
  t.equal(await memory.get(key), 'draft-cavage-http-signatures-12', 'a draft-cavage record is kept');
  await memory.set(['other', 'key'] as const, 'rfc9421');
  t.equal(await memory.get(['other', 'key'] as const), 'rfc9421', 'other keys untouched');
});

t.test('a server that signs with RFC 9421 gets RFC 9421; one that signs draft-cavage gets draft-cavage', async (t) => {
  const modern = await startPeer({ actors: [{ name: 'hana' }] });
  const classic = await startPeer({ actors: [{ name: 'ivan' }] });
  t.teardown(async () => {
    await modern.close();
    await classic.close();
  });
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  await h.user('alice');
  const inbox = `${h.core.config.baseUrl}/users/alice/inbox`;
  const followOf = (actor: string) => ({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}#follow`, type: 'Follow', actor, object: `${h.core.config.baseUrl}/users/alice` });

  // hana's server signs its Follow with RFC 9421 (Fedify's signer, with hana's key).
  const hana = modern.actor('hana');
  const request = new Request(inbox, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(followOf(hana)) });
  const signed = await signRequest(request, modern.privateKeyOf('hana') as Parameters<typeof signRequest>[1], new URL(`${hana}#main-key`), { spec: 'rfc9421' });
  t.equal((await fetch(signed)).status, 202, 'verified and taken');
  t.equal((await classic.post('ivan', inbox, followOf(classic.actor('ivan')))).status, 202);
  await h.rookery.drain();

  const toHana = await modern.delivery((a) => a.type === 'Accept');
  t.type(toHana.delivery.headers['signature-input'], 'string', 'hana\'s server gets RFC 9421');
  const toIvan = await classic.delivery((a) => a.type === 'Accept');
  t.equal(toIvan.delivery.headers['signature-input'], undefined, 'ivan\'s server gets draft-cavage');
  t.ok(toIvan.verdict.ok, 'and verifies it');
});
