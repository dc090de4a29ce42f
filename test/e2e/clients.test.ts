// Real clients against a running instance: masto.js and megalodon, unchanged, over real HTTP.
// Each registers an app, gets a token, checks its credentials, then posts, views, favourites,
// boosts, bookmarks, pins, mutes, reads the context, pages favourited_by, and deletes then
// redrafts. masto.js also goes through the plugins: media with a description and focus, a poll
// voted in, a scheduled status, the profile's name and avatar, and delete-and-redraft of a
// status with media and of one with a poll.

import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import generator from 'megalodon';
import sharp from 'sharp';
import t from 'tap';
import { mediaPlugin, pollsPlugin, scheduledPlugin } from '../../plugins/index.ts';
import { harness, type Harness } from '../helpers/harness.ts';
import { authorizationCode, PASSWORD, type RegisteredApp } from '../helpers/oauth.ts';

let h: Harness;
let url: string;

// Each client gets its own listening instance, closed when its test ends (a root-level
// t.after would wait for an event loop that the open server keeps busy).
t.beforeEach(async () => {
  h = await harness({ listen: true, plugins: [mediaPlugin(), pollsPlugin(), scheduledPlugin()] });
  url = h.server.info.uri;
});
t.afterEach(async () => {
  await h.close();
});

/** The HTTP status a client call failed with (masto.js errors carry statusCode). */
async function statusCodeOf(call: Promise<unknown>): Promise<number | null> {
  try {
    await call;
    return null;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode ?? null;
  }
}

t.test('masto.js', async (t) => {
  const owner = await h.user('mastouser');
  const fans = await Promise.all([h.user('fan1'), h.user('fan2'), h.user('fan3')]);

  const anonymous = createRestAPIClient({ url });
  const app = await anonymous.v1.apps.create({ clientName: 'masto.js test', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow' });
  t.type(app.clientId, 'string', 'registered an app');
  const oauth = createOAuthAPIClient({ url });
  const token = await oauth.token.create({
    grantType: 'password',
    clientId: app.clientId ?? '',
    clientSecret: app.clientSecret ?? '',
    redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
    username: 'mastouser@example.com',
    password: PASSWORD,
    scope: 'read write follow',
  });
  t.equal(token.tokenType, 'Bearer', 'got a token');
  const masto = createRestAPIClient({ url, accessToken: token.accessToken });
  const me = await masto.v1.accounts.verifyCredentials();
  t.equal(me.id, owner.account.id);
  t.equal(me.username, 'mastouser');

  const posted = await masto.v1.statuses.create({ status: 'Hello from masto.js #test', visibility: 'public' });
  t.equal(posted.content, '<p>Hello from masto.js <a href="https://rookery.test/tags/test" class="mention hashtag" rel="tag">#<span>test</span></a></p>'.replace('https://rookery.test', url));
  const status = masto.v1.statuses.$select(posted.id);
  t.equal((await status.fetch()).id, posted.id, 'view');
  t.equal((await status.favourite()).favourited, true, 'favourite');
  const boost = await status.reblog();
  t.equal(boost.reblog?.id, posted.id, 'boost');
  t.equal(boost.reblogged, true, "the boost reports the original's flags, as masto.js's statuses spec reads them");
  t.equal(boost.favourited, true);
  t.equal((await status.bookmark()).bookmarked, true, 'bookmark');
  // v1 filters, served from the v2 ones.
  const v1Filter = await masto.v1.filters.create({ phrase: 'spoiler', context: ['home'], irreversible: false, wholeWord: true });
  t.match(v1Filter, { phrase: 'spoiler', context: ['home'], wholeWord: true, irreversible: false, expiresAt: null }, 'v1 filter created');
  t.same((await masto.v1.filters.list()).map((f) => f.id), [v1Filter.id], 'v1 filters listed');
  await masto.v1.filters.$select(v1Filter.id).remove();
  t.same(await masto.v1.filters.list(), [], 'v1 filter removed');
  t.equal((await status.pin()).pinned, true, 'pin');
  t.equal((await status.mute()).muted, true, 'mute');
  await status.unmute();

  const reply = await masto.v1.statuses.create({ status: 'a reply', inReplyToId: posted.id });
  const context = await masto.v1.statuses.$select(reply.id).context.fetch();
  t.same(context.ancestors.map((s) => s.id), [posted.id], 'context');

  for (const fan of fans) await h.request('POST', `/api/v1/statuses/${posted.id}/favourite`, { token: fan.token });
  const pages: string[][] = [];
  // masto.js types this list without parameters, but sends what it is given; Mastodon takes limit.
  const favouritedBy = status.favouritedBy.list({ limit: 2 } as unknown as undefined);
  for await (const page of favouritedBy) pages.push(page.map((account) => account.id));
  // A full page always links onward (as Mastodon's do), so the walk ends on an empty page.
  t.same(pages, [[fans[2]?.account.id, fans[1]?.account.id], [fans[0]?.account.id, owner.account.id], []], 'favourited_by, paged through the Link header');

  const deleted = await status.remove();
  t.equal(deleted.text, 'Hello from masto.js #test', 'delete returns the source');
  t.equal(await statusCodeOf(status.fetch()), 404, 'later reads give 404');
  const redraft = await masto.v1.statuses.create({ status: deleted.text ?? '', visibility: deleted.visibility });
  t.equal(redraft.content, posted.content, 'redrafted');
  t.equal(await statusCodeOf(masto.v1.statuses.$select(posted.id).unreblog()), 404, 'the boost went with it');
});

t.test('masto.js: media, a poll, a scheduled status, the profile, and redrafts with media and a poll', async (t) => {
  const owner = await h.user('mastoplug');
  const voter = await h.user('voter');
  const masto = createRestAPIClient({ url, accessToken: owner.token });
  const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#c33' } }).png().toBuffer();

  // Upload through v2 (masto.js polls GET /api/v1/media/:id until it is processed), then attach.
  const media = await masto.v2.media.create({ file: new Blob([image], { type: 'image/png' }), description: 'a red rectangle', focus: '0.5,-0.25' });
  t.same([media.type, media.description, media.meta?.focus, media.meta?.original?.width], ['image', 'a red rectangle', { x: 0.5, y: -0.25 }, 320], 'uploaded with its description and focus');
  t.match(media.url, new RegExp(`^${url}/system/media/`), 'processed, with its URL');
  const withMedia = await masto.v1.statuses.create({ status: 'a picture', mediaIds: [media.id] });
  t.same(withMedia.mediaAttachments.map((m) => [m.id, m.description]), [[media.id, 'a red rectangle']], 'attached');

  // A poll, and another user's vote through masto.js.
  const withPoll = await masto.v1.statuses.create({ status: 'tea or coffee?', poll: { options: ['tea', 'coffee'], expiresIn: 3600 } });
  const poll = withPoll.poll;
  if (!poll) throw new Error('expected a poll');
  const voted = await createRestAPIClient({ url, accessToken: voter.token }).v1.polls.$select(poll.id).votes.create({ choices: [1] });
  t.same([voted.voted, voted.ownVotes, voted.options.map((o) => o.votesCount)], [true, [1], [0, 1]], 'voted');
  t.equal((await masto.v1.polls.$select(poll.id).fetch()).votesCount, 1, 'the author sees the vote');

  // A scheduled status: a ScheduledStatus back, listed, not published.
  const scheduledAt = new Date(h.clock.now() + 30 * 60_000).toISOString();
  const scheduled = await masto.v1.statuses.create({ status: 'later', scheduledAt });
  t.same([scheduled.scheduledAt, scheduled.params.text], [scheduledAt, 'later'], 'scheduled');
  t.same((await masto.v1.scheduledStatuses.list()).map((s) => s.id), [scheduled.id], 'listed');

  // The profile: display name and avatar (multipart).
  const me = await masto.v1.accounts.updateCredentials({ displayName: 'Masto Plug', avatar: new Blob([image], { type: 'image/png' }) });
  t.equal(me.displayName, 'Masto Plug');
  t.match(me.avatar, new RegExp(`^${url}/system/media/\\d+-avatar-\\d+\\.png$`));
  const avatar = await fetch(me.avatar);
  const size = await sharp(Buffer.from(await avatar.arrayBuffer())).metadata();
  t.same([avatar.status, size.width, size.height], [200, 400, 400], 'the avatar is served, 400×400');
  t.equal((await masto.v1.accounts.verifyCredentials()).displayName, 'Masto Plug');

  // Delete and redraft, with the media: the same attachment comes back on the new status.
  const deletedMedia = await masto.v1.statuses.$select(withMedia.id).remove();
  t.same(deletedMedia.mediaAttachments.map((m) => m.id), [media.id], 'delete returns the media');
  const redraftedMedia = await masto.v1.statuses.create({ status: deletedMedia.text ?? '', mediaIds: deletedMedia.mediaAttachments.map((m) => m.id) });
  t.same(redraftedMedia.mediaAttachments.map((m) => [m.id, m.description, m.meta?.focus]), [[media.id, 'a red rectangle', { x: 0.5, y: -0.25 }]], 'redrafted with the same media');

  // … and with the poll: its options and kind come back on a fresh poll.
  const deletedPoll = await masto.v1.statuses.$select(withPoll.id).remove();
  const oldPoll = deletedPoll.poll;
  if (!oldPoll) throw new Error('delete returns the poll');
  const redraftedPoll = await masto.v1.statuses.create({
    status: deletedPoll.text ?? '',
    poll: { options: oldPoll.options.map((o) => o.title), expiresIn: 7200, multiple: oldPoll.multiple },
  });
  t.same(redraftedPoll.poll?.options.map((o) => [o.title, o.votesCount]), [['tea', 0], ['coffee', 0]], 'redrafted with the poll, votes starting over');
  t.not(redraftedPoll.poll?.id, poll.id, 'a new poll');
});

t.test('megalodon', async (t) => {
  const owner = await h.user('megauser');
  const fans = await Promise.all([h.user('mfan1'), h.user('mfan2'), h.user('mfan3')]);
  const callback = `${url}/callback`;

  const anonymous = generator('mastodon', url);
  const app = await anonymous.registerApp('megalodon test', { scopes: ['read', 'write', 'follow'], redirect_uris: callback });
  t.type(app.client_id, 'string', 'registered an app');
  t.match(app.url, /\/oauth\/authorize\?/, 'megalodon built an authorize URL');
  // The user signs in and approves on our pages (walked with a cookie jar); the code then
  // goes back to megalodon, as it would from a browser redirect.
  const registered: RegisteredApp = { id: app.id, name: app.name, client_id: app.client_id, client_secret: app.client_secret, scopes: ['read', 'write', 'follow'], redirect_uris: [callback] };
  const code = await authorizationCode(h, registered, 'megauser', { scope: 'read write follow' });
  const tokenData = await anonymous.fetchAccessToken(app.client_id, app.client_secret, code, callback);
  t.type(tokenData.access_token, 'string', 'exchanged the code for a token');
  const client = generator('mastodon', url, tokenData.access_token);
  const me = await client.verifyAccountCredentials();
  t.equal(me.data.id, owner.account.id);

  const posted = (await client.postStatus('Hello from megalodon', { visibility: 'public' })).data;
  if (!('content' in posted)) throw new Error('expected a status');
  t.equal((await client.getStatus(posted.id)).data.id, posted.id, 'view');
  t.equal((await client.favouriteStatus(posted.id)).data.favourited, true, 'favourite');
  t.equal((await client.reblogStatus(posted.id)).data.reblog?.id, posted.id, 'boost');
  t.equal((await client.bookmarkStatus(posted.id)).data.bookmarked, true, 'bookmark');
  t.equal((await client.pinStatus(posted.id)).data.pinned, true, 'pin');
  t.equal((await client.muteStatus(posted.id)).data.muted, true, 'mute');
  const reply = (await client.postStatus('a reply', { in_reply_to_id: posted.id })).data;
  t.same((await client.getStatusContext(reply.id)).data.ancestors.map((s) => s.id), [posted.id], 'context');

  for (const fan of fans) await h.request('POST', `/api/v1/statuses/${posted.id}/favourite`, { token: fan.token });
  const first = await client.getStatusFavouritedBy(posted.id);
  t.equal(first.data.length, 4);
  t.notOk(String(first.headers['link'] ?? '').includes('rel="next"'), 'one full page of the default 40: no next');
  const paged = await fetch(`${url}/api/v1/statuses/${posted.id}/favourited_by?limit=3`);
  const next = /<([^>]+)>; rel="next"/.exec(paged.headers.get('link') ?? '')?.[1];
  t.ok(next, 'a full page links to the next one');
  const rest = await fetch(next ?? '');
  t.same(((await rest.json()) as { id: string }[]).map((a) => a.id), [owner.account.id], 'and the next page holds the rest');

  await client.deleteStatus(posted.id);
  await t.rejects(client.getStatus(posted.id), 'later reads fail');
  const redraft = (await client.postStatus('Hello from megalodon', { visibility: 'public' })).data;
  if (!('content' in redraft)) throw new Error('expected a status');
  t.equal(redraft.content, '<p>Hello from megalodon</p>', 'redrafted');
});
