// Custom emoji across servers. A and B are Rookeries on loopback (hapi and node:http) and bob on
// B follows alice on A: what A sends has no emoji, and B shows []. Carol's server is a small
// node:http server (Rookery has no custom emoji of its own to send): it serves her actor with
// Emoji tags and POSTs her signed Create and Update of a Note with Emoji tags to B's inbox. B
// shows exactly the emojis her texts use, on the status, its history, her account and bob's
// notification; hostile tags (javascript: and data: URLs, bad shortcodes, unused ones) never
// appear; the content is sanitised as before; the pictures are never fetched.

import { createServer } from 'node:http';
import { webcrypto } from 'node:crypto';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import t from 'tap';
import { sanitizeHtml } from '../../../core/domain/text/sanitize.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross } from '../../helpers/federation.ts';
import { record, type Harness } from '../../helpers/harness.ts';

type CryptoKeyParam = Parameters<typeof signRequest>[1];

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('spki', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

const CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1', { toot: 'http://joinmastodon.org/ns#', Emoji: 'toot:Emoji' }];
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

interface EmojiJson {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}

t.test('remote custom emoji: statuses, accounts, notifications, history', async (t) => {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const publicKeyPem = await pem(keys.publicKey as webcrypto.CryptoKey);
  let origin = '';
  let displayName = 'Carol :carolcat: :nope:';
  const asked: string[] = [];
  const emoji = (name: string, url: string) => ({ id: `${origin}/emojis/${encodeURIComponent(name)}`, type: 'Emoji', name, icon: { type: 'Image', mediaType: 'image/png', url }, updated: '2026-01-01T00:00:00Z' });
  const actorUrl = () => `${origin}/users/carol`;
  const actor = () => ({
    '@context': CONTEXT,
    id: actorUrl(),
    type: 'Person',
    preferredUsername: 'carol',
    name: displayName,
    summary: '<p>bio :biocat:</p>',
    inbox: `${actorUrl()}/inbox`,
    followers: `${actorUrl()}/followers`,
    publicKey: { id: `${actorUrl()}#main-key`, owner: actorUrl(), publicKeyPem },
    tag: [
      emoji(':carolcat:', `${origin}/emoji/carolcat.png`),
      emoji(':biocat:', `${origin}/emoji/biocat.gif`),
      emoji(':nope:', 'javascript:alert(1)'),
      emoji(':unused:', `${origin}/emoji/unused.png`),
    ],
  });
  // Carol's server: her actor document; anything else asked of it (a picture, say) is noted.
  const carol = createServer((req, res) => {
    req.resume();
    if (req.url === '/users/carol') {
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(JSON.stringify(actor()));
      return;
    }
    asked.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((ready) => carol.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => carol.close(() => done())));
  const address = carol.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const [a, b] = (await federatingInstances(t, 2)) as [Harness, Harness];
  const drain = () => drainAll([a, b]);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  await followAcross(b, [bob], a, 'alice');

  // A Rookery sends no Emoji tags: alice's :blobcat: stays text, on A and on B.
  const posted = await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'plain :blobcat:' } });
  t.strictSame(posted.json.emojis, [], 'a local status: []');
  t.strictSame(posted.json.account.emojis, [], 'a local account: []');
  const fromA = await eventually(
    async () => {
      await drain();
      return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as { uri: string; emojis: unknown; account: { emojis: unknown } }[]).find((s) => s.uri === posted.json.uri);
    },
    (s) => s !== undefined,
    "alice's status reaches bob",
  );
  t.strictSame(fromA?.emojis, [], 'on B: [] for a status from A');
  t.strictSame(fromA?.account.emojis, [], 'and for its author');

  // Carol's Create, signed with her key, to B's shared inbox.
  const bobUrl = `${b.core.config.baseUrl}/users/bob`;
  const noteUrl = `${origin}/users/carol/statuses/1`;
  const content = '<p>hi <a href="' + bobUrl + '" class="u-url mention">@bob</a> :blobcat: :evil: :datacat: :x: :bad-name: <script>alert(1)</script><img src="javascript:alert(2)"></p>';
  const note = (text: string, tags: unknown[], updated?: string) => ({
    id: noteUrl,
    type: 'Note',
    attributedTo: actorUrl(),
    content: text,
    summary: 'cw :cwcat:',
    published: '2026-01-02T00:00:00Z',
    ...(updated === undefined ? {} : { updated }),
    to: [PUBLIC],
    cc: [bobUrl],
    tag: [{ type: 'Mention', href: bobUrl, name: '@bob' }, ...tags],
  });
  const send = async (activity: Record<string, unknown>) => {
    const request = new Request(`${b.core.config.baseUrl}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify({ '@context': CONTEXT, actor: actorUrl(), ...activity }) });
    const response = await fetch(await signRequest(request, keys.privateKey as CryptoKeyParam, new URL(`${actorUrl()}#main-key`)));
    t.equal(response.status, 202, `${String(activity['type'])} accepted`);
    await response.body?.cancel();
  };
  const streamed = await record(b.bus, ['timeline:public', `timeline:${bob.account.id}`]);
  t.teardown(() => streamed.stop());
  await send({
    id: `${noteUrl}/activity`,
    type: 'Create',
    to: [PUBLIC],
    cc: [bobUrl],
    object: note(content, [
      emoji(':blobcat:', `${origin}/emoji/blobcat.png`),
      emoji(':evil:', 'javascript:alert(3)'),
      emoji(':datacat:', 'data:image/png;base64,AAAA'),
      emoji(':x:', `${origin}/emoji/x.png`),
      emoji(':bad-name:', `${origin}/emoji/bad.png`),
      emoji(':<img src=x>:', `${origin}/emoji/img.png`),
      emoji(':cwcat:', `${origin}/emoji/cwcat.png`),
      emoji(':unusedcat:', `${origin}/emoji/unusedcat.png`),
    ]),
  });

  const mention = await eventually(
    async () => {
      await drain();
      return ((await b.request('GET', '/api/v1/notifications?types[]=mention', { token: bob.token })).json as { type: string; account: { id: string; emojis: EmojiJson[] }; status?: { id: string; emojis: EmojiJson[] } }[])[0];
    },
    (n) => n !== undefined,
    "carol's mention reaches bob",
  );
  const custom = (shortcode: string, url: string): EmojiJson => ({ shortcode, url, static_url: url, visible_in_picker: false, category: null });
  const carolEmojis = [custom('carolcat', `${origin}/emoji/carolcat.png`), custom('biocat', `${origin}/emoji/biocat.gif`)];
  const noteEmojis = [custom('blobcat', `${origin}/emoji/blobcat.png`), custom('cwcat', `${origin}/emoji/cwcat.png`)];
  t.strictSame(mention?.account.emojis, carolEmojis, "the notification's account: her name's and bio's emojis, nothing else");
  t.strictSame(mention?.status?.emojis, noteEmojis, "the notification's status: the emojis its text and CW use");

  const payloads = (channel: string, event: string) => streamed.messages.filter((m) => m.channel === channel && m.message.event === event).map((m) => JSON.parse(m.message.payload ?? '{}'));
  t.strictSame(
    payloads('timeline:public', 'update').map((s: { emojis: EmojiJson[]; account: { emojis: EmojiJson[] } }) => [s.emojis, s.account.emojis]),
    [[noteEmojis, carolEmojis]],
    'the public stream carries them',
  );
  t.strictSame(
    payloads(`timeline:${bob.account.id}`, 'notification').map((n: { account: { emojis: EmojiJson[] }; status: { emojis: EmojiJson[] } }) => [n.account.emojis, n.status.emojis]),
    [[carolEmojis, noteEmojis]],
    "and bob's notification stream",
  );

  const statusId = mention?.status?.id ?? '';
  const status = await b.request('GET', `/api/v1/statuses/${statusId}`, { token: bob.token });
  t.equal(status.statusCode, 200);
  t.strictSame(status.json.emojis, noteEmojis, 'GET /api/v1/statuses/:id: exactly these');
  t.strictSame(status.json.account.emojis, carolEmojis, 'and its account');
  t.equal(status.json.content, sanitizeHtml(content), 'the content is sanitised as any remote content');
  t.notMatch(status.json.content, /<script|javascript:|<img/, 'no script, no javascript: URL, no img');
  t.match(status.json.content, /:blobcat: :evil: :datacat: :x: :bad-name:/, 'the shortcodes stay in the text, for clients to replace');
  const anonymous = await b.request('GET', `/api/v1/statuses/${statusId}`);
  t.strictSame(anonymous.json.emojis, noteEmojis, 'anonymous readers see the same');

  const account = await b.request('GET', `/api/v1/accounts/${mention?.account.id}`, { token: bob.token });
  t.equal(account.statusCode, 200);
  t.strictSame(account.json.emojis, carolEmojis, 'GET /api/v1/accounts/:id: exactly these');
  const looked = await b.request('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`carol@${new URL(origin).host}`)}`, { token: bob.token });
  t.strictSame(looked.json.emojis, carolEmojis, 'and the lookup');
  const carolStatuses = await b.request('GET', `/api/v1/accounts/${mention?.account.id}/statuses`, { token: bob.token });
  t.strictSame(carolStatuses.json.map((s: { emojis: EmojiJson[]; account: { emojis: EmojiJson[] } }) => [s.emojis, s.account.emojis]), [[noteEmojis, carolEmojis]], 'and her statuses');

  const everything = JSON.stringify([mention, status.json, account.json]);
  const urls = [...everything.matchAll(/"(?:url|static_url)":"([^"]*)"/g)].map((m) => m[1] ?? '').filter((url) => url.includes('/emoji'));
  t.strictSame([...new Set(urls)].sort(), [`${origin}/emoji/biocat.gif`, `${origin}/emoji/blobcat.png`, `${origin}/emoji/carolcat.png`, `${origin}/emoji/cwcat.png`], 'no javascript: or data: URL, no picture of a bad or unused shortcode');
  t.strictSame(
    [...everything.matchAll(/"shortcode":"([^"]*)"/g)].map((m) => m[1]).sort(),
    ['biocat', 'biocat', 'biocat', 'biocat', 'blobcat', 'blobcat', 'carolcat', 'carolcat', 'carolcat', 'carolcat', 'cwcat', 'cwcat'],
    'the only shortcodes listed anywhere (the notification, the status, her account: hers four times, the status\'s twice)',
  );

  // Her edit: another emoji. The status shows the new one, its history both revisions'.
  await send({
    id: `${noteUrl}/update/1`,
    type: 'Update',
    to: [PUBLIC],
    object: note('<p>now :newcat: only</p>', [emoji(':newcat:', `${origin}/emoji/newcat.png`), emoji(':blobcat:', `${origin}/emoji/blobcat.png`), emoji(':cwcat:', `${origin}/emoji/cwcat.png`)], '2026-01-03T00:00:00Z'),
  });
  const edited = await eventually(
    async () => {
      await drain();
      return (await b.request('GET', `/api/v1/statuses/${statusId}`, { token: bob.token })).json as { content: string; emojis: EmojiJson[] };
    },
    (s) => s.content === '<p>now :newcat: only</p>',
    'the edit reaches B',
  );
  const newEmojis = [custom('newcat', `${origin}/emoji/newcat.png`), custom('cwcat', `${origin}/emoji/cwcat.png`)];
  t.strictSame(edited.emojis, newEmojis, 'an edit replaces them (:blobcat:, still listed but no longer used, is dropped)');
  const history = await b.request('GET', `/api/v1/statuses/${statusId}/history`, { token: bob.token });
  t.strictSame(
    history.json.map((entry: { content: string; emojis: EmojiJson[]; account: { emojis: EmojiJson[] } }) => [entry.content, entry.emojis, entry.account.emojis]),
    [
      [sanitizeHtml(content), [custom('cwcat', `${origin}/emoji/cwcat.png`)], carolEmojis],
      ['<p>now :newcat: only</p>', newEmojis, carolEmojis],
    ],
    "the history: each revision lists the current emojis its own text uses (the first revision's :blobcat: is no longer kept)",
  );

  // Her new profile, sent as an Update of her actor: her account's emojis follow it.
  displayName = 'Carol :newcat:';
  await send({ id: `${actorUrl()}#update/1`, type: 'Update', to: [PUBLIC], object: { ...actor(), tag: [emoji(':newcat:', `${origin}/emoji/newcat.png`)] } });
  const updated = await eventually(
    async () => {
      await drain();
      return (await b.request('GET', `/api/v1/accounts/${mention?.account.id}`, { token: bob.token })).json as { display_name: string; emojis: EmojiJson[] };
    },
    (json) => json.display_name === 'Carol :newcat:',
    'her new profile reaches B',
  );
  t.strictSame(updated.emojis, [custom('newcat', `${origin}/emoji/newcat.png`)], 'her account shows her new emojis only');

  // Her Delete of the note, then of herself: what was kept beside them goes too.
  const repository = b.core.storage.extend(federationStorage);
  const kept = () => repository.kvGetMany([['rookery', 'remote-emoji', 'status', noteUrl], ['rookery', 'remote-emoji', 'account', actorUrl()]], Date.now());
  t.strictSame((await kept()).map((value) => (Array.isArray(value) ? value.length : value)), [2, 1], 'kept until then');
  await send({ id: `${noteUrl}#delete`, type: 'Delete', to: [PUBLIC], object: { id: noteUrl, type: 'Tombstone' } });
  await eventually(
    async () => {
      await drain();
      return (await b.request('GET', `/api/v1/statuses/${statusId}`, { token: bob.token })).statusCode;
    },
    (code) => code === 404,
    'the delete reaches B',
  );
  t.strictSame((await kept()).map((value) => (Array.isArray(value) ? value.length : value)), [undefined, 1], "the status's emojis are gone, hers kept");
  await send({ id: `${actorUrl()}#delete`, type: 'Delete', to: [PUBLIC], object: actorUrl() });
  await eventually(
    async () => {
      await drain();
      return kept();
    },
    (values) => values[1] === undefined,
    'her own delete reaches B',
  );
  t.strictSame(asked, [], 'no picture (nor anything but her actor) was asked of her server');
});
