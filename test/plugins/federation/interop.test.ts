// Rookery against a server it shares no code with (test/helpers/ap-peer.ts): one that answers
// every delivery 202 at once and checks its draft-cavage signature afterwards, as Mastodon does,
// and refuses RFC 9421 alone. Every kind of activity Rookery sends must land there verified;
// Rookery's fetches must be signed (by its instance actor) so that a server in secure mode
// answers them; and a status first found through a lookup is stored whole, so that its later
// Create tells the mentioned account once and indexes its hashtag once.

import t, { type Test } from 'tap';
import { federationPlugin, pollsPlugin } from '../../../plugins/index.ts';
import { startPeer, type Peer, type Verdict } from '../../helpers/ap-peer.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

async function peerOf(t: Test, options: Parameters<typeof startPeer>[0]): Promise<Peer> {
  const peer = await startPeer(options);
  t.teardown(() => peer.close());
  return peer;
}

async function rookery(t: Test, federation: Parameters<typeof federationPlugin>[0] = {}): Promise<Harness> {
  const h = await harness({ listen: true, plugins: [pollsPlugin(), federationPlugin({ allowPrivateAddress: true, ...federation })] });
  t.teardown(() => h.close());
  return h;
}

/** A remote account or status found by its URL (search with resolve), as a user would. */
async function resolve(h: Harness, user: TestUser, url: string, type: 'accounts' | 'statuses'): Promise<string> {
  const res = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(url)}&resolve=true&type=${type}`, { token: user.token });
  const found = (res.json as Record<string, { id: string }[]>)[type]?.[0];
  if (found === undefined) throw new Error(`${url} not found (${res.statusCode} ${res.body})`);
  return found.id;
}

const objectId = (activity: any): string | undefined => (typeof activity?.object === 'string' ? activity.object : activity?.object?.id);
const verified: Pick<Verdict, 'ok' | 'reason'> = { ok: true, reason: 'verified' };

t.test('every activity Rookery sends lands on a server that checks draft-cavage signatures after a 202', async (t) => {
  const peer = await peerOf(t, { actors: [{ name: 'bob' }] });
  const h = await rookery(t);
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;
  const bob = peer.actor('bob');
  const landed = async (what: string, match: (activity: any) => boolean) => {
    const { delivery, verdict } = await peer.delivery(match);
    t.strictSame({ ok: verdict.ok, reason: verdict.reason }, verified, `${what}: landed, its signature verified`);
    t.equal(verdict.keyId, `${base}/users/alice#main-key`, `${what}: signed by alice`);
    t.equal(delivery.headers['signature-input'], undefined, `${what}: draft-cavage, not RFC 9421`);
    return delivery;
  };

  // bob's public note and poll, for alice to find and act on.
  const note = `${peer.origin}/users/bob/statuses/1`;
  const question = `${peer.origin}/users/bob/statuses/2`;
  peer.serve('/users/bob/statuses/1', { '@context': 'https://www.w3.org/ns/activitystreams', id: note, type: 'Note', attributedTo: bob, content: '<p>hello from bob</p>', to: [PUBLIC], published: new Date().toISOString() });
  peer.serve('/users/bob/statuses/2', {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: question,
    type: 'Question',
    attributedTo: bob,
    content: '<p>tea?</p>',
    to: [PUBLIC],
    published: new Date().toISOString(),
    endTime: new Date(Date.now() + 86_400_000).toISOString(),
    oneOf: [
      { type: 'Note', name: 'yes', replies: { type: 'Collection', totalItems: 0 } },
      { type: 'Note', name: 'no', replies: { type: 'Collection', totalItems: 0 } },
    ],
  });

  const bobId = await resolve(h, alice, bob, 'accounts');
  await h.request('POST', `/api/v1/accounts/${bobId}/follow`, { token: alice.token });
  await landed('Follow', (a) => a.type === 'Follow' && objectId(a) === bob);

  // bob follows alice: Rookery answers with an Accept.
  const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${bob}#follows/1`, type: 'Follow', actor: bob, object: `${base}/users/alice` };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, follow)).status, 202);
  await h.rookery.drain();
  await landed('Accept', (a) => a.type === 'Accept' && objectId(a) === follow.id);

  const posted = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Hello, fediverse', visibility: 'public' } })).json as { id: string; uri: string };
  await landed('Create', (a) => a.type === 'Create' && objectId(a) === posted.uri);
  await h.request('PUT', `/api/v1/statuses/${posted.id}`, { token: alice.token, payload: { status: 'Hello again, fediverse' } });
  await landed('Update', (a) => a.type === 'Update' && objectId(a) === posted.uri);
  await h.request('DELETE', `/api/v1/statuses/${posted.id}`, { token: alice.token });
  await landed('Delete', (a) => a.type === 'Delete' && objectId(a) === posted.uri);

  const noteId = await resolve(h, alice, note, 'statuses');
  await h.request('POST', `/api/v1/statuses/${noteId}/favourite`, { token: alice.token });
  await landed('Like', (a) => a.type === 'Like' && objectId(a) === note);
  await h.request('POST', `/api/v1/statuses/${noteId}/reblog`, { token: alice.token });
  await landed('Announce', (a) => a.type === 'Announce' && objectId(a) === note);
  await h.request('POST', `/api/v1/statuses/${noteId}/unfavourite`, { token: alice.token });
  await landed('Undo of the Like', (a) => a.type === 'Undo' && a.object?.type === 'Like');
  await h.request('POST', `/api/v1/statuses/${noteId}/unreblog`, { token: alice.token });
  await landed('Undo of the Announce', (a) => a.type === 'Undo' && a.object?.type === 'Announce');

  const pollStatusId = await resolve(h, alice, question, 'statuses');
  const poll = ((await h.request('GET', `/api/v1/statuses/${pollStatusId}`, { token: alice.token })).json as { poll: { id: string } | null }).poll;
  if (poll === null) throw new Error('the poll was not stored');
  t.equal((await h.request('POST', `/api/v1/polls/${poll.id}/votes`, { token: alice.token, payload: { choices: ['0'] } })).statusCode, 200);
  const vote = await landed('the poll vote', (a) => a.type === 'Create' && a.object?.inReplyTo === question);
  t.equal(vote.activity.object.name, 'yes');

  await h.request('POST', `/api/v1/accounts/${bobId}/block`, { token: alice.token });
  await landed('Block', (a) => a.type === 'Block' && objectId(a) === bob);
  await h.request('POST', `/api/v1/accounts/${bobId}/unblock`, { token: alice.token });
  await landed('Undo of the Block', (a) => a.type === 'Undo' && a.object?.type === 'Block');

  const judged = await Promise.all(peer.deliveries.map((d) => d.verdict));
  t.strictSame(
    judged.filter((v) => !v.ok),
    [],
    `none of the ${judged.length} deliveries was refused`,
  );
});

t.test('the first knock is the operator\'s to choose, and checked', async (t) => {
  t.throws(() => federationPlugin({ firstKnock: 'cavage' as never }), {
    name: 'ConfigError',
    message: 'Invalid config: federationPlugin: "firstKnock" must be one of "draft-cavage-http-signatures-12", "rfc9421", got "cavage"',
  });
  t.throws(() => federationPlugin({ authorizedFetch: 'yes' as never }), { name: 'ConfigError', message: 'Invalid config: federationPlugin: "authorizedFetch" must be a boolean, got "yes"' });
  // With RFC 9421 chosen, a server that verifies only draft-cavage refuses the first delivery.
  const peer = await peerOf(t, { actors: [{ name: 'carol' }] });
  const h = await rookery(t, { firstKnock: 'rfc9421' });
  const alice = await h.user('alice');
  const carolId = await resolve(h, alice, peer.actor('carol'), 'accounts');
  await h.request('POST', `/api/v1/accounts/${carolId}/follow`, { token: alice.token });
  const { delivery, verdict } = await peer.delivery((a) => a.type === 'Follow');
  t.type(delivery.headers['signature-input'], 'string', 'signed with RFC 9421');
  t.strictSame({ ok: verdict.ok, reason: verdict.reason }, { ok: false, reason: 'signed with RFC 9421 only' });
});

t.test('Rookery\'s fetches are signed by its instance actor, so a server in secure mode answers them', async (t) => {
  const peer = await peerOf(t, { actors: [{ name: 'dora' }], secure: true });
  const h = await rookery(t);
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;
  const dora = peer.actor('dora');
  const note = `${peer.origin}/users/dora/statuses/1`;
  peer.serve('/users/dora/statuses/1', { '@context': 'https://www.w3.org/ns/activitystreams', id: note, type: 'Note', attributedTo: dora, content: '<p>secure</p>', to: [PUBLIC] });

  const doraId = await resolve(h, alice, dora, 'accounts');
  const statusId = await resolve(h, alice, note, 'statuses');
  t.match((await h.request('GET', `/api/v1/accounts/${doraId}`)).json, { acct: `dora@${peer.host}` });
  t.match((await h.request('GET', `/api/v1/statuses/${statusId}`)).json, { uri: note, content: '<p>secure</p>' });
  const fetched = peer.fetches.filter((f) => f.path.startsWith('/users/dora'));
  t.ok(fetched.length >= 2, `the actor and the note were fetched (${fetched.length} GETs)`);
  t.strictSame(
    fetched.map((f) => ({ path: f.path, ok: f.verdict.ok, keyId: f.verdict.keyId })).filter((f) => !f.ok || f.keyId !== `${base}/actor#main-key`),
    [],
    'every GET signed by the instance actor and verified',
  );

  // The instance actor: Mastodon's shape, given unsigned.
  const actor = await peer.get(`${base}/actor`, null);
  t.equal(actor.status, 200);
  t.match(actor.json, {
    id: `${base}/actor`,
    type: 'Application',
    preferredUsername: h.core.config.domain,
    inbox: `${base}/inbox`,
    publicKey: { id: `${base}/actor#main-key`, owner: `${base}/actor`, publicKeyPem: /^-----BEGIN PUBLIC KEY-----/ },
  });
});

t.test('AUTHORIZED_FETCH: unsigned fetches of actors, statuses and collections are refused, signed ones answered', async (t) => {
  const peer = await peerOf(t, { actors: [{ name: 'erin' }] });
  const h = await rookery(t, { authorizedFetch: true });
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;
  const posted = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'members only?', visibility: 'public' } })).json as { uri: string };

  for (const url of [`${base}/users/alice`, posted.uri, `${base}/users/alice/outbox`, `${base}/users/alice/followers`, `${base}/users/alice/following`, `${base}/users/alice/collections/featured`]) {
    const unsigned = await peer.get(url, null);
    t.strictSame({ status: unsigned.status, json: unsigned.json }, { status: 401, json: { error: 'Request not signed' } }, `unsigned: ${url}`);
    const signed = await peer.get(url, 'erin');
    t.equal(signed.status, 200, `signed: ${url}`);
  }
  t.equal((await peer.get(posted.uri, 'erin')).json?.content, '<p>members only?</p>', 'the status itself');

  // What Mastodon serves unsigned in secure mode stays open.
  t.equal((await peer.get(`${base}/actor`, null)).status, 200, 'the instance actor');
  for (const path of [`/.well-known/webfinger?resource=acct:alice@${new URL(base).host}`, '/.well-known/nodeinfo', '/nodeinfo/2.0', '/.well-known/host-meta']) {
    t.equal((await h.request('GET', path)).statusCode, 200, `unsigned ${path}`);
  }

  // A signature that does not verify is refused.
  const res = await h.request('GET', '/users/alice', { headers: { accept: 'application/activity+json', signature: `keyId="${peer.actor('erin')}#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"`, date: new Date().toUTCString() } });
  t.strictSame({ status: res.statusCode, json: res.json }, { status: 401, json: { error: 'Unauthorized' } });

  // Off by default.
  const open = await rookery(t);
  await open.user('alice');
  t.equal((await peer.get(`${open.core.config.baseUrl}/users/alice`, null)).status, 200, 'unsigned fetches answered without AUTHORIZED_FETCH');
});

t.test('a status found through a lookup is stored whole: its later Create notifies once and indexes once', async (t) => {
  const peer = await peerOf(t, { actors: [{ name: 'finn' }] });
  const h = await rookery(t);
  const alice = await h.user('alice');
  const reader = await h.user('reader');
  const base = h.core.config.baseUrl;
  const finn = peer.actor('finn');
  const uri = `${peer.origin}/users/finn/statuses/7`;
  const note = {
    id: uri,
    type: 'Note',
    attributedTo: finn,
    content: `<p><span class="h-card"><a href="${base}/@alice" class="u-url mention">@<span>alice</span></a></span> look at these #owls</p>`,
    to: [PUBLIC],
    cc: [`${base}/users/alice`],
    published: new Date().toISOString(),
    tag: [
      { type: 'Mention', href: `${base}/users/alice`, name: `@alice@${h.core.config.domain}` },
      { type: 'Hashtag', href: `${peer.origin}/tags/owls`, name: '#owls' },
    ],
  };
  // Mastodon's context names Hashtag (ActivityStreams itself does not).
  const context = ['https://www.w3.org/ns/activitystreams', { Hashtag: 'as:Hashtag' }];
  peer.serve('/users/finn/statuses/7', { '@context': context, ...note });

  // Someone looks it up before its delivery arrives.
  const statusId = await resolve(h, reader, uri, 'statuses');
  const mentions = async () => ((await h.request('GET', '/api/v1/notifications', { token: alice.token })).json as { type: string; status?: { id: string } }[]).filter((n) => n.type === 'mention' && n.status?.id === statusId).length;
  const tagged = async () => ((await h.request('GET', '/api/v1/timelines/tag/owls')).json as { id: string }[]).map((s) => s.id);
  t.equal(await mentions(), 1, 'alice is told of the mention the lookup found');
  t.strictSame(await tagged(), [statusId], 'under its hashtag');

  // Then its Create arrives.
  const create = { '@context': context, id: `${uri}/activity`, type: 'Create', actor: finn, to: note.to, cc: note.cc, object: note };
  t.equal((await peer.post('finn', `${base}/users/alice/inbox`, create)).status, 202);
  await h.rookery.drain();
  t.equal(await mentions(), 1, 'told once');
  t.strictSame(await tagged(), [statusId], 'indexed once');
  const status = (await h.request('GET', `/api/v1/statuses/${statusId}`)).json as { mentions: { acct: string }[]; tags: { name: string }[]; edited_at: string | null };
  t.strictSame(status.mentions.map((m) => m.acct), ['alice']);
  t.strictSame(status.tags.map((tag) => tag.name), ['owls']);
  t.equal(status.edited_at, null);
});
