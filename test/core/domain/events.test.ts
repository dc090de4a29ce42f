// Event emission end to end: an operation commits, the core emits, and stream messages reach
// exactly the channels they should, rendered for the right viewer — and nothing reaches the
// channels they must not.

import t from 'tap';
import { createInProcessBus } from '../../../core/domain/bus.ts';
import type { EventBus, StreamMessage } from '../../../core/domain/ports/bus.ts';
import { harness, record, type Harness, type TestUser } from '../../helpers/harness.ts';
import { BOOST_WINDOW } from '../../../core/domain/feeds.ts';
import { act, followInStore, post, quietStatuses } from '../../helpers/api.ts';

let h: Harness;
let alice: TestUser;
let fan: TestUser;
let stranger: TestUser;
let listening: Awaited<ReturnType<typeof record>>;

function channelsFor(): string[] {
  return [
    'timeline:public',
    'timeline:public:local',
    'timeline:hashtag:cats',
    'timeline:hashtag:cats:local',
    `timeline:${alice.account.id}`,
    `timeline:${fan.account.id}`,
    `timeline:${stranger.account.id}`,
    `timeline:direct:${alice.account.id}`,
    `timeline:direct:${fan.account.id}`,
    `timeline:direct:${stranger.account.id}`,
  ];
}

t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  fan = await h.user('fan');
  stranger = await h.user('stranger');
  await followInStore(h, fan, alice);
  listening = await record(h.bus, channelsFor());
});
t.afterEach(async () => {
  await listening.stop();
  await h.close();
});

/** What reached the channels once every queued job ran. */
const settle = () => h.rookery.drain();
const got = () => listening.messages.map((m) => `${m.channel} ${m.message.event}`).sort();
const payloadOn = (channel: string) => JSON.parse(listening.messages.find((m) => m.channel === channel)?.message.payload ?? 'null');

t.test('a public status with a hashtag: update on public, local, hashtag and the homes of author and follower', async (t) => {
  await post(h, alice, 'hello #cats');
  t.same(got(), [
    'timeline:hashtag:cats update',
    'timeline:hashtag:cats:local update',
    'timeline:public update',
    'timeline:public:local update',
    `timeline:${alice.account.id} update`,
    `timeline:${fan.account.id} update`,
  ].sort());
  t.notOk('favourited' in payloadOn('timeline:public'), 'public channels carry the anonymous rendering');
  t.equal(payloadOn(`timeline:${fan.account.id}`).favourited, false, 'home streams carry the per-user rendering');
  t.equal(payloadOn('timeline:public').content, '<p>hello <a href="https://rookery.test/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a></p>');
});

t.test('unlisted and private statuses: homes only', async (t) => {
  await post(h, alice, { status: 'quiet #cats', visibility: 'unlisted' });
  await post(h, alice, { status: 'followers #cats', visibility: 'private' });
  t.same(got(), [`timeline:${alice.account.id} update`, `timeline:${alice.account.id} update`, `timeline:${fan.account.id} update`, `timeline:${fan.account.id} update`].sort());
});

t.test('a direct status: the direct channels of author and mentioned, nothing else', async (t) => {
  // From someone the stranger does not follow: the mention is held as a request (Mastodon's
  // default policy), so only the author's conversation moves.
  await post(h, alice, { status: '@stranger psst #cats', visibility: 'direct' });
  t.same(got(), [`timeline:direct:${alice.account.id} update`, `timeline:direct:${stranger.account.id} update`, `timeline:${alice.account.id} conversation`, `timeline:direct:${alice.account.id} conversation`].sort());
  listening.messages.length = 0;
  // Once the stranger takes private mentions from anyone: the mention and the conversation too.
  await h.request('PATCH', '/api/v2/notifications/policy', { token: stranger.token, payload: { for_private_mentions: 'accept' } });
  await post(h, alice, { status: '@stranger again', visibility: 'direct' });
  t.same(
    got(),
    [
      `timeline:direct:${alice.account.id} update`,
      `timeline:direct:${stranger.account.id} update`,
      `timeline:${stranger.account.id} notification`,
      `timeline:${alice.account.id} conversation`,
      `timeline:direct:${alice.account.id} conversation`,
      `timeline:${stranger.account.id} conversation`,
      `timeline:direct:${stranger.account.id} conversation`,
    ].sort(),
  );
  t.equal(payloadOn(`timeline:${stranger.account.id}`).type, 'mention');
});

t.test('favourite: a notification for the author only; none for favouriting your own', async (t) => {
  const s = await post(h, alice, 'like');
  listening.messages.length = 0;
  await act(h, fan, s.id, 'favourite');
  t.same(got(), [`timeline:${alice.account.id} notification`]);
  const note = payloadOn(`timeline:${alice.account.id}`);
  t.equal(note.type, 'favourite');
  t.equal(note.account.id, fan.account.id);
  t.equal(note.status.id, s.id);
  t.equal(note.status.favourited, false, 'rendered for the recipient');
  listening.messages.length = 0;
  await act(h, alice, s.id, 'favourite');
  t.same(got(), [], 'no notification about yourself');
  listening.messages.length = 0;
  await act(h, fan, s.id, 'favourite');
  t.same(got(), [], 'a repeated favourite changes nothing and notifies nobody');
});

t.test('a muted conversation notifies nothing', async (t) => {
  const s = await post(h, alice, 'thread');
  await act(h, alice, s.id, 'mute');
  listening.messages.length = 0;
  await act(h, stranger, s.id, 'favourite');
  await act(h, stranger, s.id, 'reblog');
  t.notOk(got().some((line) => line.endsWith('notification')), 'no notification of any kind');
});

t.test('boost: a reblog notification and the boost in the booster\'s home and followers\' homes, not public', async (t) => {
  const s = await post(h, stranger, 'original');
  await followInStore(h, fan, stranger);
  // Far enough back in fan's home that the boost is not a repeat of it (core/feeds.ts).
  await quietStatuses(h, stranger, BOOST_WINDOW);
  listening.messages.length = 0;
  const boost = await act(h, alice, s.id, 'reblog');
  t.same(got(), [`timeline:${alice.account.id} update`, `timeline:${fan.account.id} update`, `timeline:${stranger.account.id} notification`].sort());
  t.equal(payloadOn(`timeline:${fan.account.id}`).id, boost.json.id);
  t.equal(payloadOn(`timeline:${fan.account.id}`).reblog.id, s.id);
  t.equal(payloadOn(`timeline:${stranger.account.id}`).type, 'reblog');
  listening.messages.length = 0;
  await act(h, alice, s.id, 'unreblog');
  t.same(got(), [`timeline:${alice.account.id} delete`, `timeline:${fan.account.id} delete`].sort(), 'undo deletes the boost where it went');
  t.equal(listening.messages[0]?.message.payload, boost.json.id, 'the payload is the bare id');
});

t.test('delete: the id on every channel that showed the status, its boosts too', async (t) => {
  const s = await post(h, alice, 'soon gone #cats');
  const boost = await act(h, stranger, s.id, 'reblog');
  listening.messages.length = 0;
  await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  const deletes = listening.messages.filter((m) => m.message.event === 'delete');
  t.same(new Set(deletes.filter((m) => m.message.payload === s.id).map((m) => m.channel)), new Set([
    'timeline:public', 'timeline:public:local', 'timeline:hashtag:cats', 'timeline:hashtag:cats:local', `timeline:${alice.account.id}`, `timeline:${fan.account.id}`,
  ]));
  t.ok(deletes.some((m) => m.message.payload === boost.json.id && m.channel === `timeline:${stranger.account.id}`), "the boost's delete reaches the booster");
  t.notOk(listening.messages.some((m) => m.message.event !== 'delete'), 'nothing but deletes');
});

t.test('follow and filters_changed', async (t) => {
  const followRecord = { id: h.core.ids.next(), accountId: stranger.account.id, targetAccountId: alice.account.id, showReblogs: true, notify: false, languages: null, createdAt: Date.now() };
  await h.core.storage.relationships.follow(followRecord, () => h.core.record({ type: 'account.followed', follow: followRecord, requested: false }));
  await settle();
  t.equal(payloadOn(`timeline:${alice.account.id}`).type, 'follow');
  listening.messages.length = 0;
  await h.core.enqueue(h.core.record({ type: 'filters.changed', accountId: fan.account.id, filter: null }));
  await settle();
  t.same(listening.messages, [{ channel: `timeline:${fan.account.id}`, message: { event: 'filters_changed' } }], 'no payload');
});

t.test('nothing is rendered or published for channels nobody listens to', async (t) => {
  const inner = createInProcessBus();
  const published: string[] = [];
  const spy: EventBus = {
    publish: async (channel: string, message: StreamMessage) => {
      published.push(channel);
      await inner.publish(channel, message);
    },
    subscribe: (channel, handler) => inner.subscribe(channel, handler),
    hasSubscribers: (channel) => inner.hasSubscribers(channel),
    listening: (channels) => inner.listening(channels),
    close: () => inner.close(),
  };
  const quiet = await harness({ bus: spy });
  const author = await quiet.user('author');
  await post(quiet, author, 'into the void #cats');
  t.same(published, [], 'no listener, no message');
  const stop = await spy.subscribe('timeline:public', () => {});
  await post(quiet, author, 'someone listens');
  t.same(published, ['timeline:public']);
  await stop();
  await quiet.close();
});
