// The home feed's de-duplication of boosts, in the REST home timeline and in the home stream
// alike: a boost whose original, or another boost of the same original, is among the 40 feed
// entries just before it is left out (core/domain/feeds.ts; docs/behaviour.md, "Home feed").

import t from 'tap';
import { BOOST_WINDOW } from '../../../core/domain/feeds.ts';
import { act, boost, follow, ids, links, post, quietStatuses } from '../../helpers/api.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { openStream } from '../../helpers/streams.ts';

let h: Harness;
let reader: TestUser;
let author: TestUser;
let friend: TestUser;
let other: TestUser;
t.beforeEach(async () => {
  h = await harness();
  reader = await h.user('reader');
  author = await h.user('author');
  friend = await h.user('friend');
  other = await h.user('other');
  await follow(h, reader, friend);
  await follow(h, reader, other);
});
t.afterEach(() => h.close());

async function home(query = '?limit=40'): Promise<string[]> {
  const res = await h.request('GET', `/api/v1/timelines/home${query}`, { token: reader.token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return ids(res.json);
}

t.test('a boost of a status just seen in the feed is left out, from the timeline and the stream', async (t) => {
  t.equal(BOOST_WINDOW, 40, 'the window is the 40 entries before the boost');
  await follow(h, reader, author);
  const stream = await openStream(h, reader, 'user');
  const original = await post(h, author, 'worth sharing');
  const repeat = await boost(h, friend, original.id);
  t.strictSame(await home(), [original.id], 'the timeline: the original, not its boost');
  t.strictSame(stream.sink.events(), [`update ${original.id}`], 'the stream: the original, not its boost');
  t.equal((await h.request('GET', `/api/v1/statuses/${repeat.id}`, { token: reader.token })).statusCode, 200, 'the boost itself is readable');
});

t.test('of two boosts of one status close together only the first shows', async (t) => {
  const stream = await openStream(h, reader, 'user');
  const original = await post(h, author, 'not followed by the reader');
  const first = await boost(h, friend, original.id);
  const second = await boost(h, other, original.id);
  t.strictSame(await home(), [first.id], 'the timeline');
  t.strictSame(stream.sink.events(), [`update ${first.id}`], 'the stream');
  t.notOk((await home()).includes(second.id));
});

t.test('the edge of the window: 40 entries in between and the boost shows, 39 and it does not', async (t) => {
  await follow(h, reader, author);
  const far = await post(h, author, 'far back');
  await quietStatuses(h, other, BOOST_WINDOW);
  const near = await post(h, author, 'nearer');
  await quietStatuses(h, other, BOOST_WINDOW - 1);
  const stream = await openStream(h, reader, 'user');
  // 39 entries, then the original: the 40th entry back.
  const dropped = await boost(h, other, near.id);
  // The dropped boost, 39 entries, `near`, then 40 entries before `far`.
  const shown = await boost(h, friend, far.id);
  t.strictSame(stream.sink.events(), [`update ${shown.id}`], 'the stream: only the boost of the status far back');
  const timeline = await home('?limit=40');
  t.equal(timeline[0], shown.id, 'the timeline shows it too');
  t.notOk(timeline.includes(dropped.id), 'and leaves the other out');

  // Another boost of `far`, 40 entries after the shown one, shows again; at 39, not.
  await quietStatuses(h, other, BOOST_WINDOW - 1);
  const tooSoon = await boost(h, other, far.id);
  await quietStatuses(h, other, BOOST_WINDOW);
  const again = await act(h, author, far.id, 'reblog');
  t.equal(again.statusCode, 200);
  t.strictSame(stream.sink.events(), [`update ${shown.id}`, `update ${again.json.id}`], 'a boost 40 entries after the last one shows');
  const latest = await home('?limit=40');
  t.equal(latest[0], again.json.id);
  t.notOk((await home(`?limit=40&max_id=${latest.at(-1)}`)).includes(tooSoon.id), 'the one 39 entries after it does not');
});

t.test("entries are what the reader's feed shows: a boost the feed hides does not count", async (t) => {
  const quiet = await h.user('quiet');
  await follow(h, reader, quiet, { reblogs: false });
  const original = await post(h, author, 'boosted twice');
  const hidden = await boost(h, quiet, original.id);
  const shown = await boost(h, friend, original.id);
  t.strictSame(await home(), [shown.id], "the boost of an account whose boosts the reader hides is no entry, so the next one shows");
  t.notOk((await home()).includes(hidden.id));
});

t.test('every way of paging agrees with the whole timeline', async (t) => {
  await follow(h, reader, author);
  const far = await post(h, author, 'far back');
  await quietStatuses(h, author, BOOST_WINDOW);
  const recent: { id: string }[] = [];
  for (let i = 0; i < 5; i += 1) recent.push(await post(h, author, `post ${i}`));
  // Boosts of recent statuses (left out), then two of the one far back (the first shown).
  const boosts: { id: string }[] = [];
  for (const s of recent) boosts.push(await boost(h, friend, s.id));
  const shown = await boost(h, friend, far.id);
  boosts.push(shown, await boost(h, other, far.id));
  const all = await home('?limit=40');
  t.equal(all.length, 40, 'a full page');
  t.strictSame(all.filter((id) => boosts.some((b) => b.id === id)), [shown.id], 'one boost of the far status, none of the recent ones');
  const whole: string[] = [];
  let path: string | undefined = '/api/v1/timelines/home?limit=7';
  for (let pages = 0; path !== undefined && pages < 20; pages += 1) {
    const res = await h.request('GET', path, { token: reader.token });
    if (res.json.length === 0) break;
    whole.push(...ids(res.json));
    path = links(res.headers)['next']?.replace('https://rookery.test', '');
  }
  t.strictSame(whole.slice(0, 40), all, 'paging down by 7 gives the same entries in the same order');
  t.equal(whole.at(-1), far.id, 'down to the oldest entry');
  // Paging up from an entry gives the nearest entries above it, as the whole timeline has them.
  for (const cursor of [whole[12] ?? '', whole[6] ?? '']) {
    const index = whole.indexOf(cursor);
    t.strictSame(await home(`?limit=5&min_id=${cursor}`), whole.slice(Math.max(0, index - 5), index), `min_id paging agrees (from entry ${index})`);
  }
});

t.test("one's own boost of a status in one's home is left out of one's own home too", async (t) => {
  await follow(h, reader, author);
  const stream = await openStream(h, reader, 'user');
  const original = await post(h, author, 'I will boost this');
  const mine = await act(h, reader, original.id, 'reblog');
  t.equal(mine.statusCode, 200);
  t.equal(mine.json.reblog.reblogged, true, 'the boost happened');
  t.strictSame(stream.sink.events(), [`update ${original.id}`]);
  t.strictSame(await home(), [original.id]);
});
