// ISO 639-1 codes: the languages a status may be tagged with. Mastodon also accepts a few
// ISO 639-3 codes for languages without a two-letter one; those are listed after.
const ISO_639_1 =
  'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu';
const ISO_639_3 = 'ast chr ckb cnr csb gsw jbo kab ldn lfn moh nds pdc sco sma smj szl tok vai xal zba zgh';

const LANGUAGES = new Set([...ISO_639_1.split(' '), ...ISO_639_3.split(' ')]);

/** The language code to store for a requested one: itself when known (lower-cased, region
 * dropped: "en-GB" → "en"), else null so that the caller falls back to a default. */
export function normalizeLanguage(value: string | undefined): string | null {
  if (value === undefined) return null;
  const code = value.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return LANGUAGES.has(code) ? code : null;
}
