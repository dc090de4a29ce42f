// Two standalone instances on loopback (different ports, so different domains), federating over
// plain http with ALLOW_PRIVATE_ADDRESS=true, one on SQLite (A) and one on PostgreSQL (B), so
// that every exchange runs from each engine to the other; driven with masto.js as their users
// would:
// a follow of a locked account approved, posts of every visibility reaching exactly the right
// people, replies, boosts and favourites counted back, edits and deletes carried over, a block;
// deliveries that survive the receiving instance being away and the sending one restarting;
// and the refusals of bad inbox requests. Every wait is on a stream event or on a bounded
// series of API reads, never on a delay.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRestAPIClient, type mastodon } from 'masto';
import pg from 'pg';
import sharp from 'sharp';
import t from 'tap';
import { openSse, type SseClient } from '../helpers/sse.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, cliAsync, describeStore, startInstance, stopInstance, type Instance } from '../helpers/standalone.ts';
import { eventually as waitFor } from '../helpers/eventually.ts';
import { testPostgres } from '../helpers/postgres.ts';

interface Side {
  name: string;
  dataDir: string;
  /** DATABASE_URL when the side runs on PostgreSQL; null: SQLite in dataDir. */
  databaseUrl: string | null;
  env: NodeJS.ProcessEnv;
  port: number;
  base: string;
  domain: string;
  instance: Instance | null;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A local user's token (read write follow push). */
  user(username: string): Promise<{ token: string; masto: mastodon.rest.Client }>;
}

// Two instances, each started three times, and some fifty cross-server round trips: about 45 s
// alone, several times that on a loaded machine.
t.setTimeout(480_000);

const dirs: string[] = [];
t.teardown(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function side(name: string, allowPrivateAddress = true, databaseUrl: string | null = null): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), `rookery-fed-${name}-`));
  dirs.push(dataDir);
  const port = await freePort();
  const env = childEnv({
    DATA_DIR: dataDir,
    PORT: String(port),
    BIND: '127.0.0.1',
    STREAMING_PORT: String(await freePort()),
    ALLOW_PRIVATE_ADDRESS: String(allowPrivateAddress),
    LOG_LEVEL: 'warn',
    ...(databaseUrl === null ? {} : { DATABASE_URL: databaseUrl }),
  });
  const s: Side = {
    name,
    dataDir,
    databaseUrl,
    env,
    port,
    base: `http://127.0.0.1:${port}`,
    domain: `localhost:${port}`,
    instance: null,
    async start() {
      s.instance = await startInstance(env);
    },
    async stop() {
      if (s.instance !== null) await stopInstance(s.instance);
      s.instance = null;
    },
    async user(username) {
      cli(env, 'accounts', 'create', username, '--email', `${username}@example.com`, '--password', 'a long password');
      const token = cli(env, 'tokens', 'issue', username, '--scopes', 'read write follow push');
      return { token, masto: createRestAPIClient({ url: s.base, accessToken: token }) };
    },
  };
  sides.push(s);
  return s;
}

const sides: Side[] = [];

/** The jobs, dead jobs and latest statuses of a side's store, for a failed wait's message
 * (describeStore reads a SQLite file; PostgreSQL is asked the same). */
async function storeState(s: Side): Promise<string> {
  const queries = [
    ['', 'SELECT name, attempts, last_error, run_at FROM jobs'],
    ['\n  dead: ', 'SELECT name, attempts, last_error FROM dead_jobs'],
    ['\n  latest statuses: ', 'SELECT id, uri, deleted_at, edited_at FROM statuses ORDER BY id DESC LIMIT 5'],
  ] as const;
  const show = (rows: unknown[]) => JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).slice(0, 2000);
  let text = '';
  try {
    if (s.databaseUrl === null) {
      text = describeStore(join(s.dataDir, 'rookery.sqlite3'));
    } else {
      const client = new pg.Client({ connectionString: s.databaseUrl });
      await client.connect();
      for (const [label, sql] of queries) text += label + show((await client.query(sql)).rows);
      await client.end();
    }
  } catch (err) {
    text += String(err);
  }
  return text;
}

/** What each instance printed and the jobs it still holds: the message of a wait that failed. */
async function diagnosis(): Promise<string> {
  const states = await Promise.all(sides.map(storeState));
  return sides
    .map((s, i) => `--- ${s.name}: jobs ${states[i]}\n${s.instance?.output().slice(-2000) ?? '(stopped)'}`)
    .concat(opened.map(({ name, client, ended }) => `--- stream ${name}: ${ended ? 'ENDED' : 'open'}, ${client.events.length} events, last: ${JSON.stringify(client.events.slice(-3).map((e) => [e.event, e.data.slice(0, 80)]))}`))
    .join('\n');
}

/** A wait on an event, bounded: after `ms` it fails with the diagnosis instead of hanging. */
async function within<T>(waiting: Promise<T>, what: string, ms = 120_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, fail) => {
    timer = setTimeout(() => void diagnosis().then((text) => fail(new Error(`no ${what} within ${ms} ms\n${text}`))), ms);
  });
  try {
    return await Promise.race([waiting, expired]);
  } finally {
    clearTimeout(timer);
  }
}

// The instances may be restarting: a failed read is read again.
const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean, what: string) => waitFor(read, check, what, { attempts: 4000, retry: true });

/** The streams a test opened, for the diagnosis: whether each is still open, its last events. */
const opened: { name: string; client: SseClient; ended: boolean }[] = [];

async function userStream(s: Side, token: string, stream = 'user'): Promise<SseClient> {
  const client = await openSse(`${s.base}/api/v1/streaming/${stream}`, { authorization: `Bearer ${token}` });
  const entry = { name: `${s.name} ${stream} #${opened.length + 1}`, client, ended: false };
  void client.ended.then(() => (entry.ended = true));
  opened.push(entry);
  return client;
}

function payloadOf(event: { data: string }): { id?: string; uri?: string; content?: string; type?: string; status?: { uri?: string } } {
  try {
    return JSON.parse(event.data) as never;
  } catch {
    return {};
  }
}

t.test('two instances federate, one on SQLite and one on PostgreSQL', async (t) => {
  // Its database is dropped after the instances stopped (teardowns run last first).
  const postgres = await testPostgres(t.teardown.bind(t));
  const a = await side('a');
  const b = await side('b', true, postgres.url);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  const carol = await b.user('carol');
  const dave = await b.user('dave');
  await Promise.all([a.start(), b.start()]);
  t.teardown(async () => {
    await a.stop();
    await b.stop();
  });

  // Discovery over plain http on loopback.
  const finger = await fetch(`${a.base}/.well-known/webfinger?resource=acct:alice@${a.domain}`);
  t.equal(finger.status, 200);
  const hostMeta = await fetch(`${a.base}/.well-known/host-meta`);
  t.equal(hostMeta.headers.get('access-control-allow-origin'), '*');

  // A locked alice; bob finds her by handle and asks to follow.
  await alice.masto.v1.accounts.updateCredentials({ locked: true });
  const found = await bob.masto.v2.search.list({ q: `alice@${a.domain}`, resolve: true, type: 'accounts' });
  t.equal(found.accounts.length, 1, 'bob resolves alice through WebFinger');
  const remoteAlice = found.accounts[0]!;
  t.equal(remoteAlice.acct, `alice@${a.domain}`);
  t.equal(remoteAlice.locked, true);
  const asked = await bob.masto.v1.accounts.$select(remoteAlice.id).follow();
  t.equal(asked.following, false);
  t.equal(asked.requested, true);

  const requests = await eventually(async () => await alice.masto.v1.followRequests.list(), (list) => list.length === 1, 'alice sees the follow request');
  const remoteBob = requests[0]!;
  t.equal(remoteBob.acct, `bob@${b.domain}`);
  const aliceNotes = await userStream(a, alice.token, 'user/notification');
  t.teardown(() => aliceNotes.close());
  await alice.masto.v1.followRequests.$select(remoteBob.id).authorize();
  await eventually(
    () => bob.masto.v1.accounts.relationships.fetch({ id: [remoteAlice.id] }),
    (rels) => rels[0]?.following === true,
    'bob follows alice once she approved',
  );
  t.equal((await alice.masto.v1.accounts.verifyCredentials()).followersCount, 1, 'alice has her follower');

  // dave follows nobody; carol neither. Streams of bob and dave on B.
  const bobHome = await userStream(b, bob.token);
  const carolHome = await userStream(b, carol.token);
  const daveNotes = await userStream(b, dave.token, 'user/notification');
  t.teardown(() => {
    bobHome.close();
    carolHome.close();
    daveNotes.close();
  });

  // Public: in bob's home (and stream), and in B's federated timeline.
  const publicPost = await alice.masto.v1.statuses.create({ status: 'Hello from A #rookery', visibility: 'public' });
  await within(bobHome.next((e) => e.event === 'update' && payloadOf(e).uri === publicPost.uri), 'the stream event');
  const bobTimeline = await bob.masto.v1.timelines.home.list();
  const arrived = bobTimeline.find((s) => s.uri === publicPost.uri);
  t.ok(arrived, 'the public post is in bob\'s home');
  t.equal(arrived?.account.acct, `alice@${a.domain}`);
  t.match(arrived?.content, 'Hello from A');
  const remoteTimeline = await carol.masto.v1.timelines.public.list({ remote: true });
  t.ok(remoteTimeline.some((s) => s.uri === publicPost.uri), 'and in the federated timeline');

  // Followers-only: bob only.
  const privatePost = await alice.masto.v1.statuses.create({ status: 'Only for my followers', visibility: 'private' });
  await within(bobHome.next((e) => e.event === 'update' && payloadOf(e).uri === privatePost.uri), 'the stream event');
  t.notOk((await carol.masto.v1.timelines.public.list({ remote: true })).some((s) => s.uri === privatePost.uri), 'not public on B');
  t.notOk((await carol.masto.v1.timelines.home.list()).some((s) => s.uri === privatePost.uri), 'not in carol\'s home');

  // Direct to dave: a mention notification for dave, nothing for bob. A private mention from
  // someone dave does not follow is filtered by Mastodon's default policy; dave accepts them.
  const davePolicy = await dave.masto.v2.notifications.policy.update({ forPrivateMentions: 'accept' });
  t.equal(davePolicy.forPrivateMentions, 'accept');
  const direct = await alice.masto.v1.statuses.create({ status: `@dave@${b.domain} just for you`, visibility: 'direct' });
  const mention = await within(daveNotes.next((e) => e.event === 'notification' && payloadOf(e).type === 'mention'), 'the stream event');
  t.equal(payloadOf(mention).status?.uri, direct.uri);
  t.notOk((await bob.masto.v1.timelines.home.list()).some((s) => s.uri === direct.uri), 'bob does not get the direct message');
  t.notOk(bobHome.events.some((e) => payloadOf(e).uri === direct.uri));
  t.notOk(carolHome.events.some((e) => payloadOf(e).uri === privatePost.uri || payloadOf(e).uri === direct.uri), 'carol\'s stream saw neither');

  // A picture: the attachment arrives (the file stays on A), with its description, size,
  // blurhash and focal point.
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } }).png().toBuffer();
  const media = await alice.masto.v2.media.create({ file: new Blob([png], { type: 'image/png' }), description: 'a red rectangle', focus: '0.5,-0.25' });
  const pictured = await alice.masto.v1.statuses.create({ status: 'A picture', mediaIds: [media.id], visibility: 'public' });
  const pictureEvent = await within(bobHome.next((e) => e.event === 'update' && payloadOf(e).uri === pictured.uri), 'the stream event');
  const shown = (JSON.parse(pictureEvent.data) as { media_attachments: { type: string; url: string; remote_url: string; description: string; blurhash: string; meta: { original?: { width: number; height: number } } }[] }).media_attachments;
  t.equal(shown.length, 1, 'the attachment arrived');
  t.ok(media.blurhash, 'A made a blurhash');
  t.match(shown[0], { type: 'image', url: media.url, remote_url: media.url, description: 'a red rectangle', blurhash: media.blurhash, meta: { focus: { x: 0.5, y: -0.25 } } });
  t.same(shown[0]?.meta.original && [shown[0].meta.original.width, shown[0].meta.original.height], [64, 48]);
  const onBPicture = (await bob.masto.v1.timelines.home.list()).find((s) => s.uri === pictured.uri);
  t.equal(onBPicture?.mediaAttachments[0]?.url, media.url, 'and is there when read again');

  // A poll on A gets bob's vote from B: counted on B at once, and by alice's server once the
  // vote arrives.
  const question = await alice.masto.v1.statuses.create({ status: 'Tea or coffee?', visibility: 'public', poll: { options: ['tea', 'coffee'], expiresIn: 3600 } });
  const pollEvent = await within(bobHome.next((e) => e.event === 'update' && payloadOf(e).uri === question.uri), 'the stream event');
  const pollOnB = (JSON.parse(pollEvent.data) as { poll: { id: string; options: { title: string }[] } | null }).poll;
  t.same(pollOnB?.options.map((o) => o.title), ['tea', 'coffee'], 'the poll arrives with its options');
  const bobVoted = await bob.masto.v1.polls.$select(pollOnB?.id ?? '').votes.create({ choices: [1] });
  t.match(bobVoted, { votesCount: 1, voted: true, ownVotes: [1] }, 'counted on B');
  const pollOnA = await eventually(() => alice.masto.v1.polls.$select(question.poll?.id ?? '').fetch(), (poll) => poll.votesCount === 1, "A counts bob's vote");
  t.same(pollOnA.options.map((o) => o.votesCount), [0, 1], 'for coffee');

  // bob replies, boosts and favourites: counts and notifications on A.
  const onB = arrived!;
  const reply = await bob.masto.v1.statuses.create({ status: `@alice@${a.domain} welcome!`, inReplyToId: onB.id });
  await within(aliceNotes.next((e) => e.event === 'notification' && payloadOf(e).type === 'mention' && payloadOf(e).status?.uri === reply.uri), 'the stream event');
  await bob.masto.v1.statuses.$select(onB.id).reblog();
  await within(aliceNotes.next((e) => e.event === 'notification' && payloadOf(e).type === 'reblog'), 'the stream event');
  await bob.masto.v1.statuses.$select(onB.id).favourite();
  await within(aliceNotes.next((e) => e.event === 'notification' && payloadOf(e).type === 'favourite'), 'the stream event');
  const counted = await alice.masto.v1.statuses.$select(publicPost.id).fetch();
  t.same([counted.repliesCount, counted.reblogsCount, counted.favouritesCount], [1, 1, 1], 'replies, boosts and favourites counted on A');
  const context = await alice.masto.v1.statuses.$select(publicPost.id).context.fetch();
  t.same(context.descendants.map((s) => s.uri), [reply.uri], 'the reply is in the thread on A');

  // Edit and delete carry over.
  await alice.masto.v1.statuses.$select(publicPost.id).update({ status: 'Hello again from A' });
  await within(bobHome.next((e) => e.event === 'status.update' && payloadOf(e).uri === publicPost.uri), 'the stream event');
  const edited = await bob.masto.v1.statuses.$select(onB.id).fetch();
  t.match(edited.content, 'Hello again from A');
  t.not(edited.editedAt, null);
  await alice.masto.v1.statuses.$select(publicPost.id).remove();
  await within(bobHome.next((e) => e.event === 'delete' && e.data === onB.id), 'the stream event');
  await eventually(
    () => fetch(`${b.base}/api/v1/statuses/${onB.id}`, { headers: { authorization: `Bearer ${bob.token}` } }).then((res) => res.status),
    (status) => status === 404,
    'the deleted status is gone on B',
  );

  // B away for a while: the delivery fails and waits for its retry (a minute away at first);
  // A restarts with the delivery still queued, its clock moved past the retry, and delivers it.
  await b.stop();
  const whileAway = await alice.masto.v1.statuses.create({ status: 'Posted while B was away', visibility: 'public' });
  await eventually(
    () => fetch(`${a.base}/api/v1/statuses/${whileAway.id}`).then((res) => res.status),
    (status) => status === 200,
    'the post is readable on A',
  );
  await b.start();
  await a.stop();
  a.env['ROOKERY_TEST_CLOCK_OFFSET_MS'] = String(10 * 60_000);
  await a.start();
  // Read, not streamed: a stream opened now might begin just after the status arrived.
  await eventually(async () => await bob.masto.v1.timelines.home.list(), (list) => list.some((s) => s.uri === whileAway.uri), 'the post made while B was away arrives');
  t.pass('delivered after B came back and A restarted');

  // A profile change reaches B.
  await alice.masto.v1.accounts.updateCredentials({ displayName: 'Alice of A', note: 'Now with a <b>bio</b>' });
  const refreshed = await eventually(
    () => bob.masto.v1.accounts.$select(remoteAlice.id).fetch(),
    (account) => account.displayName === 'Alice of A',
    'the new display name is seen on B',
  );
  t.match(refreshed.note, 'Now with a');
  t.notMatch(refreshed.note, '<b>', 'the bio arrives as A rendered it (escaped), never raw');

  // alice blocks bob: bob no longer follows her.
  const bobOnA = (await alice.masto.v1.accounts.lookup({ acct: `bob@${b.domain}` })).id;
  await alice.masto.v1.accounts.$select(bobOnA).block();
  await eventually(
    () => bob.masto.v1.accounts.relationships.fetch({ id: [remoteAlice.id] }),
    (rels) => rels[0]?.following === false,
    'the block ended the follow on B',
  );
  t.pass('alice blocked bob');

  // The operator of A blocks B's domain: B's activities are refused, nothing goes to B.
  const daveNotes2 = await userStream(b, dave.token, 'user/notification');
  t.teardown(() => daveNotes2.close());
  // Run without blocking the event loop: the test's kept-alive connections to A stay current.
  await cliAsync(a.env, 'domains', 'block', b.domain, '--reason', 'test');
  const refused = await fetch(`${a.base}/users/alice/inbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/activity+json', signature: `keyId="http://${b.domain}/users/carol#main-key",signature="x"` },
    body: JSON.stringify({ type: 'Follow', id: `http://${b.domain}/users/carol#follows/1`, actor: `http://${b.domain}/users/carol`, object: `http://${a.domain}/users/alice` }),
  });
  t.equal(refused.status, 403);
  t.same(await refused.json(), { error: 'This domain is blocked by the instance' });
  const unseen = await alice.masto.v1.statuses.create({ status: `@dave@${b.domain} not while blocked`, visibility: 'direct' });
  await cliAsync(a.env, 'domains', 'unblock', b.domain);
  const seen = await alice.masto.v1.statuses.create({ status: `@dave@${b.domain} after the unblock`, visibility: 'direct' });
  await within(daveNotes2.next((e) => e.event === 'notification' && payloadOf(e).status?.uri === seen.uri), 'the stream event');
  t.notOk(daveNotes2.events.some((e) => payloadOf(e).status?.uri === unseen.uri), 'nothing was delivered while B was blocked');
  const daveMentions = await dave.masto.v1.notifications.list({ types: ['mention'] });
  t.notOk(daveMentions.some((n) => n.status?.uri === unseen.uri), 'nor is it among dave\'s notifications');
  const [kept] = await postgres.query('SELECT count(*)::int AS n FROM statuses WHERE uri = $1', [seen.uri]);
  t.same(kept, { n: 1 }, "B keeps what it received in PostgreSQL");
});

t.test('inbox refusals', async (t) => {
  const a = await side('r');
  await a.user('alice');
  await a.start();
  t.teardown(() => a.stop());
  const post = (path: string, body: string) => fetch(`${a.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
  const follow = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: 'http://127.0.0.1:1/follows/1',
    type: 'Follow',
    actor: 'http://127.0.0.1:1/users/mallory',
    object: `http://${a.domain}/users/alice`,
  });
  let res = await post('/users/alice/inbox', follow);
  t.equal(res.status, 401, 'unsigned');
  t.type(((await res.json()) as { error: unknown }).error, 'string');
  res = await post('/inbox', '{"type": "Follow",');
  t.equal(res.status, 400, 'malformed');
  t.type(((await res.json()) as { error: unknown }).error, 'string');
  res = await post('/inbox', JSON.stringify({ type: 'Note', content: 'x'.repeat(1024 * 1024) }));
  t.equal(res.status, 413, 'oversized');
  t.same(await res.json(), { error: 'Payload content length greater than maximum allowed: 1048576' });
  res = await post('/inbox', follow.replace('"Follow"', '"Follow", "signature": {"type": "RsaSignature2017"}'));
  t.ok(res.status === 401 || res.status === 400, `never a 500 (${res.status})`);

  // An instance run as in production (no ALLOW_PRIVATE_ADDRESS) fetches nothing on loopback:
  // neither a handle there nor an account by its URL resolves.
  const strict = await side('s', false);
  const sam = await strict.user('sam');
  await strict.start();
  t.teardown(() => strict.stop());
  const byHandle = await sam.masto.v2.search.list({ q: `alice@${a.domain}`, resolve: true, type: 'accounts' });
  t.same(byHandle.accounts, [], 'a handle on loopback is not looked up');
  const byUrl = await sam.masto.v2.search.list({ q: `http://${a.domain}/users/alice`, resolve: true, type: 'accounts' });
  t.same(byUrl.accounts, [], 'nor an actor URL there');
});
