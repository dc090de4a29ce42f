import t from 'tap';
import { formatText } from '../../../../core/domain/text/format.ts';

const format = (text: string) => formatText(text, { resolveMention: () => null, tagUrl: (name) => `/tags/${name}` });

t.test('each hidden prefix', async (t) => {
  t.equal(
    format('https://www.example.com/'),
    '<p><a href="https://www.example.com/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://www.</span><span class="">example.com/</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('http://www.example.com/'),
    '<p><a href="http://www.example.com/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">http://www.</span><span class="">example.com/</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('https://example.com'),
    '<p><a href="https://example.com" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('http://example.com/'),
    '<p><a href="http://example.com/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">http://</span><span class="">example.com/</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('xmpp:bob@example.com'),
    '<p><a href="xmpp:bob@example.com" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">xmpp:</span><span class="">bob@example.com</span><span class="invisible"></span></a></p>',
  );
});

t.test('no hidden prefix for other schemes or an upper-case scheme', async (t) => {
  t.equal(
    format('gemini://example.org/'),
    '<p><a href="gemini://example.org/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible"></span><span class="">gemini://example.org/</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('HTTPS://example.com'),
    '<p><a href="HTTPS://example.com" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible"></span><span class="">HTTPS://example.com</span><span class="invisible"></span></a></p>',
  );
});

// 'example.com/' is 12 characters; pad the path to the length wanted after the prefix.
const pad = (length: number) => `example.com/${'a'.repeat(length - 12)}`;

t.test('exactly 30 characters after the prefix: all shown, no ellipsis', async (t) => {
  t.equal(
    format(`https://${pad(30)}`),
    `<p><a href="https://${pad(30)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">${pad(30)}</span><span class="invisible"></span></a></p>`,
  );
});

t.test('31 characters: the one extra character is shown, not elided', async (t) => {
  t.equal(
    format(`https://${pad(31)}`),
    `<p><a href="https://${pad(31)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">${pad(31)}</span><span class="invisible"></span></a></p>`,
  );
});

t.test('32 characters: 30 shown with an ellipsis, 2 hidden', async (t) => {
  t.equal(
    format(`https://${pad(32)}`),
    `<p><a href="https://${pad(32)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="ellipsis">${pad(30)}</span><span class="invisible">aa</span></a></p>`,
  );
});

t.test('characters are counted in code points', async (t) => {
  const url = `https://example.com/${'😀'.repeat(20)}`;
  t.equal(
    format(url),
    `<p><a href="${url}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="ellipsis">example.com/${'😀'.repeat(18)}</span><span class="invisible">😀😀</span></a></p>`,
  );
});

t.test('href and every part are escaped', async (t) => {
  t.equal(
    format("https://example.com/it's?a=1&b=2"),
    '<p><a href="https://example.com/it&#39;s?a=1&amp;b=2" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/it&#39;s?a=1&amp;b=2</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format('https://example.com/"&"/'),
    '<p><a href="https://example.com/&quot;&amp;&quot;/" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/&quot;&amp;&quot;/</span><span class="invisible"></span></a></p>',
  );
  t.equal(
    format(`https://example.com/${'a'.repeat(18)}?q=x&y=z`),
    `<p><a href="https://example.com/${'a'.repeat(18)}?q=x&amp;y=z" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="ellipsis">example.com/${'a'.repeat(18)}</span><span class="invisible">?q=x&amp;y=z</span></a></p>`,
    'in the hidden rest too',
  );
});

t.test('a URL ends at < and trailing punctuation stays outside the link', async (t) => {
  t.equal(
    format('<https://example.com/a>.'),
    '<p>&lt;<a href="https://example.com/a" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/a</span><span class="invisible"></span></a>&gt;.</p>',
  );
});
