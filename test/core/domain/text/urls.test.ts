import t from 'tap';
import { extractEntities } from '../../../../core/domain/text/entities.ts';

/** The URLs found in `text`, as the source text they cover. */
const urls = (text: string): string[] =>
  extractEntities(text)
    .filter((e) => e.kind === 'url')
    .map((e) => text.slice(e.start, e.end));

t.test('a URL entity carries the URL and its offsets', async (t) => {
  t.strictSame(extractEntities('go https://example.com/a now'), [
    { kind: 'url', url: 'https://example.com/a', start: 3, end: 24 },
  ]);
});

t.test('a scheme is required', async (t) => {
  t.strictSame(urls('www.example.com and example.com/path'), []);
  t.strictSame(urls('ftp://example.com/file'), [], 'ftp is not a scheme Mastodon links');
  t.strictSame(urls('http://example.com'), ['http://example.com']);
  t.strictSame(urls('https://example.com'), ['https://example.com']);
  t.strictSame(urls('HTTPS://EXAMPLE.COM/X'), ['HTTPS://EXAMPLE.COM/X'], 'the scheme is case-insensitive');
});

t.test("Mastodon's other schemes are linked", async (t) => {
  t.strictSame(urls('gemini://example.org/page'), ['gemini://example.org/page']);
  t.strictSame(urls('ipfs://example.io/x and gopher://example.net/1'), ['ipfs://example.io/x', 'gopher://example.net/1']);
  t.strictSame(urls('chat xmpp:bob@example.com now'), ['xmpp:bob@example.com']);
  t.strictSame(urls('xmpp:bob@example.com/phone?message'), ['xmpp:bob@example.com/phone?message']);
  t.strictSame(urls('get magnet:?xt=urn:btih:abc123 here'), ['magnet:?xt=urn:btih:abc123']);
  t.strictSame(urls('magnet: not a link'), []);
});

t.test('a URL cannot be glued to a preceding word, @, $ or #', async (t) => {
  t.strictSame(urls('foohttps://example.com'), []);
  t.strictSame(urls('@https://example.com'), []);
  t.strictSame(urls('$https://example.com'), []);
  t.strictSame(urls('(https://example.com)'), ['https://example.com']);
  t.strictSame(urls('<https://example.com>'), ['https://example.com']);
});

t.test('trailing punctuation is not part of the URL', async (t) => {
  for (const mark of ['.', ',', ')', '!', '?', ':', ';', "'", '"', '...', '?!']) {
    t.strictSame(urls(`see https://example.com/path${mark}`), ['https://example.com/path'], `trailing ${mark}`);
  }
  t.strictSame(urls('at https://example.com.'), ['https://example.com'], 'after a bare host');
  t.strictSame(urls('"https://example.com/quoted"'), ['https://example.com/quoted']);
});

t.test('query strings and fragments are kept', async (t) => {
  t.strictSame(urls('https://example.com/search?q=a&b=c#frag'), ['https://example.com/search?q=a&b=c#frag']);
  t.strictSame(urls('https://example.com/search?q=a&b=c#frag.'), ['https://example.com/search?q=a&b=c#frag']);
  t.strictSame(urls('https://example.com/?q=1,'), ['https://example.com/?q=1']);
  t.strictSame(urls('https://example.com/docs#section-2'), ['https://example.com/docs#section-2']);
  t.strictSame(urls('https://example.com?'), ['https://example.com'], 'an empty query is left out');
});

t.test('ports', async (t) => {
  t.strictSame(urls('https://example.com:8443/p'), ['https://example.com:8443/p']);
  t.strictSame(urls('https://example.com:8443:'), ['https://example.com:8443']);
});

t.test('balanced parentheses stay in the URL, unbalanced ones do not', async (t) => {
  t.strictSame(urls('(see https://en.wikipedia.org/wiki/Foo_(bar))'), ['https://en.wikipedia.org/wiki/Foo_(bar)']);
  t.strictSame(urls('https://example.com/a_(b_(c))_d'), ['https://example.com/a_(b_(c))_d'], 'one nested level');
  t.strictSame(urls('(https://example.com/foo)'), ['https://example.com/foo']);
  t.strictSame(urls('https://example.com/a(b'), ['https://example.com/a']);
});

t.test('@ and # inside a URL belong to the URL', async (t) => {
  t.strictSame(extractEntities('https://example.com/#anchor'), [
    { kind: 'url', url: 'https://example.com/#anchor', start: 0, end: 27 },
  ]);
  t.strictSame(extractEntities('https://x.org/@bob'), [{ kind: 'url', url: 'https://x.org/@bob', start: 0, end: 18 }]);
});

t.test('hosts', async (t) => {
  t.strictSame(urls('https://日本.jp/パス'), ['https://日本.jp/パス'], 'internationalised host and path');
  t.strictSame(urls('https://example.comです'), ['https://example.com'], 'an ASCII host ends before other scripts');
  t.strictSame(urls('http://localhost:3000/x'), ['http://localhost:3000/x'], 'single-label hosts are linked');
  t.strictSame(urls('https://user@example.com'), [], 'no user info, as in twitter-text');
  t.strictSame(urls('https://'), []);
});

t.test('several URLs in one text', async (t) => {
  t.strictSame(urls('https://a.example,https://b.example https://c.example/x'), [
    'https://a.example',
    'https://b.example',
    'https://c.example/x',
  ]);
});
