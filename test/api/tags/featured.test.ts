// Featured hashtags: GET/POST /api/v1/featured_tags, DELETE /api/v1/featured_tags/:id, the
// suggestions, GET /api/v1/accounts/:id/featured_tags, and POST /api/v1/tags/:name/feature|unfeature.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');
const reader = await h.user('reader', { scopes: ['read'] });

const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);

t.test('featuring, listing with counts, unfeaturing', async (t) => {
  await post(h, alice, 'about #Cats and #dogs');
  await post(h, alice, 'more #cats', { visibility: 'unlisted' });
  await post(h, alice, 'secret #cats', { visibility: 'private' });
  await post(h, bob, 'not alice #cats');

  const cats = await h.request('POST', '/api/v1/featured_tags', { token: alice.token, payload: { name: '#Cats ' } });
  t.equal(cats.statusCode, 200);
  t.match(cats.json.id, /^\d+$/);
  t.same(cats.json, { id: cats.json.id, name: 'Cats', url: 'https://rookery.test/@alice/tagged/cats', statuses_count: '2', last_status_at: today() }, 'public and unlisted statuses count');
  const fish = await h.request('POST', '/api/v1/featured_tags', { token: alice.token, payload: { name: 'fish' } });
  t.same(fish.json, { id: fish.json.id, name: 'fish', url: 'https://rookery.test/@alice/tagged/fish', statuses_count: '0', last_status_at: null }, 'an unused tag');
  const again = await h.request('POST', '/api/v1/featured_tags', { token: alice.token, payload: { name: 'Cats' } });
  t.same([again.statusCode, again.json.id], [200, cats.json.id], 'the same name again: the one there is');
  const otherCase = await h.request('POST', '/api/v1/featured_tags', { token: alice.token, payload: { name: 'CATS' } });
  t.equal(otherCase.statusCode, 422);
  t.same(otherCase.json, { error: 'Validation failed: Name has already been taken' });

  const mine = await h.request('GET', '/api/v1/featured_tags', { token: alice.token });
  t.same(mine.json.map((f: { name: string }) => f.name), ['Cats', 'fish'], 'most used first');
  const theirs = await h.request('GET', `/api/v1/accounts/${alice.account.id}/featured_tags`);
  t.equal(theirs.statusCode, 200);
  t.same(theirs.json, mine.json, 'the same on the profile, for anyone');

  const gone = await h.request('DELETE', `/api/v1/featured_tags/${fish.json.id}`, { token: alice.token });
  t.same([gone.statusCode, gone.json], [200, {}]);
  const twice = await h.request('DELETE', `/api/v1/featured_tags/${fish.json.id}`, { token: alice.token });
  t.same([twice.statusCode, twice.json], [404, { error: 'Record not found' }]);
  t.equal((await h.request('DELETE', `/api/v1/featured_tags/${cats.json.id}`, { token: bob.token })).statusCode, 404, "someone else's");
  t.equal((await h.request('DELETE', '/api/v1/featured_tags/nope', { token: alice.token })).statusCode, 404);
  t.same((await h.request('GET', '/api/v1/featured_tags', { token: alice.token })).json.map((f: { name: string }) => f.name), ['Cats']);
});

t.test('names and the limit', async (t) => {
  const carol = await h.user('carol');
  for (const [name, error] of [
    ['', "Validation failed: Name can't be blank, Name is invalid"],
    ['  # ', "Validation failed: Name can't be blank, Name is invalid"],
    ['123', 'Validation failed: Name is invalid'],
    ['two words', 'Validation failed: Name is invalid'],
  ] as const) {
    const res = await h.request('POST', '/api/v1/featured_tags', { token: carol.token, payload: { name } });
    t.same([res.statusCode, res.json], [422, { error }], JSON.stringify(name));
  }
  const missing = await h.request('POST', '/api/v1/featured_tags', { token: carol.token, payload: {} });
  t.same([missing.statusCode, missing.json], [422, { error: "Validation failed: Name can't be blank, Name is invalid" }]);
  for (let i = 0; i < 10; i += 1) t.equal((await h.request('POST', '/api/v1/featured_tags', { token: carol.token, payload: { name: `tag${i}` } })).statusCode, 200);
  const eleventh = await h.request('POST', '/api/v1/featured_tags', { token: carol.token, payload: { name: 'onemore' } });
  t.same([eleventh.statusCode, eleventh.json], [422, { error: 'Validation failed: You have already featured the maximum number of hashtags' }]);
  const viaTag = await h.request('POST', '/api/v1/tags/onemore/feature', { token: carol.token });
  t.same([viaTag.statusCode, viaTag.json], [422, { error: 'Validation failed: You have already featured the maximum number of hashtags' }]);
});

t.test('suggestions: the hashtags of recent statuses not featured yet, most used first', async (t) => {
  const dave = await h.user('dave');
  await post(h, dave, '#rare and #common');
  await post(h, dave, '#common again', { visibility: 'private' });
  await post(h, dave, '#featured');
  await h.request('POST', '/api/v1/featured_tags', { token: dave.token, payload: { name: 'featured' } });
  const res = await h.request('GET', '/api/v1/featured_tags/suggestions', { token: dave.token });
  t.equal(res.statusCode, 200);
  t.same(res.json.map((tag: { name: string; following: boolean; featuring: boolean }) => [tag.name, tag.following, tag.featuring]), [['common', false, false], ['rare', false, false]]);
});

t.test('POST /api/v1/tags/:name/feature and unfeature answer the tag', async (t) => {
  const erin = await h.user('erin');
  const featured = await h.request('POST', '/api/v1/tags/Birds/feature', { token: erin.token });
  t.equal(featured.statusCode, 200);
  t.same([featured.json.name, featured.json.following, featured.json.featuring], ['Birds', false, true]);
  t.equal((await h.request('POST', '/api/v1/tags/BIRDS/feature', { token: erin.token })).json.featuring, true, 'again, in any case');
  t.same((await h.request('GET', '/api/v1/featured_tags', { token: erin.token })).json.map((f: { name: string }) => f.name), ['Birds'], 'once');
  t.equal((await h.request('GET', '/api/v1/tags/birds', { token: erin.token })).json.featuring, true);
  const unfeatured = await h.request('POST', '/api/v1/tags/birds/unfeature', { token: erin.token });
  t.same([unfeatured.statusCode, unfeatured.json.featuring], [200, false]);
  t.same((await h.request('GET', '/api/v1/featured_tags', { token: erin.token })).json, []);
  t.equal((await h.request('POST', '/api/v1/tags/birds/unfeature', { token: erin.token })).statusCode, 200, 'unfeaturing what is not featured');
});

t.test('scopes and sign-in', async (t) => {
  t.same((await h.request('POST', '/api/v1/featured_tags', { token: reader.token, payload: { name: 'x' } })).json, { error: 'This action is outside the authorized scopes' });
  t.equal((await h.request('POST', '/api/v1/tags/x/feature', { token: reader.token })).statusCode, 403);
  t.equal((await h.request('DELETE', '/api/v1/featured_tags/1', { token: reader.token })).statusCode, 403);
  t.equal((await h.request('GET', '/api/v1/featured_tags', { token: reader.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/featured_tags', { token: null })).statusCode, 401);
  t.equal((await h.request('GET', '/api/v1/featured_tags/suggestions', { token: null })).statusCode, 401);
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}/featured_tags`, { token: null })).statusCode, 200, 'a profile needs no sign-in');
});
