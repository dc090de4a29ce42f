// What is kept of a remote object's Emoji tags: shortcodes of letters, digits and _ only (2 to
// 100), http(s) icon URLs of at most 2048 characters, at most 50, only those the text uses,
// nothing fetched; then shown on the status or account (local ones read nothing).

import t from 'tap';
import { Note, Person, Question } from '@fedify/fedify/vocab';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import {
  accountTexts,
  keepAccountEmojis,
  keepStatusEmojis,
  MAX_REMOTE_EMOJIS,
  remoteAccountEmojiDecorator,
  remoteEmojisOf,
  remoteStatusEmojiDecorator,
  statusTexts,
  type EmojiRepository,
} from '../../../plugins/federation/remote-emoji.ts';
import type { AccountJson } from '../../../core/mastodon/present/account.ts';
import type { StatusJson } from '../../../core/mastodon/entities/status-json.ts';
import { harness } from '../../helpers/harness.ts';
import { account, status } from '../../helpers/fixtures.ts';

const CONTEXT = ['https://www.w3.org/ns/activitystreams', { toot: 'http://joinmastodon.org/ns#', Emoji: 'toot:Emoji' }];

function emoji(name: string, url: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: `https://remote.example/emojis/${encodeURIComponent(name)}`, type: 'Emoji', name, icon: { type: 'Image', mediaType: 'image/png', url }, ...extra };
}

t.test('Emoji tags: bounded, checked, only those the text uses', async (t) => {
  // A document loader that would answer: anything fetched would show up in the result.
  const fetched: string[] = [];
  const documentLoader = async (url: string) => {
    fetched.push(url);
    const document = url.endsWith('/linked') ? { '@context': CONTEXT, ...emoji(':linked:', 'https://remote.example/emoji/linked.png') } : { '@context': CONTEXT, id: url, type: 'Image', url: 'https://remote.example/emoji/iconlink.png' };
    return { contextUrl: null, documentUrl: url, document };
  };

  const long = 'a'.repeat(101);
  const note = await Note.fromJsonLd({
    '@context': CONTEXT,
    type: 'Note',
    id: 'https://remote.example/notes/1',
    content: `<p>hi :blobcat: :ok_2: :${'b'.repeat(100)}: :${long}: :x: :bad-name: :js: :data: :ftp: :longurl: :linked: :iconlink: :blobcat:</p>`,
    summary: 'cw :cw_only:',
    tag: [
      emoji(':blobcat:', 'https://remote.example/emoji/blobcat.png'),
      emoji('ok_2', 'http://remote.example/emoji/ok.png'),
      emoji(`:${'b'.repeat(100)}:`, 'https://remote.example/emoji/b.png'),
      emoji(`:${long}:`, 'https://remote.example/emoji/long.png'),
      emoji(':x:', 'https://remote.example/emoji/x.png'),
      emoji(':bad-name:', 'https://remote.example/emoji/bad.png'),
      emoji(':<script>:', 'https://remote.example/emoji/script.png'),
      emoji(':js:', 'javascript:alert(1)'),
      emoji(':data:', 'data:image/png;base64,AAAA'),
      emoji(':ftp:', 'ftp://remote.example/emoji/ftp.png'),
      emoji(':longurl:', `https://remote.example/${'u'.repeat(2100)}.png`),
      'https://remote.example/emojis/linked',
      { id: 'https://remote.example/emojis/iconlink', type: 'Emoji', name: ':iconlink:', icon: 'https://remote.example/images/iconlink' },
      emoji(':unused:', 'https://remote.example/emoji/unused.png'),
      emoji(':cw_only:', 'https://remote.example/emoji/cw.png'),
      emoji(':blobcat:', 'https://remote.example/emoji/second-blobcat.png'),
      { type: 'Mention', href: 'https://remote.example/users/bob', name: '@bob' },
    ],
  }, { documentLoader });
  t.strictSame(
    await remoteEmojisOf(note, await statusTexts(note)),
    [
      { shortcode: 'blobcat', url: 'https://remote.example/emoji/blobcat.png' },
      { shortcode: 'ok_2', url: 'http://remote.example/emoji/ok.png' },
      { shortcode: 'b'.repeat(100), url: 'https://remote.example/emoji/b.png' },
      { shortcode: 'cw_only', url: 'https://remote.example/emoji/cw.png' },
    ],
    'too long, one character, bad characters, javascript:, data:, ftp:, a URL over 2048, an Emoji or icon only linked, an unused one and a second :blobcat: are dropped; the summary counts',
  );
  t.strictSame(fetched, [], 'nothing was fetched, not even the linked Emoji or icon');

  const many = await Note.fromJsonLd({
    '@context': CONTEXT,
    type: 'Note',
    id: 'https://remote.example/notes/2',
    content: Array.from({ length: 60 }, (_, i) => `:e${i}:`).join(' '),
    tag: Array.from({ length: 60 }, (_, i) => emoji(`:e${i}:`, `https://remote.example/emoji/${i}.png`)),
  });
  const kept = await remoteEmojisOf(many, await statusTexts(many));
  t.equal(MAX_REMOTE_EMOJIS, 50);
  t.strictSame(kept.map((e) => e.shortcode), Array.from({ length: 50 }, (_, i) => `e${i}`), 'the first 50');

  const question = await Question.fromJsonLd({
    '@context': CONTEXT,
    type: 'Question',
    id: 'https://remote.example/notes/3',
    content: 'vote',
    oneOf: [{ type: 'Note', name: 'yes :yes:' }, { type: 'Note', name: 'no' }],
    tag: [emoji(':yes:', 'https://remote.example/emoji/yes.png'), emoji(':no:', 'https://remote.example/emoji/no.png')],
  });
  t.strictSame(await remoteEmojisOf(question, await statusTexts(question)), [{ shortcode: 'yes', url: 'https://remote.example/emoji/yes.png' }], 'an option name counts');

  const actor = await Person.fromJsonLd({
    '@context': CONTEXT,
    type: 'Person',
    id: 'https://remote.example/users/eve',
    preferredUsername: 'eve',
    tag: [emoji(':name:', 'https://remote.example/emoji/name.png'), emoji(':bio:', 'https://remote.example/emoji/bio.png'), emoji(':field:', 'https://remote.example/emoji/field.png'), emoji(':value:', 'https://remote.example/emoji/value.png'), emoji(':none:', 'https://remote.example/emoji/none.png')],
  });
  const texts = accountTexts({ uri: 'u', url: 'u', username: 'eve', domain: 'remote.example', displayName: 'Eve :name:', noteHtml: '<p>:bio:</p>', fields: [{ name: ':field:', valueHtml: ':value:' }], avatarUrl: null, headerUrl: null, locked: false, bot: false, discoverable: false });
  t.strictSame((await remoteEmojisOf(actor, texts)).map((e) => e.shortcode), ['name', 'bio', 'field', 'value'], 'name, bio, field names and values');
});

t.test('the decorators: one read for the remote ones, none for local ones; an edit replaces them', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const repository = h.core.storage.extend(federationStorage);
  const reads: number[] = [];
  const repo: EmojiRepository = {
    kvGetMany: (keys, now) => {
      reads.push(keys.length);
      return repository.kvGetMany(keys, now);
    },
    kvSet: (key, value, expiresAt) => repository.kvSet(key, value, expiresAt),
    kvDelete: (key) => repository.kvDelete(key),
  };
  const eve = account({ domain: 'remote.example', uri: 'https://remote.example/users/eve' });
  const mallory = account({ domain: 'remote.example', uri: 'https://remote.example/users/mallory' });
  const local = account();
  const remote = status(eve, { uri: 'https://remote.example/notes/1', local: false });
  const plain = status(mallory, { uri: 'https://remote.example/notes/2', local: false });
  const own = status(local);
  await keepStatusEmojis(repo, remote.uri ?? '', [{ shortcode: 'blobcat', url: 'https://remote.example/emoji/blobcat.png' }]);
  await keepAccountEmojis(repo, eve.uri ?? '', [{ shortcode: 'eve', url: 'https://remote.example/emoji/eve.png' }]);

  const statuses = remoteStatusEmojiDecorator(repo, h.core.clock, h.core.storage.statuses);
  const rendered = async (s: typeof remote) => {
    const json = { emojis: [] } as unknown as StatusJson;
    statuses.render(s, await statuses.load([s], null), json, { now: 0, signedIn: false });
    return json.emojis;
  };
  const loaded = await statuses.load([remote, plain, own], null);
  t.strictSame(reads, [2], 'one read, for the two remote statuses');
  const jsonOf = (s: typeof remote) => {
    const json = { emojis: [] } as unknown as StatusJson;
    statuses.render(s, loaded, json, { now: 0, signedIn: false });
    return json.emojis;
  };
  t.strictSame(jsonOf(remote), [{ shortcode: 'blobcat', url: 'https://remote.example/emoji/blobcat.png', static_url: 'https://remote.example/emoji/blobcat.png', visible_in_picker: false, category: null }]);
  t.strictSame(jsonOf(plain), [], 'none kept: []');
  t.strictSame(jsonOf(own), [], 'local: []');
  reads.length = 0;
  await statuses.load([own], null);
  t.strictSame(reads, [], 'only local statuses: no read at all');
  await keepStatusEmojis(repo, remote.uri ?? '', []);
  t.strictSame(await rendered(remote), [], 'an edit without emojis clears them');

  const accounts = remoteAccountEmojiDecorator(repo, h.core.clock);
  reads.length = 0;
  const byAccount = await accounts.load([eve, mallory, local]);
  t.strictSame(reads, [2], 'one read, for the two remote accounts');
  const accountJson = (a: typeof eve) => {
    const json = { emojis: [] } as unknown as AccountJson;
    accounts.render(a, byAccount, json);
    return json.emojis;
  };
  t.strictSame(accountJson(eve), [{ shortcode: 'eve', url: 'https://remote.example/emoji/eve.png', static_url: 'https://remote.example/emoji/eve.png', visible_in_picker: false, category: null }]);
  t.strictSame(accountJson(mallory), []);
  t.strictSame(accountJson(local), []);
  reads.length = 0;
  await accounts.load([local]);
  t.strictSame(reads, [], 'only local accounts: no read at all');
});
