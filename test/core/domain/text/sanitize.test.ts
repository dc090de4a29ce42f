import t from 'tap';
import sanitizeHtmlLib from 'sanitize-html';
import { boundText, decodeEntities, htmlToText, MAX_REMOTE_HTML, sanitizeHtml } from '../../../../core/domain/text/sanitize.ts';

// The same allow-list, as options of the sanitize-html library: an independent reader that
// must find nothing left to remove in what our sanitiser writes.
const LIBRARY_OPTIONS: sanitizeHtmlLib.IOptions = {
  allowedTags: ['p', 'br', 'span', 'a', 'del', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'ul', 'ol', 'li', 'blockquote'],
  allowedAttributes: { a: ['href', 'rel', 'target', 'class'], span: ['class'] },
  allowedClasses: { a: ['h-card', 'mention', 'hashtag', 'u-url', 'invisible', 'ellipsis'], span: ['h-card', 'mention', 'hashtag', 'u-url', 'invisible', 'ellipsis'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  selfClosing: ['br'],
};

/** What the library would still take out of our output (nothing, when ours is clean). */
function libraryChanges(clean: string): boolean {
  const again = sanitizeHtmlLib(clean, LIBRARY_OPTIONS);
  const normal = (s: string) => s.replace(/<br \/>/g, '<br />');
  return normal(again) !== normal(clean);
}

t.test('Mastodon content passes through as written', async (t) => {
  const mention = '<p><span class="h-card"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob</span></a></span> hi <a href="https://remote.example/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a></p>';
  t.equal(
    sanitizeHtml(mention),
    '<p><span class="h-card"><a href="https://remote.example/@bob" rel="nofollow noopener" target="_blank" class="u-url mention">@<span>bob</span></a></span> hi ' +
      '<a href="https://remote.example/tags/cats" rel="nofollow noopener" target="_blank" class="mention hashtag">#<span>cats</span></a></p>',
  );
  const link = '<p><a href="https://example.org/a/very/long/path" rel="nofollow noopener noreferrer" target="_blank"><span class="invisible">https://</span><span class="ellipsis">example.org/a/very/lo</span><span class="invisible">ng/path</span></a></p>';
  t.equal(
    sanitizeHtml(link),
    '<p><a href="https://example.org/a/very/long/path" rel="nofollow noopener" target="_blank"><span class="invisible">https://</span><span class="ellipsis">example.org/a/very/lo</span><span class="invisible">ng/path</span></a></p>',
  );
  t.equal(sanitizeHtml('<p>one<br>two<br/>three</p><p>x &amp; y &lt;3</p>'), '<p>one<br />two<br />three</p><p>x &amp; y &lt;3</p>');
  t.equal(
    sanitizeHtml('<blockquote><ul><li><em>a</em></li><li><strong>b</strong> <b>c</b> <i>d</i> <u>e</u> <del>f</del></li></ul><ol><li><pre><code>g</code></pre></li></ol></blockquote>'),
    '<blockquote><ul><li><em>a</em></li><li><strong>b</strong> <b>c</b> <i>d</i> <u>e</u> <del>f</del></li></ul><ol><li><pre><code>g</code></pre></li></ol></blockquote>',
  );
});

t.test('scripts, styles and other dropped elements go with their content', async (t) => {
  t.equal(sanitizeHtml('<p>a<script>alert(1)</script>b</p>'), '<p>ab</p>');
  t.equal(sanitizeHtml('<p>a<SCRIPT type="text/javascript">document.cookie</SCRIPT >b</p>'), '<p>ab</p>');
  t.equal(sanitizeHtml('<style>p{color:red}</style><p>x</p>'), '<p>x</p>');
  t.equal(sanitizeHtml('<iframe src="https://evil.example"></iframe><textarea><p>no</p></textarea>ok'), 'ok');
  t.equal(sanitizeHtml('<svg><script>alert(1)</script></svg>after'), 'after');
  t.equal(sanitizeHtml('<p>a<script>never closed'), '<p>a</p>', 'an unclosed script drops the rest');
  t.equal(sanitizeHtml('<scr<script>ipt>alert(1)</script>'), 'ipt&gt;alert(1)', 'a split tag stays text');
});

t.test('elements outside the list are unwrapped, their text kept and escaped', async (t) => {
  t.equal(sanitizeHtml('<div><h1>Title</h1><img src="x" onerror="alert(1)"><table><tr><td>cell</td></tr></table></div>'), 'Titlecell');
  t.equal(sanitizeHtml('<p>x<!-- a comment <script> -->y<!DOCTYPE html><?xml x?>z</p>'), '<p>xyz</p>');
  t.equal(sanitizeHtml('<object data="x"><embed src="y">fallback</object>'), 'fallback');
  t.equal(sanitizeHtml('<form action="https://evil.example"><input value="v"><button>go</button></form>'), 'go');
});

t.test('attributes: only ours survive, on* and styles never', async (t) => {
  t.equal(sanitizeHtml('<p onclick="alert(1)" style="x" class="mention" id="i">a</p>'), '<p>a</p>');
  t.equal(sanitizeHtml('<span class="evil invisible  ellipsis invisible" onmouseover="x">a</span>'), '<span class="invisible ellipsis">a</span>');
  t.equal(sanitizeHtml('<span style="color:red">a</span>'), '<span>a</span>');
  t.equal(sanitizeHtml('<a href="https://a.example" onclick="x" target="_top" rel="opener" class="hashtag x">t</a>'), '<a href="https://a.example" rel="nofollow noopener" target="_blank" class="hashtag">t</a>');
  t.equal(sanitizeHtml('<a href="https://a.example/?q=&quot;&gt;<script>">t</a>'), '<a href="https://a.example/?q=&quot;&gt;&lt;script&gt;" rel="nofollow noopener" target="_blank">t</a>', 'a value cannot break out of its quotes');
  t.equal(sanitizeHtml("<a href='https://a.example/x' >single</a><a href=https://b.example/y>bare</a>"), '<a href="https://a.example/x" rel="nofollow noopener" target="_blank">single</a><a href="https://b.example/y" rel="nofollow noopener" target="_blank">bare</a>');
});

t.test('links: http and https only; others lose the link and keep the text', async (t) => {
  for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java&#x09;script:alert(1)', '&#106;avascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', '//evil.example/x', '/relative', 'mailto:a@b.example', 'ftp://x.example', 'https://', 'http://a b.example/\u0000']) {
    t.equal(sanitizeHtml(`<a href="${href}">text</a>`), 'text', href);
  }
  t.equal(sanitizeHtml('<a>no href</a>'), 'no href');
  t.equal(sanitizeHtml(`<a href="https://x.example/${'a'.repeat(3000)}">long</a>`), 'long', 'an absurdly long URL is no link');
  t.equal(sanitizeHtml('<a href="HTTPS://X.example/">caps</a>'), '<a href="HTTPS://X.example/" rel="nofollow noopener" target="_blank">caps</a>');
  t.equal(sanitizeHtml('<a href="https://a.example"><a href="https://b.example">inner</a></a>'), '<a href="https://a.example" rel="nofollow noopener" target="_blank">inner</a>', 'no link inside a link');
});

t.test('unclosed and misnested tags are closed in order', async (t) => {
  t.equal(sanitizeHtml('<p>unclosed <strong>bold <em>both'), '<p>unclosed <strong>bold <em>both</em></strong></p>');
  t.equal(sanitizeHtml('<b><i>x</b>y</i>'), '<b><i>x</i></b>y');
  t.equal(sanitizeHtml('</p></span>stray ends<br></br>'), 'stray ends<br />');
  t.equal(sanitizeHtml('<p>a <b'), '<p>a </p>', 'a tag cut at the end is dropped');
  t.equal(sanitizeHtml('a < b > c && d'), 'a &lt; b &gt; c &amp;&amp; d');
  t.equal(sanitizeHtml('<p/>self<span/>closing'), 'selfclosing');
  t.equal(sanitizeHtml('<ul><li>1<li>2<ul><li>a</ul></ul><p>x<p>y<blockquote>z</blockquote>'), '<ul><li>1</li><li>2<ul><li>a</li></ul></li></ul><p>x</p><p>y</p><blockquote>z</blockquote>', 'items and paragraphs end where HTML ends them');
  const deep = '<b>'.repeat(10_000) + 'deep' + '</b>'.repeat(10_000);
  t.equal(sanitizeHtml(deep), '<b>'.repeat(32) + 'deep' + '</b>'.repeat(32), 'nesting is cut at 32');
});

t.test('entities: decoded once, escaped once', async (t) => {
  t.equal(decodeEntities('&amp;&lt;&gt;&quot;&apos;&nbsp;&#65;&#x42;&#0;&#x110000;&#xD800;&unknown;'), '&<>"\'\u00a0AB\ufffd\ufffd\ufffd&unknown;');
  t.equal(sanitizeHtml('<p>&amp;amp; &#60;b&#62; &copy;</p>'), '<p>&amp;amp; &lt;b&gt; &amp;copy;</p>');
  t.equal(sanitizeHtml('nul\u0000byte'), 'nulbyte');
});

t.test('input is bounded: a megabyte is cut before it is read, fast', async (t) => {
  const huge = `<p>${'x'.repeat(1_000_000)}</p>`;
  const started = performance.now();
  const clean = sanitizeHtml(huge);
  t.equal(clean, `<p>${'x'.repeat(MAX_REMOTE_HTML - 3)}</p>`);
  for (const hostile of ['<a '.repeat(400_000), '<script>'.repeat(200_000), '<b>'.repeat(300_000), '<!--'.repeat(300_000), '&#x41;'.repeat(200_000), `<a href="${'"'.repeat(500_000)}`]) {
    const out = sanitizeHtml(hostile);
    t.ok(out.length <= MAX_REMOTE_HTML * 2, `bounded output for ${JSON.stringify(hostile.slice(0, 12))}…`);
  }
  t.ok(performance.now() - started < 5000, 'hostile megabytes take well under seconds');
});

t.test('what we write is clean by the sanitize-html library too', async (t) => {
  const inputs = [
    '<p>Hello <a href="https://x.example/a?b=1&amp;c=2" class="mention u-url evil" onclick="x()">@bob</a></p><script>alert(1)</script>',
    '<a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)><p>unclosed <strong>bold',
    '<span class="invisible">https://</span><span class="ellipsis">x</span><br><br/>line',
    '<scr<script>ipt>alert(1)</script>',
    '<a href="https://a.example/?q=&quot;&gt;<script>">t</a>',
    '<b><i>x</b>y</i><ul><li>1<li>2</ul>',
    "<a href='https://a.example' class='hashtag'>#x</a><span class=\"mention\" style=\"x\">y</span>",
    '<svg onload=alert(1)><p>z</p>',
  ];
  for (const input of inputs) {
    const clean = sanitizeHtml(input);
    t.notOk(libraryChanges(clean), `clean: ${clean}`);
    t.equal(sanitizeHtml(clean), clean, 'and stable when sanitised again');
  }
});

t.test('htmlToText: what a reader sees, for filters and search', async (t) => {
  t.equal(htmlToText('<p>one<br />two</p><p>x &amp; y</p>'), 'one\ntwo\n\nx & y');
  t.equal(htmlToText('<p><a href="https://a.example" class="mention">@<span>bob</span></a> hi</p>'), '@bob hi');
  t.equal(htmlToText('<ul><li>a</li><li>b</li></ul>'), 'a\nb');
});

t.test('boundText cuts without splitting a surrogate pair', async (t) => {
  t.equal(boundText('abc', 5), 'abc');
  t.equal(boundText('abcdef', 3), 'abc');
  t.equal(boundText('ab😀', 3), 'ab');
  t.equal(boundText('ab😀', 4), 'ab😀');
});
