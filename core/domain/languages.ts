// The languages a status may be tagged with, with the English names Mastodon lists them under
// (GET /api/v1/instance/languages): ISO 639-1 codes first, then the few ISO 639-3 codes Mastodon
// accepts for languages without a two-letter one.
const ISO_639_1: Record<string, string> = {
  aa: 'Afar', ab: 'Abkhaz', ae: 'Avestan', af: 'Afrikaans', ak: 'Akan', am: 'Amharic', an: 'Aragonese', ar: 'Arabic',
  as: 'Assamese', av: 'Avaric', ay: 'Aymara', az: 'Azerbaijani', ba: 'Bashkir', be: 'Belarusian', bg: 'Bulgarian',
  bh: 'Bihari', bi: 'Bislama', bm: 'Bambara', bn: 'Bengali', bo: 'Tibetan', br: 'Breton', bs: 'Bosnian', ca: 'Catalan',
  ce: 'Chechen', ch: 'Chamorro', co: 'Corsican', cr: 'Cree', cs: 'Czech', cu: 'Old Church Slavonic', cv: 'Chuvash',
  cy: 'Welsh', da: 'Danish', de: 'German', dv: 'Divehi', dz: 'Dzongkha', ee: 'Ewe', el: 'Greek', en: 'English',
  eo: 'Esperanto', es: 'Spanish', et: 'Estonian', eu: 'Basque', fa: 'Persian', ff: 'Fula', fi: 'Finnish', fj: 'Fijian',
  fo: 'Faroese', fr: 'French', fy: 'Western Frisian', ga: 'Irish', gd: 'Scottish Gaelic', gl: 'Galician', gn: 'Guaraní',
  gu: 'Gujarati', gv: 'Manx', ha: 'Hausa', he: 'Hebrew', hi: 'Hindi', ho: 'Hiri Motu', hr: 'Croatian', ht: 'Haitian',
  hu: 'Hungarian', hy: 'Armenian', hz: 'Herero', ia: 'Interlingua', id: 'Indonesian', ie: 'Interlingue', ig: 'Igbo',
  ii: 'Nuosu', ik: 'Inupiaq', io: 'Ido', is: 'Icelandic', it: 'Italian', iu: 'Inuktitut', ja: 'Japanese', jv: 'Javanese',
  ka: 'Georgian', kg: 'Kongo', ki: 'Kikuyu', kj: 'Kwanyama', kk: 'Kazakh', kl: 'Kalaallisut', km: 'Khmer', kn: 'Kannada',
  ko: 'Korean', kr: 'Kanuri', ks: 'Kashmiri', ku: 'Kurmanji (Kurdish)', kv: 'Komi', kw: 'Cornish', ky: 'Kyrgyz',
  la: 'Latin', lb: 'Luxembourgish', lg: 'Ganda', li: 'Limburgish', ln: 'Lingala', lo: 'Lao', lt: 'Lithuanian',
  lu: 'Luba-Katanga', lv: 'Latvian', mg: 'Malagasy', mh: 'Marshallese', mi: 'Māori', mk: 'Macedonian', ml: 'Malayalam',
  mn: 'Mongolian', mr: 'Marathi', ms: 'Malay', mt: 'Maltese', my: 'Burmese', na: 'Nauru', nb: 'Norwegian Bokmål',
  nd: 'Northern Ndebele', ne: 'Nepali', ng: 'Ndonga', nl: 'Dutch', nn: 'Norwegian Nynorsk', no: 'Norwegian',
  nr: 'Southern Ndebele', nv: 'Navajo', ny: 'Chichewa', oc: 'Occitan', oj: 'Ojibwe', om: 'Oromo', or: 'Oriya',
  os: 'Ossetian', pa: 'Panjabi', pi: 'Pāli', pl: 'Polish', ps: 'Pashto', pt: 'Portuguese', qu: 'Quechua', rm: 'Romansh',
  rn: 'Kirundi', ro: 'Romanian', ru: 'Russian', rw: 'Kinyarwanda', sa: 'Sanskrit', sc: 'Sardinian', sd: 'Sindhi',
  se: 'Northern Sami', sg: 'Sango', si: 'Sinhala', sk: 'Slovak', sl: 'Slovenian', sm: 'Samoan', sn: 'Shona', so: 'Somali',
  sq: 'Albanian', sr: 'Serbian', ss: 'Swati', st: 'Southern Sotho', su: 'Sundanese', sv: 'Swedish', sw: 'Swahili',
  ta: 'Tamil', te: 'Telugu', tg: 'Tajik', th: 'Thai', ti: 'Tigrinya', tk: 'Turkmen', tl: 'Tagalog', tn: 'Tswana',
  to: 'Tonga', tr: 'Turkish', ts: 'Tsonga', tt: 'Tatar', tw: 'Twi', ty: 'Tahitian', ug: 'Uyghur', uk: 'Ukrainian',
  ur: 'Urdu', uz: 'Uzbek', ve: 'Venda', vi: 'Vietnamese', vo: 'Volapük', wa: 'Walloon', wo: 'Wolof', xh: 'Xhosa',
  yi: 'Yiddish', yo: 'Yoruba', za: 'Zhuang', zh: 'Chinese', zu: 'Zulu',
};
const ISO_639_3: Record<string, string> = {
  ast: 'Asturian', chr: 'Cherokee', ckb: 'Sorani (Kurdish)', cnr: 'Montenegrin', csb: 'Kashubian', gsw: 'Swiss German',
  jbo: 'Lojban', kab: 'Kabyle', ldn: 'Láadan', lfn: 'Lingua Franca Nova', moh: 'Mohawk', nds: 'Low German',
  pdc: 'Pennsylvania Dutch', sco: 'Scots', sma: 'Southern Sami', smj: 'Lule Sami', szl: 'Silesian', tok: 'Toki Pona',
  vai: 'Vai', xal: 'Kalmyk', zba: 'Balaibalan', zgh: 'Standard Moroccan Tamazight',
};

const NAMES = new Map(Object.entries({ ...ISO_639_1, ...ISO_639_3 }));

/** Every language a status may carry, in Mastodon's order, with its English name. */
export const LANGUAGE_LIST: readonly { code: string; name: string }[] = [...NAMES].map(([code, name]) => ({ code, name }));

/** The language code to store for a requested one: itself when known (lower-cased, region
 * dropped: "en-GB" → "en"), else null so that the caller falls back to a default. */
export function normalizeLanguage(value: string | undefined): string | null {
  if (value === undefined) return null;
  const code = value.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return NAMES.has(code) ? code : null;
}
