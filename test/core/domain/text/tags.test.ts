import t from 'tap';
import { normalizeTag } from '../../../../core/domain/text/tags.ts';

t.test('lowercases', async (t) => {
  t.equal(normalizeTag('MastoDon'), 'mastodon');
  t.equal(normalizeTag('ΕΛΛΆΔΑ'), 'ελλάδα', 'non-Latin letters are lowercased but not folded');
});

t.test('NFKC: full-width and compatibility forms become plain', async (t) => {
  t.equal(normalizeTag('ＴＡＧ１'), 'tag1');
  t.equal(normalizeTag('ｶﾀｶﾅ'), 'カタカナ', 'half-width katakana');
  t.equal(normalizeTag('ﬁsh'), 'fish', 'ligature');
  t.equal(normalizeTag('cafe\u0301'), 'cafe', 'a combining accent is composed, then folded');
});

t.test('folds accented Latin letters to ASCII', async (t) => {
  t.equal(normalizeTag('café'), 'cafe');
  t.equal(normalizeTag('Café'), 'cafe');
  t.equal(normalizeTag('ŁÓDŹ'), 'lodz');
  t.equal(normalizeTag('Ærøskøbing'), 'æroskobing', 'ø folds, æ does not');
  t.equal(normalizeTag('Straße'), 'straße', 'ß is not in the folding table');
  t.equal(normalizeTag('ǎ'), 'ǎ', 'letters beyond Latin Extended-A are left alone');
});

t.test('drops everything but letters, marks, digits, _, · and ZWNJ', async (t) => {
  t.equal(normalizeTag('hello-world!'), 'helloworld');
  t.equal(normalizeTag('a b.c'), 'abc');
  t.equal(normalizeTag('tag_name·x'), 'tag_name·x');
  t.equal(normalizeTag('ab\u200Ccd'), 'ab\u200Ccd');
  t.equal(normalizeTag('🎉party'), 'party');
  t.equal(normalizeTag('हिन्दी'), 'हिन्दी', 'Indic vowel signs are marks and stay');
  t.equal(normalizeTag('日本語'), '日本語');
});
