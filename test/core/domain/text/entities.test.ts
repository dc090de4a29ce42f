import t from 'tap';
import { extractEntities } from '../../../../core/domain/text/entities.ts';

t.test('entities come sorted by start, each kind in place', async (t) => {
  t.strictSame(extractEntities('https://example.com #tag @bob end'), [
    { kind: 'url', url: 'https://example.com', start: 0, end: 19 },
    { kind: 'hashtag', name: 'tag', start: 20, end: 24 },
    { kind: 'mention', username: 'bob', domain: null, start: 25, end: 29 },
  ]);
});

t.test('offsets are JS string indices', async (t) => {
  const text = '😀 #tag';
  const [tag] = extractEntities(text);
  t.equal(tag?.start, 3);
  t.equal(text.slice(tag?.start, tag?.end), '#tag');
});

t.test('a URL wins over a mention or hashtag inside it', async (t) => {
  t.strictSame(extractEntities('https://example.com/a!@bob'), [
    { kind: 'url', url: 'https://example.com/a!@bob', start: 0, end: 26 },
  ]);
  t.strictSame(extractEntities('https://example.com/a.#tag'), [
    { kind: 'url', url: 'https://example.com/a.#tag', start: 0, end: 26 },
  ]);
});

t.test('text without entities', async (t) => {
  t.strictSame(extractEntities(''), []);
  t.strictSame(extractEntities('nothing to see: here.'), []);
});
