// The render cache (core/mastodon/present/cache): statuses are rendered once and kept, and no
// reader ever sees a stale count, an edited text's old version, a deleted status, a renamed
// author, a stale poll, or another reader's flags. Each read below follows reads that filled the
// cache for every reader (anonymous, bob, carol), and every kind of read (the status, the public
// timeline, the context, the batch read) is checked. Across processes and restarts:
// test/e2e/render-cache-processes.test.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { keptFragments } from '../../../core/mastodon/present/cache/status-text.ts';
import { mediaPlugin, pollsPlugin } from '../../../plugins/index.ts';
import { act, post } from '../../helpers/api.ts';
import { harness, type TestUser } from '../../helpers/harness.ts';

const mediaDir = mkdtempSync(join(tmpdir(), 'rookery-render-cache-'));
t.teardown(() => rmSync(mediaDir, { recursive: true, force: true }));
const h = await harness({ plugins: [mediaPlugin({ directory: mediaDir }), pollsPlugin()] });
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');
const carol = await h.user('carol');
const readers: [string, TestUser | null][] = [
  ['anonymous', null],
  ['bob', bob],
  ['carol', carol],
];

const get = async (user: TestUser | null, url: string) => {
  const res = await h.request('GET', url, user ? { token: user.token } : {});
  return res;
};

/** The status as each reader sees it through every read path: the status itself, the public
 * timeline, the batch read, and the context of a reply to it. */
async function everywhere(user: TestUser | null, id: string, replyId: string | null = null): Promise<any[]> {
  const seen: any[] = [];
  const single = await get(user, `/api/v1/statuses/${id}`);
  seen.push(single.statusCode === 200 ? single.json : null);
  const timeline = await get(user, '/api/v1/timelines/public?limit=40');
  seen.push(timeline.json.find((s: any) => s.id === id) ?? null);
  const batch = await get(user, `/api/v1/statuses?id[]=${id}`);
  seen.push(batch.json.find((s: any) => s.id === id) ?? null);
  if (replyId !== null) {
    const context = await get(user, `/api/v1/statuses/${replyId}/context`);
    seen.push(context.json.ancestors.find((s: any) => s.id === id) ?? null);
  }
  return seen;
}

async function warm(id: string, replyId: string | null = null): Promise<void> {
  for (const [, user] of readers) await everywhere(user, id, replyId);
}

t.test('counts, edits, flags, profile changes and deletes are never served stale', async (t) => {
  const status = await post(h, alice, 'the first version');
  const reply = await post(h, alice, 'a reply', { in_reply_to_id: status.id });
  await warm(status.id, reply.id);
  t.ok(keptFragments(h.core) > 0, 'the reads kept fragments');

  t.equal((await act(h, bob, status.id, 'favourite')).statusCode, 200);
  t.equal((await act(h, carol, status.id, 'bookmark')).statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) {
      t.equal(json.favourites_count, 1, `${name}: the new count`);
      t.equal(json.replies_count, 1, `${name}: the reply counted`);
      if (user === null) t.notOk('favourited' in json, 'anonymous: no flags');
      else {
        t.equal(json.favourited, user === bob, `${name}: only bob's favourite`);
        t.equal(json.bookmarked, user === carol, `${name}: only carol's bookmark`);
      }
    }
  }

  t.equal((await act(h, bob, status.id, 'unfavourite')).statusCode, 200);
  t.equal((await act(h, carol, status.id, 'reblog')).statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) {
      t.same([json.favourites_count, json.reblogs_count], [0, 1], `${name}: the counts after unfavourite and boost`);
      if (user !== null) t.same([json.favourited, json.reblogged], [false, user === carol], `${name}: flags`);
    }
  }

  const edited = await h.request('PUT', `/api/v1/statuses/${status.id}`, { token: alice.token, payload: { status: 'the second version' } });
  t.equal(edited.statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) {
      t.equal(json.content, '<p>the second version</p>', `${name}: the edited text`);
      t.not(json.edited_at, null, `${name}: edited_at`);
    }
  }

  const renamed = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { display_name: 'Alice Renamed', note: 'new bio' } });
  t.equal(renamed.statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) {
      t.same([json.account.display_name, json.account.note], ['Alice Renamed', '<p>new bio</p>'], `${name}: the new profile`);
    }
  }

  // The author's member is kept apart from the status's own: a post of theirs moves their count
  // in every status they wrote, whatever was kept of each.
  const counted = (await get(null, `/api/v1/accounts/${alice.account.id}`)).json.statuses_count;
  await post(h, alice, 'another post of hers');
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) {
      t.equal(json.account.statuses_count, counted + 1, `${name}: the author's new count`);
      t.equal(json.content, '<p>the second version</p>', `${name}: and the status as it was`);
    }
  }
  const fresh = await get(bob, `/api/v1/statuses/${status.id}`);
  t.equal(fresh.body, (await get(bob, `/api/v1/statuses/${status.id}`)).body, 'assembled from the kept parts: byte for byte');

  // What a status's own members read of its author: a moderator marks her sensitive.
  const moderated = await h.core.storage.accounts.update(alice.account.id, { sensitizedAt: Date.now() });
  t.ok(moderated);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) t.equal(json.sensitive, true, `${name}: a sensitized author's status is sensitive`);
  }
  await h.core.storage.accounts.update(alice.account.id, { sensitizedAt: null });
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) t.equal(json.sensitive, false, `${name}: and not once lifted`);
  }

  // A change the API has no call for (a moderator's flag, say): any change of the row shows.
  const row = await h.core.storage.statuses.get(status.id);
  if (row === null) throw new Error('the status is gone');
  const { text, content, spoilerText, language, mentionIds, tags, mediaIds, pollId, editedAt } = row;
  await h.core.storage.statuses.update(status.id, { text, content, spoilerText, sensitive: true, language, mentionIds, tags, mediaIds, pollId, editedAt }, []);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id, reply.id)) t.equal(json.sensitive, true, `${name}: the row as stored`);
  }

  // The boost in the timeline carries the original as it is now.
  const boosts = (await get(carol, '/api/v1/timelines/home')).json.filter((s: any) => s.reblog?.id === status.id);
  t.equal(boosts.length, 1);
  t.same([boosts[0].reblog.content, boosts[0].reblog.reblogged, boosts[0].reblogged], ['<p>the second version</p>', true, true]);

  t.equal((await h.request('DELETE', `/api/v1/statuses/${status.id}`, { token: alice.token })).statusCode, 200);
  for (const [name, user] of readers) {
    t.same(await everywhere(user, status.id, reply.id), [null, null, null, null], `${name}: gone everywhere`);
    t.equal((await get(user, `/api/v1/statuses/${status.id}`)).statusCode, 404, `${name}: 404`);
  }
});

t.test('per-reader parts: pins, conversation mutes and keyword filters are each reader\'s own', async (t) => {
  const status = await post(h, alice, 'a dragon appears');
  const bobs = await post(h, bob, 'bob pins this');
  await warm(status.id);
  await warm(bobs.id);
  t.equal((await act(h, bob, bobs.id, 'pin')).statusCode, 200);
  t.equal((await act(h, carol, status.id, 'mute')).statusCode, 200);
  const filter = await h.request('POST', '/api/v2/filters', { token: carol.token, payload: { title: 'Dragons', context: ['public', 'thread'], filter_action: 'warn', keywords_attributes: [{ keyword: 'dragon' }] } });
  t.equal(filter.statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, bobs.id)) if (user !== null) t.equal(json.pinned, user === bob, `${name}: only bob's pin`);
    for (const json of await everywhere(user, status.id)) {
      if (user === null) continue;
      t.equal(json.muted, user === carol, `${name}: only carol's mute`);
      t.same(json.filtered.map((f: any) => f.filter.title), user === carol ? ['Dragons'] : [], `${name}: only carol's filter`);
    }
  }
});

t.test('a poll\'s votes show at once, and own votes only to the voter', async (t) => {
  const status = await post(h, alice, { status: 'pick one', poll: { options: ['yes', 'no'], expires_in: 3600 } });
  await warm(status.id);
  const voted = await h.request('POST', `/api/v1/polls/${status.poll.id}/votes`, { token: bob.token, payload: { choices: [1] } });
  t.equal(voted.statusCode, 200);
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id)) {
      t.same(json.poll.options.map((o: any) => o.votes_count), [0, 1], `${name}: the vote counted`);
      if (user === null) t.notOk('voted' in json.poll, 'anonymous: no own votes');
      else t.same([json.poll.voted, json.poll.own_votes], user === bob ? [true, [1]] : [false, []], `${name}: own votes`);
    }
  }
});

t.test('media described after the status was read show their new description', async (t) => {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')], { type: 'image/png' }), 'dot.png');
  const request = new Request('http://x/', { method: 'POST', body: form });
  const uploaded = await h.request('POST', '/api/v2/media', {
    token: alice.token,
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') ?? '' },
  });
  t.ok([200, 202].includes(uploaded.statusCode), uploaded.body);
  const status = await post(h, alice, { status: 'a picture', media_ids: [uploaded.json.id] });
  await warm(status.id);
  const described = await h.request('PUT', `/api/v1/media/${uploaded.json.id}`, { token: alice.token, payload: { description: 'a dot' } });
  for (const [name, user] of readers) {
    for (const json of await everywhere(user, status.id)) {
      t.equal(json.media_attachments[0]?.description, described.statusCode === 200 ? 'a dot' : null, `${name}: the media as stored`);
    }
  }
});

t.test('the kept JSON is what the renderer gives', async (t) => {
  const status = await post(h, alice, 'compare me #tag @bob');
  const fresh = await get(bob, `/api/v1/statuses/${status.id}`);
  const kept = await get(bob, `/api/v1/statuses/${status.id}`);
  t.same(kept.json, fresh.json);
  t.same(Object.keys(kept.json).sort(), Object.keys(status).sort(), 'the same members as the publish response');
  t.match(kept.headers['content-type'], /^application\/json; charset=utf-8$/);
});
