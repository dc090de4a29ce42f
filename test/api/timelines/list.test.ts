// GET /api/v1/timelines/list/:list_id: members' statuses under the list's replies policy.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const owner = await h.user('owner');
const member = await h.user('member');
const followedOutsider = await h.user('followed');
const stranger = await h.user('stranger');
const other = await h.user('othermember');
for (const u of [member, followedOutsider, other]) await follow(h, owner, u);

async function listWith(policy: string): Promise<string> {
  const list = await h.request('POST', '/api/v1/lists', { token: owner.token, payload: { title: policy, replies_policy: policy } });
  await h.request('POST', `/api/v1/lists/${list.json.id}/accounts`, { token: owner.token, payload: { account_ids: [member.account.id, other.account.id] } });
  return list.json.id;
}

const lists = { list: await listWith('list'), followed: await listWith('followed'), none: await listWith('none') };
const outsiders = await post(h, followedOutsider, 'outsider');
const strangers = await post(h, stranger, 'stranger');
const otherPost = await post(h, other, 'other member');
const plain = await post(h, member, 'plain');
const priv = await post(h, member, 'private', { visibility: 'private' });
const toMember = await post(h, member, 'to a member', { in_reply_to_id: otherPost.id });
const toFollowed = await post(h, member, 'to followed', { in_reply_to_id: outsiders.id });
const toStranger = await post(h, member, 'to stranger', { in_reply_to_id: strangers.id });
const toOwner = await post(h, member, 'to owner', { in_reply_to_id: (await post(h, owner, 'owner')).id });
const selfReply = await post(h, member, 'self', { in_reply_to_id: plain.id });
const notMember = await post(h, followedOutsider, 'not a member');

async function timeline(id: string): Promise<string[]> {
  const res = await h.request('GET', `/api/v1/timelines/list/${id}`, { token: owner.token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return ids(res.json);
}

const newestFirst = (...statuses: { id: string }[]) => ids(statuses).reverse();

t.test('replies_policy list: replies to members only', async (t) => {
  t.same(await timeline(lists.list), newestFirst(otherPost, plain, priv, toMember, selfReply));
});

t.test('replies_policy followed: replies to anyone the owner follows, or the owner', async (t) => {
  t.same(await timeline(lists.followed), newestFirst(otherPost, plain, priv, toMember, toFollowed, toOwner, selfReply));
});

t.test('replies_policy none: no replies to others', async (t) => {
  t.same(await timeline(lists.none), newestFirst(otherPost, plain, priv, selfReply));
  t.notOk((await timeline(lists.none)).includes(notMember.id));
  t.notOk((await timeline(lists.followed)).includes(toStranger.id));
});

t.test('auth: read:lists', async (t) => {
  t.equal((await h.request('GET', `/api/v1/timelines/list/${lists.list}`)).statusCode, 401);
  const reader = await h.user('statusreader', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', `/api/v1/timelines/list/${lists.list}`, { token: reader.token })).statusCode, 403);
});
