// Answers kept ready (core/mastodon/http/kept.ts): a GET of a status, its context, the public
// and hashtag timelines, an account or its statuses, anonymous or by a person, is answered again from the kept bytes,
// without reading the store, while nothing is written; any write, a poll's closing, the end of a
// reader's mute or filter, an IP block, CORS and the rate limits all behave as if it were made
// afresh. Across processes and restarts:
// test/e2e/render-cache-processes.test.ts (its anonymous reader goes through kept answers).

import t from 'tap';
import { pollsPlugin } from '../../../plugins/index.ts';
import { act, post } from '../../helpers/api.ts';
import { harness, windowedHarness, type Harness } from '../../helpers/harness.ts';

/** Counts, from here on, the calls of the named methods of the store's repositories. */
function countCalls(reads: readonly (readonly [object, readonly string[]])[]): { reads: number } {
  const counter = { reads: 0 };
  for (const [repository, names] of reads) {
    for (const name of names) {
      const target = repository as unknown as Record<string, (...args: unknown[]) => unknown>;
      const original = target[name] as (...args: unknown[]) => unknown;
      target[name] = (...args: unknown[]) => {
        counter.reads++;
        return original.apply(repository, args);
      };
    }
  }
  return counter;
}

/** Counts the store's status and account reads from here on. */
function countReads(h: Harness): { reads: number } {
  return countCalls([
    [h.core.storage.statuses, ['get', 'getMany', 'query']],
    [h.core.storage.accounts, ['get', 'getMany']],
  ]);
}

/** Counts the reads only rendering a status makes (the reader's flags and filters). */
function countRenderReads(h: Harness): { reads: number } {
  return countCalls([
    [h.core.storage.interactions, ['viewerState']],
    [h.core.storage.filters, ['listBy']],
  ]);
}

t.test('a kept answer is served without reading the store, byte for byte, until something is written', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const status = await post(h, alice, 'kept #ready');
  const reply = await post(h, alice, 'a reply', { in_reply_to_id: status.id });
  const paths = [
    `/api/v1/statuses/${status.id}`, `/api/v1/statuses/${reply.id}/context`, '/api/v1/timelines/public?limit=5', '/api/v1/timelines/tag/ready',
    `/api/v1/accounts/${alice.account.id}/statuses`, `/api/v1/accounts/${alice.account.id}`,
  ];
  const first = await Promise.all(paths.map((path) => h.request('GET', path)));
  for (const res of first) t.equal(res.statusCode, 200);
  const counter = countReads(h);
  const again = await Promise.all(paths.map((path) => h.request('GET', path)));
  t.equal(counter.reads, 0, 'the second reads read nothing');
  t.strictSame(
    again.map((res) => [res.statusCode, res.body, res.headers['link'], res.headers['content-type'], res.headers['cache-control']]),
    first.map((res) => [res.statusCode, res.body, res.headers['link'], res.headers['content-type'], res.headers['cache-control']]),
    'the same status, bytes and headers',
  );

  t.equal((await act(h, bob, status.id, 'favourite')).statusCode, 200);
  const after = await Promise.all(paths.map((path) => h.request('GET', path)));
  t.ok(counter.reads > 0, 'after a write, made afresh');
  t.equal(after[0]?.json.favourites_count, 1, 'the status shows the favourite');
  t.equal(after[1]?.json.ancestors[0].favourites_count, 1, 'so does the context');
  t.equal(after[2]?.json.find((s: any) => s.id === status.id).favourites_count, 1, 'and the public timeline');
  t.equal(after[3]?.json.find((s: any) => s.id === status.id).favourites_count, 1, 'and the hashtag timeline');
  t.equal(after[4]?.json.find((s: any) => s.id === status.id).favourites_count, 1, 'and the account\'s statuses');

  t.equal((await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { display_name: 'Alice Renamed' } })).statusCode, 200);
  t.equal((await h.request('GET', paths[5] as string)).json.display_name, 'Alice Renamed', 'the account as it is now');

  const fresh = await post(h, bob, 'newer #ready');
  const timelines = await Promise.all(['/api/v1/timelines/public?limit=5', '/api/v1/timelines/tag/ready'].map((path) => h.request('GET', path)));
  for (const res of timelines) t.equal(res.json[0].id, fresh.id, 'a new status heads the timelines at once');

  t.equal((await h.request('DELETE', `/api/v1/statuses/${status.id}`, { token: alice.token })).statusCode, 200);
  t.strictSame((await h.request('GET', paths[0] as string)).statusCode, 404, 'a deleted status is gone at once');
});

t.test('each reader has kept answers of their own: flags, mutes and filters', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const carol = await h.user('carol');
  const status = await post(h, alice, 'a dragon of mine');
  t.equal((await act(h, bob, status.id, 'favourite')).statusCode, 200);
  const path = `/api/v1/statuses/${status.id}`;
  const read = async (token?: string, url = path) => h.request('GET', url, token === undefined ? {} : { token });
  // A reader's first request of the day records their activity: a write, which the next round's
  // answers are made after.
  await Promise.all([read(bob.token), read(carol.token)]);
  const first = [await read(), await read(bob.token), await read(carol.token)];
  const counter = countReads(h);
  const again = [await read(), await read(bob.token), await read(carol.token)];
  t.equal(counter.reads, 0, 'kept for each reader: the second reads read nothing, the token lookups included');
  t.strictSame(again.map((res) => res.body), first.map((res) => res.body), 'each the same bytes');
  t.strictSame(again.map((res) => res.json.favourited), [undefined, true, false], 'and each their own flags');
  t.equal((await read(undefined, `${path}?access_token=${bob.token}`)).json.favourited, true, 'a token in the query is bob\'s too');
  // An optional endpoint reads an unknown token as none (docs/behaviour.md): the same answer.
  const unknown = await read('nonsense');
  t.strictSame([unknown.statusCode, unknown.body], [200, first[0]?.body], 'an unknown token reads as anonymous');

  // Time alone ends carol's kept answers when her mute or her filter ends.
  const filter = await h.request('POST', '/api/v2/filters', { token: carol.token, payload: { title: 'Dragons', context: ['public', 'thread'], filter_action: 'warn', expires_in: 600, keywords_attributes: [{ keyword: 'dragon' }] } });
  t.equal(filter.statusCode, 200);
  t.equal((await h.request('POST', `/api/v1/accounts/${alice.account.id}/mute`, { token: carol.token, payload: { duration: 60 } })).statusCode, 200);
  const timeline = async () => (await read(carol.token, '/api/v1/timelines/public')).json.map((s: any) => s.id);
  t.strictSame(await timeline(), [], 'carol muted alice');
  t.strictSame(await timeline(), [], 'kept');
  t.strictSame((await read(carol.token)).json.filtered.map((f: any) => f.filter.title), ['Dragons'], 'and her filter matches');
  h.clock.advance(61_000);
  t.strictSame(await timeline(), [status.id], 'the mute ended: alice is back with nothing written');
  t.strictSame((await read(carol.token)).json.filtered.map((f: any) => f.filter.title), ['Dragons'], 'the filter still matches');
  h.clock.advance(600_000);
  t.strictSame((await read(carol.token)).json.filtered, [], 'the filter ended');

  // A revoked token is refused at once.
  const bobsToken = await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(bob.token));
  t.equal(await h.core.storage.oauth.revokeToken(bobsToken?.id ?? '', h.clock.now()), true);
  t.strictSame([(await read(bob.token)).statusCode, (await read(bob.token)).json], [401, { error: 'The access token is invalid' }], 'revoked');
});

t.test('a repeated favourite or bookmark answers what GET shows its caller, never a stale or another reader\'s', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const carol = await h.user('carol');
  const status = await post(h, alice, 'marked twice');
  const path = `/api/v1/statuses/${status.id}`;
  const read = async (user: { token: string }) => h.request('GET', path, { token: user.token });
  const mark = async (user: { token: string }, action: string) => {
    const res = await h.request('POST', `${path}/${action}`, { token: user.token });
    t.equal(res.statusCode, 200, action);
    return res;
  };
  // Activity of the day recorded first (a write of its own), so that the rounds below write
  // only what they say.
  await Promise.all([read(bob), read(carol)]);
  const before = await read(bob);
  t.equal(before.json.favourited, false);
  const first = await mark(bob, 'favourite');
  t.strictSame([first.json.favourited, first.json.favourites_count], [true, 1], 'the favourite that writes answers afresh, not the kept GET of before');
  const repeat = await mark(bob, 'favourite');
  t.equal(repeat.body, (await read(bob)).body, 'a repeat answers, byte for byte, what GET answers bob');
  t.equal((await read(bob)).body, repeat.body, 'and GET after it answers the same');
  const rendering = countRenderReads(h);
  const third = await mark(bob, 'favourite');
  t.equal(third.body, repeat.body, 'so does the next repeat');
  t.equal(rendering.reads, 0, 'from the kept answer: nothing read to render it');
  await mark(carol, 'bookmark');
  t.ok(rendering.reads > 0, 'where the GET answer is not kept (carol\'s first bookmark writes), it is rendered');

  const carols = await mark(carol, 'favourite');
  t.strictSame([carols.json.favourited, carols.json.favourites_count, carols.json.bookmarked], [true, 2, true], 'carol: her own flags (her bookmark) and the new count');
  const bobs = await mark(bob, 'favourite');
  t.strictSame([bobs.json.favourited, bobs.json.favourites_count], [true, 2], 'bob\'s repeat after carol\'s write shows her favourite');
  t.equal(bobs.body, (await read(bob)).body);

  t.strictSame((await mark(bob, 'bookmark')).json.bookmarked, true, 'bookmarked');
  const rebookmark = await mark(bob, 'bookmark');
  t.strictSame([rebookmark.json.bookmarked, rebookmark.body], [true, (await read(bob)).body], 'a repeated bookmark: the GET answer');
  t.strictSame((await mark(carol, 'favourite')).json.bookmarked, true, 'carol\'s own bookmark');
  t.strictSame((await mark(carol, 'unbookmark')).json.bookmarked, false, 'carol unbookmarked');
  t.strictSame([(await mark(carol, 'favourite')).json.bookmarked, (await read(bob)).json.bookmarked], [false, true], 'carol never gets bob\'s bookmark');
  t.strictSame((await mark(bob, 'unbookmark')).json.bookmarked, false, 'unbookmarked');

  t.strictSame([(await mark(bob, 'unfavourite')).json.favourited, (await read(bob)).json.favourites_count], [false, 1], 'unfavourited');
  const again = await mark(bob, 'unfavourite');
  t.strictSame([again.json.favourited, again.json.favourites_count, again.body], [false, 1, (await read(bob)).body], 'a repeated unfavourite: the GET answer');

  // A write outside any request (as another process's would) moves the stamp: the repeat after
  // it is answered as the status is now.
  await h.core.storage.interactions.favourite({ id: h.core.ids.next(), accountId: alice.account.id, statusId: status.id, createdAt: h.clock.now() });
  t.equal((await mark(carol, 'favourite')).json.favourites_count, 2, 'a write outside any request shows at once');
});

t.test('a poll that closes with nothing written shows as expired', async (t) => {
  const h = await harness({ plugins: [pollsPlugin()] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const status = await post(h, alice, { status: 'pick one', poll: { options: ['yes', 'no'], expires_in: 3600 } });
  const path = `/api/v1/statuses/${status.id}`;
  t.equal((await h.request('GET', path)).json.poll.expired, false);
  t.equal((await h.request('GET', path)).json.poll.expired, false, 'kept, still open');
  h.clock.advance(3600 * 1000);
  t.equal((await h.request('GET', path)).json.poll.expired, true, 'closed at its time');
  t.equal((await h.request('GET', '/api/v1/timelines/public')).json[0].poll.expired, true, 'in the timeline too');
});

t.test('CORS headers are each request\'s own', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const status = await post(h, alice, 'cross origin');
  const path = `/api/v1/statuses/${status.id}`;
  const one = await h.request('GET', path, { headers: { origin: 'https://one.example' } });
  const two = await h.request('GET', path, { headers: { origin: 'https://two.example' } });
  const none = await h.request('GET', path);
  t.strictSame(
    [one, two, none].map((res) => [res.headers['access-control-allow-origin'], String(res.headers['vary']).split(',')[0]]),
    [['https://one.example', 'origin'], ['https://two.example', 'origin'], [undefined, 'origin']],
  );
});

t.test('rate limits count kept answers, with their headers', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const status = await post(h, alice, 'counted');
  const from = { 'x-forwarded-for': '203.0.113.9' };
  const remaining: unknown[] = [];
  for (let i = 0; i < 3; i++) remaining.push((await h.request('GET', `/api/v1/statuses/${status.id}`, { headers: from })).headers['x-ratelimit-remaining']);
  t.strictSame(remaining, ['299', '298', '297']);
});

t.test('an IP block shuts a client out of kept answers at once', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Admin', scopes: ['read', 'write', 'admin:read', 'admin:write'] });
  const status = await post(h, ada, 'blocked soon');
  const from = { 'x-forwarded-for': '198.51.100.7' };
  const path = `/api/v1/statuses/${status.id}`;
  t.equal((await h.request('GET', path, { headers: from })).statusCode, 200);
  const made = await h.request('POST', '/api/v1/admin/ip_blocks', { token: ada.token, headers: { 'x-forwarded-for': '192.0.2.1' }, payload: { ip: '198.51.100.0/24', severity: 'no_access' } });
  t.equal(made.statusCode, 200);
  const refused = await h.request('GET', path, { headers: from });
  t.strictSame([refused.statusCode, refused.body], [403, 'Forbidden\n']);
});

t.test('HEAD is answered from the kept answer, without a body', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const status = await post(h, alice, 'heads up');
  const got = await h.request('GET', `/api/v1/statuses/${status.id}`);
  const head = await h.request('HEAD', `/api/v1/statuses/${status.id}`);
  t.strictSame([head.statusCode, head.body, head.headers['content-type']], [200, '', got.headers['content-type']]);
});
