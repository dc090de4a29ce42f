// Hashtag names and the ids derived from them (core/domain/tags/names.ts).

import t from 'tap';
import { RookeryError } from '../../../core/domain/errors.ts';
import { tagIdOf, tagNameOf } from '../../../core/domain/tags/names.ts';

t.test('a tag id: stable, decimal, positive, below 2^63, one per normalized name', async (t) => {
  const id = tagIdOf('cats');
  t.match(id, /^[1-9]\d*$/);
  t.ok(BigInt(id) < 1n << 63n);
  t.equal(tagIdOf('cats'), id, 'stable');
  t.not(tagIdOf('dogs'), id);
  t.equal(tagIdOf(tagNameOf('CATS').tag), id, 'every spelling normalizes to one id');
});

t.test('names: hashtag names only, at most 256 characters', async (t) => {
  t.same(tagNameOf('Café'), { name: 'Café', tag: 'cafe' });
  for (const bad of ['', '#cats', '123', 'a-b', 'x'.repeat(257), undefined]) t.throws(() => tagNameOf(bad), new RookeryError(404, 'Record not found'), String(bad).slice(0, 10));
  t.same(tagNameOf('x'.repeat(256)).tag.length, 256);
});
