// Quote posts against a server that shares no code with Rookery (test/helpers/ap-peer.ts),
// speaking FEP-044f with Mastodon's JSON-LD terms: its QuoteRequest for a local status is
// answered by the status's policy (an Accept whose result is a stamp Rookery serves, or a
// Reject), and its Notes quoting one of its own statuses are accepted only with a stamp that
// names that very quote.

import t, { type Test } from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { startPeer, type Peer } from '../../helpers/ap-peer.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** Mastodon 4.5's terms for quotes, inline (no context document to fetch). */
const CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  {
    QuoteRequest: 'https://w3id.org/fep/044f#QuoteRequest',
    QuoteAuthorization: 'https://w3id.org/fep/044f#QuoteAuthorization',
    quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
    quoteAuthorization: { '@id': 'https://w3id.org/fep/044f#quoteAuthorization', '@type': '@id' },
    _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
    gts: 'https://gotosocial.org/ns#',
    interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
    canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
    automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
    interactingObject: { '@id': 'gts:interactingObject', '@type': '@id' },
    interactionTarget: { '@id': 'gts:interactionTarget', '@type': '@id' },
  },
];

const objectId = (activity: any): string | undefined => (typeof activity?.object === 'string' ? activity.object : activity?.object?.id);

async function setup(t: Test): Promise<{ peer: Peer; h: Harness; alice: TestUser }> {
  const peer = await startPeer({ actors: [{ name: 'bob' }, { name: 'carol' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  return { peer, h, alice: await h.user('alice') };
}

function note(peer: Peer, author: string, n: number, extra: Record<string, unknown> = {}) {
  const id = `${peer.origin}/users/${author}/statuses/${n}`;
  const json = { '@context': CONTEXT, id, type: 'Note', attributedTo: peer.actor(author), content: `<p>note ${n}</p>`, to: [PUBLIC], published: new Date().toISOString(), ...extra };
  peer.serve(`/users/${author}/statuses/${n}`, json);
  return json;
}

t.test("a QuoteRequest for a local status is answered by the status's policy", async (t) => {
  const { peer, h, alice } = await setup(t);
  const base = h.core.config.baseUrl;
  const bob = peer.actor('bob');
  const open = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quote me' } })).json as { id: string; uri: string };
  const closed = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'not me', quote_approval_policy: 'nobody' } })).json as { id: string; uri: string };

  const quoting = note(peer, 'bob', 1, { quote: open.uri });
  const request = { '@context': CONTEXT, id: `${bob}#quote-requests/1`, type: 'QuoteRequest', actor: bob, object: open.uri, instrument: quoting };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, request)).status, 202);
  await h.rookery.drain();
  const { delivery, verdict } = await peer.delivery((a) => a.type === 'Accept' && objectId(a) === request.id);
  t.equal(verdict.ok, true, 'the Accept is signed');
  t.equal(delivery.activity.actor, `${base}/users/alice`);
  const stamp = delivery.activity.result as string;
  t.match(stamp, new RegExp(`^${base}/users/alice/quote_authorizations/\\d+$`), 'its result is a stamp on this server');
  const served = await peer.get(stamp, 'bob');
  t.equal(served.status, 200);
  t.match(served.json, { type: 'QuoteAuthorization', id: stamp, attributedTo: `${base}/users/alice`, interactingObject: quoting.id, interactionTarget: open.uri });
  const quotes = (await h.request('GET', `/api/v1/statuses/${open.id}/quotes`, { token: alice.token })).json as { uri: string; quote: { state: string } }[];
  t.strictSame(quotes.map((s) => [s.uri, s.quote.state]), [[quoting.id, 'accepted']], "bob's note is stored, its quote accepted");
  const told = (await h.request('GET', '/api/v1/notifications?types[]=quote', { token: alice.token })).json as unknown[];
  t.equal(told.length, 1, 'alice is told');

  const refused = note(peer, 'bob', 2, { quote: closed.uri });
  const second = { '@context': CONTEXT, id: `${bob}#quote-requests/2`, type: 'QuoteRequest', actor: bob, object: closed.uri, instrument: refused.id };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, second)).status, 202);
  await h.rookery.drain();
  const rejected = await peer.delivery((a) => a.type === 'Reject' && objectId(a) === second.id);
  t.equal(rejected.verdict.ok, true, 'a Reject for a status nobody else may quote');
  const refusedHere = await h.core.storage.statuses.findByUri(refused.id);
  t.ok(refusedHere, "bob's second note is stored");
  t.equal((await peer.get(`${base}/users/alice/quote_authorizations/${refusedHere?.id}`, 'bob')).status, 404, 'no stamp for what was not accepted');
});

t.test("a remote Note quoting a remote status: accepted only with that status's server's stamp for it", async (t) => {
  const { peer, h, alice } = await setup(t);
  const base = h.core.config.baseUrl;
  const bob = peer.actor('bob');
  const carol = peer.actor('carol');
  const quoted = note(peer, 'bob', 20, { interactionPolicy: { canQuote: { automaticApproval: PUBLIC } } });
  const stampOf = (n: number, interactingObject: string) => {
    const id = `${peer.origin}/users/bob/quote_authorizations/${n}`;
    peer.serve(`/users/bob/quote_authorizations/${n}`, { '@context': CONTEXT, id, type: 'QuoteAuthorization', attributedTo: bob, interactingObject, interactionTarget: quoted.id });
    return id;
  };
  const create = async (object: Record<string, unknown>) => {
    const activity = { '@context': CONTEXT, id: `${object['id']}/activity`, type: 'Create', actor: carol, object, to: [PUBLIC] };
    t.equal((await peer.post('carol', `${base}/inbox`, activity)).status, 202);
    await h.rookery.drain();
    const stored = await h.core.storage.statuses.findByUri(object['id'] as string);
    if (stored === null) throw new Error(`${object['id']} was not stored`);
    return (await h.request('GET', `/api/v1/statuses/${stored.id}`, { token: alice.token })).json as { quote: { state: string; quoted_status: { uri: string } | null } | null };
  };

  const authorized = note(peer, 'carol', 21, { quote: quoted.id, quoteAuthorization: `${peer.origin}/users/bob/quote_authorizations/1` });
  stampOf(1, authorized.id);
  const first = await create(authorized);
  t.equal(first.quote?.state, 'accepted', 'with a stamp naming it: accepted');
  t.equal(first.quote?.quoted_status?.uri, quoted.id, 'the quoted status was fetched and is shown');

  const borrowed = note(peer, 'carol', 22, { quote: quoted.id, quoteAuthorization: `${peer.origin}/users/bob/quote_authorizations/2` });
  stampOf(2, `${peer.origin}/users/carol/statuses/999`);
  t.strictSame((await create(borrowed)).quote, { state: 'pending', quoted_status: null }, "a stamp for another quote: pending");

  const legacy = note(peer, 'carol', 23, { _misskey_quote: quoted.id });
  t.strictSame((await create(legacy)).quote, { state: 'pending', quoted_status: null }, 'a Misskey-style quote without a stamp: pending');

  const policyOf = (await h.request('GET', `/api/v2/search?q=${encodeURIComponent(quoted.id)}&resolve=true&type=statuses`, { token: alice.token })).json as { statuses: { quote_approval: { automatic: string[] } }[] };
  t.strictSame(policyOf.statuses[0]?.quote_approval.automatic, ['public'], "bob's canQuote is read as public");
});
