import t from 'tap';
import { formatText } from '../../../../core/domain/text/format.ts';
import type { FormatOptions, MentionLink } from '../../../../core/domain/text/format.ts';

const accounts: Record<string, MentionLink> = {
  bob: { url: 'https://rookery.example/@bob', display: 'bob' },
  'bob@remote.example': { url: 'https://remote.example/@bob', display: 'bob@remote.example' },
};

const options: FormatOptions = {
  resolveMention: (username, domain) => accounts[domain === null ? username : `${username}@${domain}`] ?? null,
  tagUrl: (name) => `https://rookery.example/tags/${encodeURIComponent(name)}`,
};

const format = (text: string) => formatText(text, options);

t.test('empty or blank text gives an empty string', async (t) => {
  t.equal(format(''), '');
  t.equal(format('  \n\t\r\n '), '');
  t.equal(format('\u00A0'), '', 'Unicode blank counts as blank');
});

t.test('plain text is escaped inside a paragraph', async (t) => {
  t.equal(format('hello'), '<p>hello</p>');
  t.equal(format('a < b & c > d "q" \'r\''), '<p>a &lt; b &amp; c &gt; d &quot;q&quot; &#39;r&#39;</p>');
  t.equal(format('<script>alert(1)</script>'), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
});

t.test('a hashtag links to tagUrl with the name as typed', async (t) => {
  t.equal(
    format('#Café time'),
    '<p><a href="https://rookery.example/tags/Caf%C3%A9" class="mention hashtag" rel="tag">#<span>Café</span></a> time</p>',
  );
  t.equal(format('#123 and foo#bar'), '<p>#123 and foo#bar</p>', 'non-tags stay text');
});

t.test('hashtag href and name are escaped', async (t) => {
  const html = formatText('#tag', { ...options, tagUrl: (name) => `https://x.example/search?q=${name}&type="tag"` });
  t.equal(
    html,
    '<p><a href="https://x.example/search?q=tag&amp;type=&quot;tag&quot;" class="mention hashtag" rel="tag">#<span>tag</span></a></p>',
  );
});

t.test('a resolved local mention becomes an h-card', async (t) => {
  t.equal(
    format('hi @bob!'),
    '<p>hi <span class="h-card" translate="no"><a href="https://rookery.example/@bob" class="u-url mention">@<span>bob</span></a></span>!</p>',
  );
});

t.test('a resolved remote mention shows the display the resolver chose', async (t) => {
  t.equal(
    format('@bob@remote.example hello'),
    '<p><span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob@remote.example</span></a></span> hello</p>',
  );
});

t.test('resolveMention gets username and domain as typed', async (t) => {
  const calls: Array<[string, string | null]> = [];
  formatText('@Bob @alice@Remote.Example', {
    ...options,
    resolveMention: (username, domain) => {
      calls.push([username, domain]);
      return null;
    },
  });
  t.strictSame(calls, [
    ['Bob', null],
    ['alice', 'Remote.Example'],
  ]);
});

t.test('an unresolved mention stays plain text', async (t) => {
  t.equal(format('hi @nobody and @bob@elsewhere.example'), '<p>hi @nobody and @bob@elsewhere.example</p>');
});

t.test('mention url and display are escaped', async (t) => {
  const html = formatText('@bob', { ...options, resolveMention: () => ({ url: 'https://x.example/?a=1&b=2', display: '<b>' }) });
  t.equal(
    html,
    '<p><span class="h-card" translate="no"><a href="https://x.example/?a=1&amp;b=2" class="u-url mention">@<span>&lt;b&gt;</span></a></span></p>',
  );
});

t.test('an e-mail address is not a mention', async (t) => {
  t.equal(format('mail bob@remote.example'), '<p>mail bob@remote.example</p>');
});

t.test('URL, hashtag and mention together, text between them escaped', async (t) => {
  t.equal(
    format('@bob & #tag: https://example.com/'),
    '<p><span class="h-card" translate="no"><a href="https://rookery.example/@bob" class="u-url mention">@<span>bob</span></a></span> &amp; ' +
      '<a href="https://rookery.example/tags/tag" class="mention hashtag" rel="tag">#<span>tag</span></a>: ' +
      '<a href="https://example.com/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/</span><span class="invisible"></span></a></p>',
  );
});

t.test('a mention or tag inside a URL is not linked separately', async (t) => {
  t.equal(
    format('https://x.org/@bob'),
    '<p><a href="https://x.org/@bob" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">x.org/@bob</span><span class="invisible"></span></a></p>',
  );
});
