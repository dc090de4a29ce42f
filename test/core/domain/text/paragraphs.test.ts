import t from 'tap';
import { formatText } from '../../../../core/domain/text/format.ts';

const format = (text: string) => formatText(text, { resolveMention: () => null, tagUrl: (name) => `/tags/${name}` });

t.test('single newlines become <br />, blank lines split paragraphs', async (t) => {
  t.equal(format('a\nb\n\nc'), '<p>a<br />b</p><p>c</p>');
  t.equal(format('one\ntwo\nthree'), '<p>one<br />two<br />three</p>');
  t.equal(format('a \n b'), '<p>a <br /> b</p>', 'spaces around a line break are kept');
});

t.test('CRLF and CR count as newlines', async (t) => {
  t.equal(format('a\r\nb\r\n\r\nc'), '<p>a<br />b</p><p>c</p>');
  t.equal(format('a\rb\r\rc'), '<p>a<br />b</p><p>c</p>');
});

t.test('several blank lines, or blank lines holding whitespace, are one break', async (t) => {
  t.equal(format('a\n\n\n\nb'), '<p>a</p><p>b</p>');
  t.equal(format('a\n  \t\nb'), '<p>a</p><p>b</p>');
  t.equal(format('a\n\n \t \n\n\nb'), '<p>a</p><p>b</p>', 'no empty paragraph from whitespace-only lines');
});

t.test('leading and trailing whitespace is stripped', async (t) => {
  t.equal(format('  \n\n hello \n\n  '), '<p>hello</p>');
  t.equal(format('a\n\n  b'), '<p>a</p><p>  b</p>', 'indentation inside the text is kept');
});

t.test('only ASCII whitespace is stripped, as Ruby\'s strip does', async (t) => {
  t.equal(format('\u3000text\u3000'), '<p>\u3000text\u3000</p>');
});

t.test('entities and escaping inside paragraphs', async (t) => {
  t.equal(
    format('x & y\n\n#tag'),
    '<p>x &amp; y</p><p><a href="/tags/tag" class="mention hashtag" rel="tag">#<span>tag</span></a></p>',
  );
});
