// Lists: CRUD, the rules on titles, replies policies, the limit, owners and members.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, links } from '../../helpers/api.ts';

const h = await harness({ config: { limits: { maxLists: 3 } } });
t.teardown(() => h.close());
const owner = await h.user('owner');
const other = await h.user('other');
const m1 = await h.user('m1');
const m2 = await h.user('m2');
const m3 = await h.user('m3');
for (const m of [m1, m2, m3]) await follow(h, owner, m);

async function createList(payload: Record<string, unknown>, token = owner.token) {
  return h.request('POST', '/api/v1/lists', { token, payload });
}

t.test('create, read, update, delete', async (t) => {
  const created = await createList({ title: 'Friends' });
  t.equal(created.statusCode, 200);
  t.same(Object.keys(created.json).sort(), ['exclusive', 'id', 'replies_policy', 'title']);
  t.match(created.json, { title: 'Friends', replies_policy: 'list', exclusive: false });
  const id = created.json.id;
  t.same((await h.request('GET', `/api/v1/lists/${id}`, { token: owner.token })).json, created.json);
  t.same((await h.request('GET', '/api/v1/lists', { token: owner.token })).json, [created.json]);
  const updated = await h.request('PUT', `/api/v1/lists/${id}`, { token: owner.token, payload: { title: 'Pals', replies_policy: 'followed', exclusive: true } });
  t.equal(updated.statusCode, 200);
  t.same(updated.json, { id, title: 'Pals', replies_policy: 'followed', exclusive: true });
  // Rails routes an update to PATCH as well as PUT: clients use either.
  const partial = await h.request('PATCH', `/api/v1/lists/${id}`, { token: owner.token, payload: { replies_policy: 'none' } });
  t.same(partial.json, { id, title: 'Pals', replies_policy: 'none', exclusive: true }, 'what is not sent stays');
  const deleted = await h.request('DELETE', `/api/v1/lists/${id}`, { token: owner.token });
  t.equal(deleted.statusCode, 200);
  t.same(deleted.json, {});
  t.equal((await h.request('GET', `/api/v1/lists/${id}`, { token: owner.token })).statusCode, 404);
  t.same((await h.request('GET', '/api/v1/lists', { token: owner.token })).json, []);
});

t.test('validation: blank title, unknown replies policy, the maximum number of lists', async (t) => {
  for (const payload of [{}, { title: '' }, { title: '   ' }]) {
    const res = await createList(payload);
    t.equal(res.statusCode, 422);
    t.same(res.json, { error: "Validation failed: Title can't be blank" });
  }
  const policy = await createList({ title: 'x', replies_policy: 'everyone' });
  t.equal(policy.statusCode, 422);
  t.same(policy.json, { error: 'Validation failed: Replies policy is not included in the list' });
  const exclusive = await createList({ title: 'Form', exclusive: 'true', replies_policy: 'none' }, other.token);
  t.match(exclusive.json, { title: 'Form', exclusive: true, replies_policy: 'none' });
  const made = [];
  for (const title of ['a', 'b', 'c']) made.push((await createList({ title })).json.id);
  const tooMany = await createList({ title: 'd' });
  t.equal(tooMany.statusCode, 422);
  t.same(tooMany.json, { error: 'Validation failed: You have reached the maximum number of lists' });
  t.same((await h.request('GET', '/api/v1/lists', { token: owner.token })).json.map((l: { title: string }) => l.title), ['a', 'b', 'c'], 'oldest first');
  const blankUpdate = await h.request('PUT', `/api/v1/lists/${made[0]}`, { token: owner.token, payload: { title: '' } });
  t.equal(blankUpdate.statusCode, 422);
  for (const id of made) await h.request('DELETE', `/api/v1/lists/${id}`, { token: owner.token });
});

t.test("someone else's list is 404 for every operation", async (t) => {
  const id = (await createList({ title: 'mine' })).json.id;
  const calls: [string, string][] = [
    ['GET', `/api/v1/lists/${id}`],
    ['PUT', `/api/v1/lists/${id}`],
    ['DELETE', `/api/v1/lists/${id}`],
    ['GET', `/api/v1/lists/${id}/accounts`],
    ['POST', `/api/v1/lists/${id}/accounts`],
    ['DELETE', `/api/v1/lists/${id}/accounts`],
    ['GET', `/api/v1/timelines/list/${id}`],
  ];
  for (const [method, path] of calls) {
    const res = await h.request(method, path, { token: other.token, payload: { title: 'x', account_ids: [m1.account.id] } });
    t.equal(res.statusCode, 404, `${method} ${path}`);
    t.same(res.json, { error: 'Record not found' });
  }
  t.equal((await h.request('GET', '/api/v1/lists/abc', { token: owner.token })).statusCode, 404);
  await h.request('DELETE', `/api/v1/lists/${id}`, { token: owner.token });
});

t.test('members: followed accounts only, each once, paged', async (t) => {
  const id = (await createList({ title: 'members' })).json.id;
  const path = `/api/v1/lists/${id}/accounts`;
  const added = await h.request('POST', path, { token: owner.token, payload: { account_ids: [m1.account.id, m2.account.id] } });
  t.equal(added.statusCode, 200);
  t.same(added.json, {});
  await h.request('POST', `${path}?account_ids[]=${m3.account.id}`, { token: owner.token });
  t.same(ids((await h.request('GET', path, { token: owner.token })).json), [m3.account.id, m2.account.id, m1.account.id]);

  const duplicate = await h.request('POST', path, { token: owner.token, payload: { account_ids: [m1.account.id] } });
  t.equal(duplicate.statusCode, 422);
  t.same(duplicate.json, { error: 'Validation failed: Account has already been taken' });
  const notFollowed = await h.request('POST', path, { token: owner.token, payload: { account_ids: [other.account.id] } });
  t.equal(notFollowed.statusCode, 404);
  t.same(notFollowed.json, { error: 'Record not found' });
  t.equal((await h.request('POST', path, { token: owner.token, payload: { account_ids: ['999999'] } })).statusCode, 404);

  const page = await h.request('GET', `${path}?limit=2`, { token: owner.token });
  t.same(ids(page.json), [m3.account.id, m2.account.id]);
  const next = links(page.headers)['next'] ?? '';
  t.match(next, new RegExp(`^https://rookery\\.test${path}\\?limit=2&max_id=\\d+$`));
  t.same(ids((await h.request('GET', next.replace('https://rookery.test', ''), { token: owner.token })).json), [m1.account.id]);
  const all = await h.request('GET', `${path}?limit=0`, { token: owner.token });
  t.equal(all.json.length, 3);
  t.equal(all.headers['link'], undefined, 'limit=0: everything, no paging');

  const lists = await h.request('GET', `/api/v1/accounts/${m1.account.id}/lists`, { token: owner.token });
  t.same(ids(lists.json), [id]);
  t.same((await h.request('GET', `/api/v1/accounts/${m1.account.id}/lists`, { token: other.token })).json, []);

  const removed = await h.request('DELETE', path, { token: owner.token, payload: { account_ids: [m2.account.id] } });
  t.same(removed.json, {});
  t.same(ids((await h.request('GET', path, { token: owner.token })).json), [m3.account.id, m1.account.id]);

  await h.request('POST', `/api/v1/accounts/${m3.account.id}/unfollow`, { token: owner.token });
  t.same(ids((await h.request('GET', path, { token: owner.token })).json), [m1.account.id], 'unfollowing removes from lists');
  await follow(h, owner, m3);
  await h.request('DELETE', `/api/v1/lists/${id}`, { token: owner.token });
});

t.test('scopes: read:lists and write:lists', async (t) => {
  const reader = await h.user('lreader', { scopes: ['read:lists'] });
  t.equal((await h.request('GET', '/api/v1/lists', { token: reader.token })).statusCode, 200);
  const refused = await h.request('POST', '/api/v1/lists', { token: reader.token, payload: { title: 'x' } });
  t.equal(refused.statusCode, 403);
  t.same(refused.json, { error: 'This action is outside the authorized scopes' });
  const writer = await h.user('lwriter', { scopes: ['write:lists'] });
  t.equal((await h.request('POST', '/api/v1/lists', { token: writer.token, payload: { title: 'x' } })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/lists')).statusCode, 401);
});
