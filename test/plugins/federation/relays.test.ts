// A relay round trip, against a small relay written here (test/helpers/ap-peer.ts: its own
// signatures, draft-cavage, checked after a 202) on loopback: the instance actor subscribes
// with a Follow of the public collection, the relay's Accept makes the subscription live,
// public statuses go to the relay (and nothing else does), what the relay passes on (its
// Announce, or another server's Create it forwards) is taken in from the status's own server,
// a relay the instance is not subscribed to is not listened to, and unsubscribing sends the Undo.

import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { addRelay, listRelays, removeRelay } from '../../../plugins/federation/index.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import { startPeer, type Peer } from '../../helpers/ap-peer.ts';
import { harness } from '../../helpers/harness.ts';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const AS = 'https://www.w3.org/ns/activitystreams';

/** A relay as Mastodon's relays behave: it accepts a Follow of the public collection from an
 * instance actor, answering to that actor's inbox. */
async function startRelay(name: string): Promise<Peer & { subscribers: string[]; answered: Promise<number> }> {
  const subscribers: string[] = [];
  let answer: (status: number) => void = () => undefined;
  const answered = new Promise<number>((done) => (answer = done));
  const relay: Peer = await startPeer({
    actors: [{ name, path: '/actor', type: 'Application' }],
    async onDelivery(delivery, verdict) {
      const activity = delivery.activity;
      if (!verdict.ok) return;
      if (activity.type === 'Follow' && activity.object === PUBLIC) {
        const follower = await relay.get(activity.actor, name);
        const inbox: string = follower.json.endpoints?.sharedInbox ?? follower.json.inbox;
        subscribers.push(inbox);
        const accepted = await relay.post(name, inbox, { '@context': AS, id: `${relay.actor(name)}#accepts/${subscribers.length}`, type: 'Accept', actor: relay.actor(name), object: activity });
        answer(accepted.status);
      }
    },
  });
  return Object.assign(relay, { subscribers, answered });
}

t.test('subscribe, relay public statuses both ways, unsubscribe', async (t) => {
  const relay = await startRelay('relay');
  const stranger = await startRelay('stranger');
  const origin = await startPeer({ actors: [{ name: 'gil' }] });
  t.teardown(async () => {
    await relay.close();
    await stranger.close();
    await origin.close();
  });
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;
  const repository = h.core.storage.extend(federationStorage);
  const relayInbox = `${relay.origin}/inbox`;

  // The operator subscribes (what `relays add` does): a pending relay, a job for the server.
  const added = await addRelay(repository, base, relayInbox, Date.now());
  t.equal(added.added, true);
  await h.core.queue.enqueue([added.job], Date.now());
  await h.rookery.drain();
  const { delivery: followed, verdict } = await relay.delivery((a) => a.type === 'Follow');
  t.strictSame({ ok: verdict.ok, keyId: verdict.keyId }, { ok: true, keyId: `${base}/actor#main-key` }, 'signed by the instance actor, verified by the relay');
  t.match(followed.activity, { type: 'Follow', actor: `${base}/actor`, object: PUBLIC, id: added.relay.followId });
  t.equal(followed.path, '/inbox');

  // Its Accept arrives (at the shared inbox): the subscription is live.
  t.equal(await relay.answered, 202, 'the relay\'s Accept was taken');
  await h.rookery.drain();
  const relays = await listRelays(repository, Date.now());
  t.strictSame(relays.map((r) => ({ inbox: r.inbox, state: r.state, actor: r.actor })), [{ inbox: relayInbox, state: 'accepted', actor: relay.actor('relay') }]);
  t.strictSame(relay.subscribers, [`${base}/inbox`]);

  // Public statuses go to the relay, signed by their authors; an unlisted one does not.
  const unlisted = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quietly', visibility: 'unlisted' } })).json as { uri: string };
  const loud = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'loudly', visibility: 'public' } })).json as { uri: string };
  const create = await relay.delivery((a) => a.type === 'Create' && a.object?.id === loud.uri);
  t.strictSame({ ok: create.verdict.ok, keyId: create.verdict.keyId }, { ok: true, keyId: `${base}/users/alice#main-key` });
  t.equal(relay.deliveries.filter((d) => d.activity.object?.id === unlisted.uri).length, 0, 'the unlisted status was not relayed');

  // What the relay passes on: gil's statuses, on gil's server.
  const gil = origin.actor('gil');
  const note = (n: number) => ({ '@context': AS, id: `${origin.origin}/users/gil/statuses/${n}`, type: 'Note', attributedTo: gil, content: `<p>relayed ${n}</p>`, to: [PUBLIC], published: new Date().toISOString() });
  origin.serve('/users/gil/statuses/1', note(1));
  origin.serve('/users/gil/statuses/2', note(2));
  origin.serve('/users/gil/statuses/3', note(3));
  const timeline = async () => (await h.request('GET', '/api/v1/timelines/public?remote=true')).json as { id: string; uri: string; account: { acct: string } }[];
  const remote = async () => (await timeline()).map((s) => ({ uri: s.uri, acct: s.account.acct }));
  const boostersOf = async (uri: string) => {
    const status = (await timeline()).find((s) => s.uri === uri);
    if (status === undefined) throw new Error(`${uri} not taken in`);
    return ((await h.request('GET', `/api/v1/statuses/${status.id}/reblogged_by`)).json as { acct: string }[]).map((a) => a.acct);
  };

  // A LitePub relay's Announce of it.
  const announce = { '@context': AS, id: `${relay.actor('relay')}#announces/1`, type: 'Announce', actor: relay.actor('relay'), object: note(1).id, to: [PUBLIC] };
  t.equal((await relay.post('relay', `${base}/inbox`, announce)).status, 202);
  await h.rookery.drain();
  // A Mastodon relay forwards gil's Create as it came, signed by the relay only.
  const forwarded = { '@context': AS, id: `${note(2).id}/activity`, type: 'Create', actor: gil, to: [PUBLIC], object: note(2) };
  t.equal((await relay.post('relay', `${base}/inbox`, forwarded)).status, 202);
  await h.rookery.drain();
  t.strictSame(await remote(), [
    { uri: note(2).id, acct: `gil@${origin.host}` },
    { uri: note(1).id, acct: `gil@${origin.host}` },
  ], 'both taken in as gil\'s');
  t.strictSame(await boostersOf(note(1).id), [], 'the relay\'s Announce is no boost');

  // A relay the instance is not subscribed to is not listened to.
  const unheard = { ...forwarded, id: `${note(3).id}/activity`, object: note(3) };
  const refused = await stranger.post('stranger', `${base}/inbox`, unheard);
  t.equal(refused.status, 401, 'a forward by a relay not subscribed to');
  t.equal((await stranger.post('stranger', `${base}/inbox`, { ...announce, id: `${stranger.actor('stranger')}#a`, actor: stranger.actor('stranger'), object: note(3).id })).status, 202);
  await h.rookery.drain();
  t.strictSame(await boostersOf(note(3).id), [`stranger@${stranger.host}`], 'its Announce is an account\'s boost, not a relay\'s');

  // The operator unsubscribes (what `relays remove` does): the Undo goes, the relay is forgotten.
  const removed = await removeRelay(repository, relayInbox, Date.now());
  if (removed === null) throw new Error('not subscribed');
  await h.core.queue.enqueue([removed.job], Date.now());
  await h.rookery.drain();
  const undo = await relay.delivery((a) => a.type === 'Undo');
  t.ok(undo.verdict.ok, 'the Undo verified');
  t.match(undo.delivery.activity, { actor: `${base}/actor`, object: { type: 'Follow', id: added.relay.followId, object: PUBLIC } });
  t.strictSame(await listRelays(repository, Date.now()), []);
  await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'after', visibility: 'public' } });
  t.equal(relay.deliveries.filter((d) => d.activity.type === 'Create').length, 1, 'nothing more is relayed');
});

t.test('relay URLs are checked', async (t) => {
  const h = await harness({ plugins: [federationPlugin()] });
  t.teardown(() => h.close());
  const repository = h.core.storage.extend(federationStorage);
  for (const bad of ['relay.example/inbox', 'ftp://relay.example/inbox', 'https://user:pw@relay.example/inbox', 'https://relay.example/inbox#x', `https://relay.example/${'x'.repeat(2048)}`]) {
    await t.rejects(addRelay(repository, h.core.config.baseUrl, bad, Date.now()), { status: 422, message: 'A relay is named by the http(s) URL of its inbox' }, bad);
  }
  t.equal(await removeRelay(repository, 'https://relay.example/inbox', Date.now()), null, 'removing an unknown relay: null');
});
