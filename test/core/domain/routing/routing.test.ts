// Which event reaches which stream channel, rendered for whom — and which must not.

import t from 'tap';
import type { Follow, List, Status } from '../../../../core/domain/model.ts';
import { routeStatus, type Audience, type Route, type RouteKind } from '../../../../core/domain/routing/routing.ts';
import { account, status } from '../../../helpers/fixtures.ts';

const author = account({ username: 'author' });
const fan = account({ username: 'fan' });
const quiet = account({ username: 'quiet' }); // follows author but hides their boosts
const other = account({ username: 'other' });
const target = account({ username: 'target' });

function follow(from: string, to: string, showReblogs = true): Follow {
  return { id: `${from}${to}`, accountId: from, targetAccountId: to, showReblogs, notify: false, languages: null, createdAt: 0 };
}

function list(id: string, owner: string, repliesPolicy: List['repliesPolicy']): List {
  return { id, accountId: owner, title: id, repliesPolicy, exclusive: false, createdAt: 0 };
}

const base: Audience = {
  authorIsLocal: true,
  followers: [follow(fan.id, author.id), follow(quiet.id, author.id, false)],
  lists: [],
  replyTargetFollowerIds: new Set(),
  listsWithReplyTarget: new Set(),
  localMentionIds: [],
  tagFollowerIds: [],
};

function route(subject: Status, audience: Partial<Audience> = {}, kind: RouteKind = 'update'): Route[] {
  return routeStatus(subject, { ...base, ...audience }, kind);
}

function channelsOf(routes: Route[]): string[] {
  return routes.map((r) => r.channel).sort();
}

t.test('a public status with a hashtag', async (t) => {
  const routes = route(status(author, { tags: ['cats'] }));
  t.same(channelsOf(routes), [
    'timeline:hashtag:cats',
    'timeline:hashtag:cats:local',
    'timeline:public',
    'timeline:public:local',
    `timeline:${author.id}`,
    `timeline:${fan.id}`,
    `timeline:${quiet.id}`,
  ].sort());
  t.same(routes.find((r) => r.channel === 'timeline:public')?.viewerId, null, 'public channels render anonymously');
  t.same(routes.find((r) => r.channel === `timeline:${fan.id}`)?.viewerId, fan.id, 'home streams render for their owner');
});

t.test('media variants of the public channels', async (t) => {
  const channels = channelsOf(route(status(author, { mediaIds: ['9'] })));
  t.ok(channels.includes('timeline:public:media'));
  t.ok(channels.includes('timeline:public:local:media'));
  t.notOk(channelsOf(route(status(author))).includes('timeline:public:media'), 'no media, no media channel');
});

t.test('a remote status reaches the remote public channel, no local-only channel and no author home', async (t) => {
  const remote = account({ username: 'far', domain: 'far.example' });
  const channels = channelsOf(route(status(remote, { local: false, tags: ['cats'] }), { authorIsLocal: false, followers: [follow(fan.id, remote.id)] }));
  t.same(channels, ['timeline:hashtag:cats', 'timeline:public', 'timeline:public:remote', `timeline:${fan.id}`].sort());
  const withMedia = channelsOf(route(status(remote, { local: false, mediaIds: ['9'] }), { authorIsLocal: false, followers: [] }));
  t.same(withMedia, ['timeline:public', 'timeline:public:media', 'timeline:public:remote', 'timeline:public:remote:media'].sort(), 'and its media variant');
});

t.test('unlisted and private statuses reach homes only', async (t) => {
  for (const visibility of ['unlisted', 'private'] as const) {
    const channels = channelsOf(route(status(author, { visibility, tags: ['cats'] })));
    t.same(channels, [`timeline:${author.id}`, `timeline:${fan.id}`, `timeline:${quiet.id}`].sort(), visibility);
  }
});

t.test('a direct status reaches the direct channels of author and mentioned, nothing else', async (t) => {
  const routes = route(status(author, { visibility: 'direct', mentionIds: [other.id], tags: ['cats'] }), { localMentionIds: [other.id] });
  t.same(channelsOf(routes), [`timeline:direct:${author.id}`, `timeline:direct:${other.id}`].sort());
  t.same(routes.find((r) => r.channel === `timeline:direct:${other.id}`)?.viewerId, other.id);
});

t.test('a boost reaches the booster and followers who show boosts, never public channels', async (t) => {
  const boost = status(author, { reblogOfId: '42', tags: [] });
  t.same(channelsOf(route(boost)), [`timeline:${author.id}`, `timeline:${fan.id}`].sort());
  t.notOk(channelsOf(route(boost)).includes(`timeline:${quiet.id}`), 'hidden boosts stay hidden');
});

t.test('a reply to someone else', async (t) => {
  const reply = status(author, { inReplyToId: '7', inReplyToAccountId: target.id, tags: ['cats'] });
  const plain = channelsOf(route(reply));
  t.notOk(plain.includes('timeline:public'), 'not on the public timeline');
  t.ok(plain.includes('timeline:hashtag:cats'), 'still on the hashtag timeline');
  t.notOk(plain.includes(`timeline:${fan.id}`), 'not to followers who do not follow the one replied to');
  t.ok(plain.includes(`timeline:${author.id}`), 'always to the author');
  const followed = channelsOf(route(reply, { replyTargetFollowerIds: new Set([fan.id]) }));
  t.ok(followed.includes(`timeline:${fan.id}`), 'to followers who follow both');
  const toFan = channelsOf(route(status(author, { inReplyToId: '7', inReplyToAccountId: fan.id })));
  t.ok(toFan.includes(`timeline:${fan.id}`), 'to the follower replied to');
});

t.test('a self-reply behaves like a new status', async (t) => {
  const channels = channelsOf(route(status(author, { inReplyToId: '7', inReplyToAccountId: author.id })));
  t.ok(channels.includes('timeline:public'));
  t.ok(channels.includes(`timeline:${fan.id}`));
});

t.test('lists: membership needs a follow, and the replies policy applies', async (t) => {
  const lists = [list('101', fan.id, 'list'), list('102', fan.id, 'followed'), list('103', fan.id, 'none'), list('104', other.id, 'list')];
  const post = channelsOf(route(status(author), { lists }));
  t.ok(post.includes('timeline:list:101') && post.includes('timeline:list:102') && post.includes('timeline:list:103'));
  t.notOk(post.includes('timeline:list:104'), 'the owner of list 104 does not follow the author');
  const reply = status(author, { inReplyToId: '7', inReplyToAccountId: target.id });
  const none = channelsOf(route(reply, { lists }));
  t.notOk(none.some((c) => c.startsWith('timeline:list:')), 'no list shows a reply to someone unrelated');
  const inList = channelsOf(route(reply, { lists, listsWithReplyTarget: new Set(['101']) }));
  t.ok(inList.includes('timeline:list:101'), "'list': the one replied to is in the list");
  t.notOk(inList.includes('timeline:list:103'), "'none' never shows replies");
  const followed = channelsOf(route(reply, { lists, replyTargetFollowerIds: new Set([fan.id]) }));
  t.ok(followed.includes('timeline:list:102'), "'followed': the owner follows the one replied to");
  t.same(route(status(author), { lists }).find((r) => r.channel === 'timeline:list:101')?.viewerId, fan.id, 'rendered for the list owner');
});

t.test('delete goes wherever the status could have gone', async (t) => {
  const reply = status(author, { inReplyToId: '7', inReplyToAccountId: target.id, visibility: 'public' });
  const channels = channelsOf(route(reply, {}, 'delete'));
  t.ok(channels.includes(`timeline:${fan.id}`), 'reply filters do not hold deletes back');
  t.ok(channels.includes(`timeline:${quiet.id}`));
  const boost = channelsOf(route(status(author, { reblogOfId: '9' }), {}, 'delete'));
  t.ok(boost.includes(`timeline:${quiet.id}`), 'the delete of a boost reaches followers hiding boosts too');
});

t.test('status.update also reaches the home streams of mentioned accounts', async (t) => {
  const edited = status(author, { mentionIds: [other.id] });
  t.ok(channelsOf(route(edited, { localMentionIds: [other.id] }, 'status.update')).includes(`timeline:${other.id}`));
  t.notOk(channelsOf(route(edited, { localMentionIds: [other.id] }, 'update')).includes(`timeline:${other.id}`), 'a new status does not');
});

t.test('no channel is named twice', async (t) => {
  const routes = route(status(author, { tags: ['a', 'a'] }), { followers: [follow(fan.id, author.id), follow(fan.id, author.id)] });
  t.equal(new Set(routes.map((r) => r.channel)).size, routes.length);
});

t.test('a follow that asked for other languages does not get the status', async (t) => {
  const germanOnly = { ...follow(fan.id, author.id), languages: ['de'] };
  const english = channelsOf(route(status(author, { language: 'en' }), { followers: [germanOnly] }));
  t.notOk(english.includes(`timeline:${fan.id}`));
  const german = channelsOf(route(status(author, { language: 'de' }), { followers: [germanOnly] }));
  t.ok(german.includes(`timeline:${fan.id}`));
  const deleted = channelsOf(route(status(author, { language: 'en' }), { followers: [germanOnly] }, 'delete'));
  t.ok(deleted.includes(`timeline:${fan.id}`), 'deletes ignore feed rules');
});

t.test('followers of a hashtag get public non-boost statuses carrying it, replies included', async (t) => {
  const reply = status(author, { tags: ['cats'], inReplyToId: '99', inReplyToAccountId: quiet.id });
  t.ok(channelsOf(route(reply, { tagFollowerIds: [other.id] })).includes(`timeline:${other.id}`), 'a reply to someone they do not follow');
  t.notOk(channelsOf(route(status(author, { tags: ['cats'], visibility: 'unlisted' }), { tagFollowerIds: [other.id] })).includes(`timeline:${other.id}`), 'not unlisted');
  const boost = status(author, { tags: ['cats'], reblogOfId: '98' });
  t.notOk(channelsOf(route(boost, { tagFollowerIds: [other.id] })).includes(`timeline:${other.id}`), 'not a boost');
  t.ok(channelsOf(route(status(author, { tags: ['cats'] }), { tagFollowerIds: [other.id] }, 'delete')).includes(`timeline:${other.id}`), 'its delete too');
});

t.test('a suspended author: nowhere, but a delete still goes everywhere', async (t) => {
  const subject = status(author, { tags: ['cats'] });
  t.same(route(subject, { authorSuspended: true }), []);
  t.same(channelsOf(route(subject, { authorSuspended: true }, 'delete')), channelsOf(route(subject, {}, 'delete')));
});

t.test('a silenced author: homes and lists as before, no public or hashtag channel', async (t) => {
  const subject = status(author, { tags: ['cats'] });
  t.same(channelsOf(route(subject, { authorSilenced: true })), [`timeline:${author.id}`, `timeline:${fan.id}`, `timeline:${quiet.id}`].sort());
  t.ok(channelsOf(route(subject, { authorSilenced: true }, 'delete')).includes('timeline:public'), 'a delete still reaches the public channels');
});
