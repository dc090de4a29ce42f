import t from 'tap';
import { compileKeywords, type Keyword } from '../../../../core/domain/text/keywords.ts';

const kw = (group: string, keyword: string, wholeWord = true): Keyword => ({ group, keyword, wholeWord });
const matches = (keywords: Keyword[], text: string) => Object.fromEntries(compileKeywords(keywords).match(text));

t.test('case-insensitive, grouped by filter, each keyword once, in definition order', async (t) => {
  const keywords = [kw('a', 'Cat'), kw('a', 'dog'), kw('b', 'DOG'), kw('b', 'bird')];
  t.same(matches(keywords, 'My dog and my CAT, and a dog again'), { a: ['Cat', 'dog'], b: ['DOG'] });
  t.same(matches(keywords, 'nothing here'), {});
  t.same(matches([], 'anything'), {});
  t.same(matches(keywords, ''), {});
});

t.test('whole words only touch non-word characters on their word edges', async (t) => {
  t.same(matches([kw('f', 'cat')], 'concatenate cats cat_ _cat'), {}, 'inside words and next to underscores: no');
  t.same(matches([kw('f', 'cat')], 'a cat.'), { f: ['cat'] });
  t.same(matches([kw('f', 'cat', false)], 'concatenate'), { f: ['cat'] }, 'not whole-word: anywhere');
  t.same(matches([kw('f', '#tag')], 'x#tag and #tagged'), { f: ['#tag'] }, 'an edge that is no word char stays open: x#tag matches');
  t.same(matches([kw('f', 'été')], 'un été chaud, étés'), { f: ['été'] }, 'non-ASCII letters are word characters');
  t.same(matches([kw('f', 'café')], 'cafés café'), { f: ['café'] });
});

t.test('overlapping keywords and shared prefixes and suffixes all match', async (t) => {
  const keywords = [kw('x', 'he', false), kw('x', 'she', false), kw('x', 'his', false), kw('x', 'hers', false)];
  t.same(matches(keywords, 'ushers'), { x: ['he', 'she', 'hers'] });
  t.same(matches([kw('y', 'aab', false), kw('y', 'ab', false), kw('y', 'b', false)], 'aaab'), { y: ['aab', 'ab', 'b'] });
});

t.test('astral characters count as one character', async (t) => {
  t.same(matches([kw('e', '🐈 cat')], 'a 🐈 cat!'), { e: ['🐈 cat'] });
  t.same(matches([kw('e', 'cat')], '🐈cat'), { e: ['cat'] }, 'an emoji is not a word character');
});

t.test('twenty thousand keywords compile once and scan a text in one pass', async (t) => {
  const many = Array.from({ length: 20_000 }, (_, i) => kw('big', `word${i}`));
  const matcher = compileKeywords(many);
  t.equal(matcher.size, 20_000);
  t.same(Object.fromEntries(matcher.match('this has word19999 and word7 but not word200000')), { big: ['word7', 'word19999'] });
});
