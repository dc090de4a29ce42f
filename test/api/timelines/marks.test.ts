// GET /api/v1/bookmarks and /api/v1/favourites: newest mark first, paged by the mark.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, links, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const reader = await h.user('reader');
const author = await h.user('author');
const s1 = await post(h, author, 'one');
const s2 = await post(h, author, 'two');
const s3 = await post(h, author, 'three');

for (const [kind, action, flag] of [['bookmarks', 'bookmark', 'bookmarked'], ['favourites', 'favourite', 'favourited']] as const) {
  t.test(`${kind}: order of marking, not of posting; Link by mark id`, async (t) => {
    for (const s of [s2, s1, s3]) {
      t.equal((await h.request('POST', `/api/v1/statuses/${s.id}/${action}`, { token: reader.token })).statusCode, 200);
    }
    const all = await h.request('GET', `/api/v1/${kind}`, { token: reader.token });
    t.equal(all.statusCode, 200);
    t.same(ids(all.json), [s3.id, s1.id, s2.id]);
    t.equal(all.json[0][flag], true);
    const page = await h.request('GET', `/api/v1/${kind}?limit=2`, { token: reader.token });
    t.same(ids(page.json), [s3.id, s1.id]);
    const link = links(page.headers);
    t.match(link['next'], new RegExp(`^https://rookery\\.test/api/v1/${kind}\\?limit=2&max_id=\\d+$`));
    t.match(link['prev'], new RegExp(`^https://rookery\\.test/api/v1/${kind}\\?limit=2&min_id=\\d+$`));
    t.notSame(link['next'], `https://rookery.test/api/v1/${kind}?limit=2&max_id=${s1.id}`, 'the cursor is the mark, not the status');
    const rest = await h.request('GET', (link['next'] ?? '').replace('https://rookery.test', ''), { token: reader.token });
    t.same(ids(rest.json), [s2.id]);
    const newer = await h.request('GET', (links(rest.headers)['prev'] ?? '').replace('https://rookery.test', ''), { token: reader.token });
    t.same(ids(newer.json), [s3.id, s1.id]);
    t.equal((await h.request('GET', `/api/v1/${kind}`)).statusCode, 401);
  });
}

t.test('a status that became invisible or was deleted leaves the list', async (t) => {
  const priv = await post(h, author, 'followers only', { visibility: 'private' });
  await follow(h, reader, author);
  await h.request('POST', `/api/v1/statuses/${priv.id}/bookmark`, { token: reader.token });
  t.equal(ids((await h.request('GET', '/api/v1/bookmarks', { token: reader.token })).json)[0], priv.id);
  await h.request('POST', `/api/v1/accounts/${author.account.id}/unfollow`, { token: reader.token });
  t.notOk(ids((await h.request('GET', '/api/v1/bookmarks', { token: reader.token })).json).includes(priv.id));
  await h.request('DELETE', `/api/v1/statuses/${s3.id}`, { token: author.token });
  t.same(ids((await h.request('GET', '/api/v1/bookmarks', { token: reader.token })).json), [s1.id, s2.id]);
});

t.test('scopes: read:bookmarks does not read favourites', async (t) => {
  const narrow = await h.user('narrow', { scopes: ['read:bookmarks'] });
  t.equal((await h.request('GET', '/api/v1/bookmarks', { token: narrow.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/favourites', { token: narrow.token })).statusCode, 403);
});
