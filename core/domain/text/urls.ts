// URLs as Mastodon autolinks them: the usual web-URL grammar of tweet-style text (scheme, host,
// port, path, query, fragment, with its rules for trailing punctuation), an explicit scheme
// required, plus xmpp: and magnet: URIs.
//
// Each part is its own sticky regex tried in sequence; that matches the one big regex
// because every part after the host is optional and greedy.

import type { UrlEntity } from './entity-types.ts';

/** Schemes that are followed by `://`. */
const WEB_SCHEMES = ['https', 'http', 'dat', 'dweb', 'ipfs', 'ipns', 'ssb', 'gopher', 'gemini'];

// A URL may not continue a word or follow @, $ or # (valid_url_preceding_chars).
const NOT_GLUED = String.raw`(?<![A-Za-z0-9@＠$#＃\u202A-\u202E\uFEFF\uFFFE\uFFFF])`;
const URL_START = new RegExp(`${NOT_GLUED}(?:(?:${WEB_SCHEMES.join('|')}):\\/\\/|xmpp:|magnet:(?=\\?))`, 'giu');

// Host. twitter-text demands a known TLD; instead a label is letters/digits (dashes and
// underscores inside), and the host must not run on into a letter, '@' or dash. An ASCII
// last label may be followed by other scripts: "https://example.comです" links example.com.
const LABEL = String.raw`[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}_\-]*[\p{L}\p{M}\p{N}])?`;
const NOT_CONTINUED = String.raw`(?!\.[\p{L}\p{M}\p{N}])`;
const HOST = new RegExp(
  String.raw`(?:${LABEL}\.)*(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?![A-Za-z0-9_@\-])${NOT_CONTINUED}|${LABEL}(?![\p{L}\p{M}\p{N}_@\-])${NOT_CONTINUED})`,
  'uy',
);

const PORT = /:[0-9]+/y;

// Path: anything but whitespace, <, >, ? and unbalanced parentheses, ending on a char that
// is not sentence punctuation (so "see https://x.org/a." leaves the dot out) or on a
// balanced "(…)", one nesting level deep, as in https://en.wikipedia.org/wiki/Foo_(bar).
const PATH_CHAR = String.raw`[^\s<>()?]`;
const BALANCED = String.raw`\((?:${PATH_CHAR}+|${PATH_CHAR}*\(${PATH_CHAR}+\)${PATH_CHAR}*)\)`;
const PATH_END = String.raw`(?:[^\s()?!*"'「」<>;:=,.$%\[\]~&|@]|${BALANCED})`;
const PATH_SEGMENT = String.raw`(?:${PATH_CHAR}*(?:${BALANCED}${PATH_CHAR}*)*${PATH_END}|${PATH_CHAR}+\/)`;
const PATH = new RegExp(String.raw`\/${PATH_SEGMENT}*`, 'uy');

// Query (fragment included): Mastodon's valid_url_query_chars / _ending_chars, which
// admit non-ASCII text (UCHARS) and never end on . , ! ? ) ' : ;
const UCHARS = String.raw`\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF\u{10000}-\u{1FFFD}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}\u{40000}-\u{4FFFD}\u{50000}-\u{5FFFD}\u{60000}-\u{6FFFD}\u{70000}-\u{7FFFD}\u{80000}-\u{8FFFD}\u{90000}-\u{9FFFD}\u{A0000}-\u{AFFFD}\u{B0000}-\u{BFFFD}\u{C0000}-\u{CFFFD}\u{D0000}-\u{DFFFD}\u{E1000}-\u{EFFFD}\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}`;
const QUERY = new RegExp(
  String.raw`\?[A-Za-z0-9!?*'();:&=+$\/%#\[\]\-_.,~|@\^${UCHARS}]*[A-Za-z0-9_&=#\/\-${UCHARS}]`,
  'uy',
);

// xmpp: pieces (RFC 5122 node ids and resources as twitter-text spells them).
const NODE_ID = String.raw`(?:[A-Za-z0-9\p{Script=Cyrillic}\-._~!$()*+,;=]|%[0-9A-Fa-f]{2})`;
const XMPP_AUTHORITY = new RegExp(String.raw`\/\/${NODE_ID}+@`, 'uy');
const XMPP_NODE = new RegExp(String.raw`${NODE_ID}+@`, 'uy');
// Unlike Mastodon, a resource does not end on . , ; ! ' ( ) or *, for the same reason paths don't.
const XMPP_RESOURCE = new RegExp(
  String.raw`\/(?:[A-Za-z0-9\p{Script=Cyrillic}\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*(?:[A-Za-z0-9\p{Script=Cyrillic}\-_~$&+=]|%[0-9A-Fa-f]{2})`,
  'uy',
);

/** End of `re` matched exactly at `at`, or null. */
function endOf(re: RegExp, text: string, at: number): number | null {
  re.lastIndex = at;
  const match = re.exec(text);
  return match === null ? null : at + match[0].length;
}

function webUrlEnd(text: string, at: number): number | null {
  const host = endOf(HOST, text, at);
  if (host === null) return null;
  let end = endOf(PORT, text, host) ?? host;
  end = endOf(PATH, text, end) ?? end;
  return endOf(QUERY, text, end) ?? end;
}

function xmppUriEnd(text: string, at: number): number | null {
  const authority = endOf(XMPP_AUTHORITY, text, at);
  if (authority !== null) {
    const authorityHost = endOf(HOST, text, authority);
    if (authorityHost !== null && text[authorityHost] === '/') at = authorityHost + 1;
  }
  at = endOf(XMPP_NODE, text, at) ?? at;
  const host = endOf(HOST, text, at);
  if (host === null) return null;
  const end = endOf(XMPP_RESOURCE, text, host) ?? host;
  return endOf(QUERY, text, end) ?? end;
}

function uriEnd(text: string, schemeStart: number, scheme: string): number | null {
  const at = schemeStart + scheme.length;
  const lower = scheme.toLowerCase();
  if (lower === 'xmpp:') return xmppUriEnd(text, at);
  if (lower === 'magnet:') return endOf(QUERY, text, at);
  return webUrlEnd(text, at);
}

export function findUrls(text: string): UrlEntity[] {
  if (!text.includes(':')) return [];
  const found: UrlEntity[] = [];
  URL_START.lastIndex = 0;
  for (let start = URL_START.exec(text); start !== null; start = URL_START.exec(text)) {
    const end = uriEnd(text, start.index, start[0]);
    if (end === null) continue;
    found.push({ kind: 'url', url: text.slice(start.index, end), start: start.index, end });
    URL_START.lastIndex = end;
  }
  return found;
}

/**
 * Whether Mastodon's length check counts this URL as 23 characters. It only shortens the
 * URLs of valid_url (scheme://…); xmpp: and magnet: URIs are linked but count in full.
 */
export function isShortenedForLength(url: string): boolean {
  const colon = url.indexOf('://');
  return colon > 0 && WEB_SCHEMES.includes(url.slice(0, colon).toLowerCase());
}
