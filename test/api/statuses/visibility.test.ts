// The visibility matrix over HTTP: 4 visibilities × author / follower / mentioned / stranger /
// anonymous × view / context / boost / pin / favourite, with real follows and mentions. The
// expected table is shared with the pure policy test (test/helpers/visibility-matrix.ts).

import t from 'tap';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { followInStore, post } from '../../helpers/api.ts';
import { EXPECTED, OPS, ROLES, VISIBILITIES_IN_MATRIX, type Op, type Role } from '../../helpers/visibility-matrix.ts';

const REQUEST: Record<Op, { method: 'GET' | 'POST'; suffix: string }> = {
  view: { method: 'GET', suffix: '' },
  context: { method: 'GET', suffix: '/context' },
  boost: { method: 'POST', suffix: '/reblog' },
  pin: { method: 'POST', suffix: '/pin' },
  favourite: { method: 'POST', suffix: '/favourite' },
};

let h: Harness;
const users: Partial<Record<Role, TestUser>> = {};

t.before(async () => {
  h = await harness();
  users.author = await h.user('author');
  users.follower = await h.user('follower');
  users.mentioned = await h.user('mentioned');
  users.stranger = await h.user('stranger');
  await followInStore(h, users.follower, users.author);
});
t.after(async () => {
  await h.close();
});

for (const visibility of VISIBILITIES_IN_MATRIX) {
  t.test(`${visibility} status`, async (t) => {
    const author = users.author as TestUser;
    const subject = await post(h, author, { status: `Hi @mentioned, this is ${visibility}`, visibility });
    t.equal(subject.mentions.length, 1, 'the mention resolved');
    for (const op of OPS) {
      for (const [index, role] of ROLES.entries()) {
        const user = users[role];
        const { method, suffix } = REQUEST[op];
        const res = await h.request(method, `/api/v1/statuses/${subject.id}${suffix}`, user ? { token: user.token } : {});
        const got = res.statusCode === 200 ? '200' : `${res.statusCode} ${res.json?.error}`;
        t.equal(got, EXPECTED[visibility][op][index], `${op} by ${role}`);
      }
    }
  });
}

t.test('the signed-in view carries per-user flags; the anonymous one does not', async (t) => {
  const author = users.author as TestUser;
  const s = await post(h, author, 'flags');
  const signedIn = await h.request('GET', `/api/v1/statuses/${s.id}`, { token: (users.stranger as TestUser).token });
  for (const flag of ['favourited', 'reblogged', 'muted', 'bookmarked', 'pinned']) t.equal(signedIn.json[flag], false, `${flag} for a viewer`);
  const anonymous = await h.request('GET', `/api/v1/statuses/${s.id}`);
  for (const flag of ['favourited', 'reblogged', 'muted', 'bookmarked', 'pinned']) t.notOk(flag in anonymous.json, `${flag} absent anonymously`);
});

t.test('a private status is hidden from a former follower after unfollowing', async (t) => {
  const author = users.author as TestUser;
  const fan = await h.user('fan');
  await followInStore(h, fan, author);
  const s = await post(h, author, { status: 'for followers', visibility: 'private' });
  t.equal((await h.request('GET', `/api/v1/statuses/${s.id}`, { token: fan.token })).statusCode, 200);
  await h.core.storage.relationships.unfollow(fan.account.id, author.account.id);
  t.equal((await h.request('GET', `/api/v1/statuses/${s.id}`, { token: fan.token })).statusCode, 404);
});

t.test('a blocked viewer sees nothing of the blocker', async (t) => {
  const author = users.author as TestUser;
  const pest = await h.user('pest');
  const s = await post(h, author, 'public but not for you');
  await h.core.storage.relationships.block({ id: h.core.ids.next(), accountId: author.account.id, targetAccountId: pest.account.id, createdAt: Date.now() });
  const res = await h.request('GET', `/api/v1/statuses/${s.id}`, { token: pest.token });
  t.equal(res.statusCode, 404);
  t.same(res.json, { error: 'Record not found' });
  t.equal((await h.request('POST', `/api/v1/statuses/${s.id}/favourite`, { token: pest.token })).statusCode, 404);
});
