// Folding accented letters as Mastodon folds them in hashtags: the letters of Latin-1 and
// Latin Extended-A, U+00C0–U+017F, to plain ASCII letters and leaves everything else
// (æ, ß, œ, þ, ǎ …) alone. Most of its table is "drop the accent", which NFD gives us;
// the letters whose accent is not a combining mark are listed here.

const FIRST = 0x00c0;
const LAST = 0x017f;

const STROKED: Readonly<Record<string, string>> = {
  'Ð': 'D', 'ð': 'd', 'Đ': 'D', 'đ': 'd',
  'Ħ': 'H', 'ħ': 'h',
  'ı': 'i',
  'ĸ': 'k',
  'Ŀ': 'L', 'ŀ': 'l', 'Ł': 'L', 'ł': 'l',
  'ŉ': 'n', 'Ŋ': 'N', 'ŋ': 'n',
  'Ø': 'O', 'ø': 'o',
  'ſ': 's',
  'Ŧ': 'T', 'ŧ': 't',
};

function foldChar(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code < FIRST || code > LAST) return c;
  const stroked = STROKED[c];
  if (stroked !== undefined) return stroked;
  const decomposed = c.normalize('NFD');
  const base = decomposed[0] ?? c;
  // Only a letter plus combining accents folds; Æ, ß, × and friends do not decompose.
  return decomposed.length > 1 && /^[A-Za-z]$/.test(base) ? base : c;
}

export function foldAccents(s: string): string {
  return s.replace(/[\u00C0-\u017F]/g, foldChar);
}
