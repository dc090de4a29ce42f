import t from 'tap';
import { extractEntities } from '../../../../core/domain/text/entities.ts';

const tags = (text: string): string[] =>
  extractEntities(text)
    .filter((e) => e.kind === 'hashtag')
    .map((e) => e.name);

t.test('a hashtag entity: the name as typed, without #', async (t) => {
  t.strictSame(extractEntities('#Tag'), [{ kind: 'hashtag', name: 'Tag', start: 0, end: 4 }]);
  t.strictSame(extractEntities('so #MastoDon.'), [{ kind: 'hashtag', name: 'MastoDon', start: 3, end: 12 }]);
});

t.test('digits alone are not a tag', async (t) => {
  t.strictSame(tags('#123'), []);
  t.strictSame(tags('#tag123'), ['tag123']);
  t.strictSame(tags('#123abc'), ['123abc']);
  t.strictSame(tags('#_123'), [], 'an underscore at the start is not enough');
  t.strictSame(tags('#12_3'), ['12_3'], 'an inner separator is');
});

t.test('Unicode names', async (t) => {
  t.strictSame(tags('#日本語 #café #Ελλάδα'), ['日本語', 'café', 'Ελλάδα']);
  t.strictSame(tags('#a·b'), ['a·b'], 'middle dot');
  t.strictSame(tags('#ab\u200Ccd'), ['ab\u200Ccd'], 'zero-width non-joiner');
  t.strictSame(tags('#tag·'), ['tag'], 'a separator cannot end a tag');
});

t.test('where a tag may start', async (t) => {
  t.strictSame(tags('#start of text'), ['start']);
  t.strictSame(tags('(#paren) ,#comma "#quote"'), ['paren', 'comma', 'quote']);
  t.strictSame(tags('foo#bar'), []);
  t.strictSame(tags('a/#path a)#close'), []);
  t.strictSame(tags('#one#two'), ['one'], 'a tag glued to a tag');
  t.strictSame(tags('café#x'), ['x'], 'only ASCII word characters block, as with Ruby\'s \\w');
});

t.test('a tag glued to a URL scheme loses the scheme', async (t) => {
  t.strictSame(extractEntities('#foohttps://example.com'), [{ kind: 'hashtag', name: 'foo', start: 0, end: 4 }]);
});
