import t from 'tap';
import { countCharacters, countGraphemes, countStatusCharacters } from '../../../../core/domain/text/length.ts';

// 100 characters long.
const longUrl = `https://example.com/${'a'.repeat(80)}`;

t.test('plain text counts grapheme clusters', async (t) => {
  t.equal(countCharacters(''), 0);
  t.equal(countCharacters('hello'), 5);
  t.equal(countCharacters('日本語'), 3);
  t.equal(countCharacters('a\nb'), 3, 'newlines count');
  t.equal(countCharacters('a\r\nb'), 3, 'CR LF is one, as a grapheme cluster');
  t.equal(countCharacters('a\rb\r'), 4, 'a lone CR is one');
  t.equal(countCharacters('a\tb\u007f'), 4, 'tabs and DEL count one each');
  t.equal(countCharacters('ascii then \u00e9'), 12, 'one character past ASCII: segmented, the same count');
});

t.test('emoji sequences and combining marks are one character each', async (t) => {
  t.equal(countCharacters('👨‍👩‍👧'), 1, 'ZWJ family');
  t.equal(countCharacters('🇫🇷'), 1, 'flag');
  t.equal(countCharacters('👍🏽'), 1, 'skin tone');
  t.equal(countCharacters('cafe\u0301'), 4, 'e + combining acute');
  t.equal(countCharacters('😀😀'), 2);
});

t.test('every URL counts 23', async (t) => {
  t.equal(longUrl.length, 100);
  t.equal(countCharacters(longUrl), 23);
  t.equal(countCharacters(`see ${longUrl}.`), 28);
  t.equal(countCharacters('https://x.co'), 23, 'short URLs count 23 as well');
  t.equal(countCharacters(`${longUrl} ${longUrl}`), 47);
});

t.test('a mention counts as @user', async (t) => {
  t.equal(countCharacters('@bob'), 4);
  t.equal(countCharacters('@bob@remote.example'), 4);
  t.equal(countCharacters('hi @bob@remote.example!'), 8);
  t.equal(countCharacters('mail bob@remote.example'), 23, 'an e-mail address counts in full');
  t.equal(countCharacters('https://x.org/@bob@remote.example'), 23, 'a mention inside a URL is just the URL');
});

t.test('hashtags count in full', async (t) => {
  t.equal(countCharacters('#hashtag'), 8);
});

t.test('xmpp: and magnet: URIs are linked but count in full, as in Mastodon', async (t) => {
  t.equal(countCharacters('xmpp:bob@example.com'), 20);
  t.equal(countCharacters('magnet:?xt=urn:btih:abc'), 23);
  t.equal(countCharacters('magnet:?xt=urn:btih:abcd'), 24);
});

t.test('the 500 boundary', async (t) => {
  t.equal(countCharacters('a'.repeat(500)), 500);
  t.equal(countCharacters('a'.repeat(501)), 501);
  t.equal(countCharacters(`${'a'.repeat(476)} ${longUrl}`), 500);
  t.equal(countCharacters(`${'a'.repeat(477)} ${longUrl}`), 501);
  t.equal(countCharacters('👨‍👩‍👧'.repeat(500)), 500);
  t.equal(countCharacters(`${'a'.repeat(200)}`) + countCharacters(`${'b'.repeat(295)} @bob@remote.example`), 500, 'spoiler + text');
});

t.test('countStatusCharacters follows Mastodon: the spoiler counts raw', async (t) => {
  t.equal(countStatusCharacters('cw', longUrl), 25);
  t.equal(countStatusCharacters(longUrl, ''), 100, 'a URL in the spoiler is not shortened');
  t.equal(countStatusCharacters('@bob@remote.example', '@bob@remote.example'), 23);
  t.equal(countStatusCharacters('', 'a'.repeat(500)), 500);
});

t.test('countGraphemes counts without rewriting', async (t) => {
  t.equal(countGraphemes(longUrl), 100);
  t.equal(countGraphemes('👨‍👩‍👧x'), 2);
});
