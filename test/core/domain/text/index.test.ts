import t from 'tap';
import * as text from '../../../../core/domain/text/index.ts';

t.test('the index re-exports the whole text API', async (t) => {
  t.strictSame(Object.keys(text).sort(), [
    'countCharacters',
    'countGraphemes',
    'countStatusCharacters',
    'escapeHtml',
    'extractEntities',
    'findHashtags',
    'formatPlain',
    'formatText',
    'isHashtagName',
    'normalizeTag',
  ]);
  t.equal(text.normalizeTag('Café'), 'cafe');
});
