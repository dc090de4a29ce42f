// HTML from other servers (remote statuses, bios, profile fields) kept to Mastodon's allow-list
// before anything stores it. The input is read as tokens and the output is rebuilt from
// scratch: only allowed elements, only the attributes we write ourselves, every text and value
// escaped, every element closed. Nothing of the input reaches the output unescaped, so a token
// read wrongly can lose text but cannot smuggle markup.
//
// Pure code on purpose: core/ imports nothing outside itself (test/core/purity.test.ts), so
// the sanitize-html library is used by the tests as an independent check of the output instead.

import { escapeHtml } from './escape.ts';

/** Longest input read (UTF-16 units); the rest is dropped before parsing. */
export const MAX_REMOTE_HTML = 100_000;
/** Deepest nesting kept; deeper elements are unwrapped (their text kept). */
const MAX_DEPTH = 32;

const ALLOWED = new Set(['p', 'br', 'span', 'a', 'del', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'ul', 'ol', 'li', 'blockquote']);
const VOID = new Set(['br']);
const CLASSES = new Set(['h-card', 'mention', 'hashtag', 'u-url', 'invisible', 'ellipsis']);
/** Elements whose whole content is dropped with them (scripts, styles, form and frame text). */
const DROPPED_WITH_CONTENT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'option', 'template', 'svg', 'math']);
/** Elements whose end starts a new line when read as text. */
const BLOCKS = new Set(['p', 'li', 'blockquote', 'pre', 'ul', 'ol']);

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references: the five XML ones, nbsp, and numeric ones (invalid ones become U+FFFD). */
export function decodeEntities(s: string): string {
  return s.replace(/&(?:#[xX]([0-9a-fA-F]{1,8})|#([0-9]{1,10})|([a-zA-Z]{2,8}));?/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return Object.hasOwn(NAMED, name) ? (NAMED[name] as string) : whole;
    const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec as string, 10);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(code);
  });
}

type Token =
  | { kind: 'text'; text: string }
  | { kind: 'start'; name: string; attrs: Map<string, string>; selfClosing: boolean }
  | { kind: 'end'; name: string };

const NAME = /[a-zA-Z][a-zA-Z0-9-]{0,63}/y;
const SPACE = /[\s/]*/y;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/y;

/** Matches a sticky pattern at `at`. */
function at(pattern: RegExp, html: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(html);
}

/** Reads the tokens of an HTML fragment. Comments, doctypes and processing instructions are
 * skipped; a tag left open at the end is dropped; a stray `<` is text. Linear in the input. */
function* tokens(html: string): Generator<Token> {
  let i = 0;
  const n = html.length;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      yield { kind: 'text', text: html.slice(i) };
      return;
    }
    if (lt > i) yield { kind: 'text', text: html.slice(i, lt) };
    i = lt;
    const next = html[i + 1] ?? '';
    if (html.startsWith('<!--', i)) {
      const close = html.indexOf('-->', i + 4);
      i = close === -1 ? n : close + 3;
      continue;
    }
    if (next === '!' || next === '?') {
      const close = html.indexOf('>', i);
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (next === '/') {
      const m = at(NAME, html, i + 2);
      const close = html.indexOf('>', i);
      if (close === -1) return;
      if (m !== null) yield { kind: 'end', name: m[0].toLowerCase() };
      i = close + 1;
      continue;
    }
    const m = at(NAME, html, i + 1);
    if (m === null) {
      yield { kind: 'text', text: '<' };
      i += 1;
      continue;
    }
    const name = m[0].toLowerCase();
    let j = i + 1 + m[0].length;
    const attrs = new Map<string, string>();
    let selfClosing = false;
    let closed = false;
    while (j < n) {
      const space = (at(SPACE, html, j) as RegExpExecArray)[0];
      j += space.length;
      if (html[j] === '>') {
        selfClosing = space.endsWith('/');
        j += 1;
        closed = true;
        break;
      }
      const a = at(ATTR, html, j);
      if (a === null || a[0].length === 0) {
        j += 1;
        continue;
      }
      const attrName = (a[1] as string).toLowerCase();
      if (!attrs.has(attrName) && attrs.size < 16) attrs.set(attrName, decodeEntities(a[2] ?? a[3] ?? a[4] ?? ''));
      j += a[0].length;
    }
    if (!closed) return;
    i = j;
    if (DROPPED_WITH_CONTENT.has(name) && !selfClosing) {
      const end = new RegExp(`</${name}[\\s/>]`, 'ig');
      end.lastIndex = i;
      const found = end.exec(html);
      if (found === null) return;
      const close = html.indexOf('>', found.index);
      i = close === -1 ? n : close + 1;
      continue;
    }
    yield { kind: 'start', name, attrs, selfClosing };
  }
}

/** An http(s) URL worth linking to, or null. */
function safeHref(value: string | undefined): string | null {
  if (value === undefined) return null;
  const href = value.trim();
  if (!/^https?:\/\//i.test(href) || /[\u0000-\u001f\u007f]/.test(href) || href.length > 2048) return null;
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? href : null;
  } catch {
    return null;
  }
}

function classes(value: string | undefined): string {
  if (value === undefined) return '';
  return [...new Set(value.split(/\s+/).filter((c) => CLASSES.has(c)))].join(' ');
}

/** The opening tag we write for an allowed element, or null when it is to be unwrapped. */
function openTag(name: string, attrs: Map<string, string>): string | null {
  if (name === 'a') {
    const href = safeHref(attrs.get('href'));
    if (href === null) return null;
    const cls = classes(attrs.get('class'));
    return `<a href="${escapeHtml(href)}" rel="nofollow noopener" target="_blank"${cls === '' ? '' : ` class="${cls}"`}>`;
  }
  if (name === 'span') {
    const cls = classes(attrs.get('class'));
    return cls === '' ? '<span>' : `<span class="${cls}">`;
  }
  return VOID.has(name) ? `<${name} />` : `<${name}>`;
}

/** Blocks that end an open paragraph, as HTML parsers read them. */
const CLOSES_P = new Set(['p', 'ul', 'ol', 'blockquote', 'pre']);

/** Closes what a new `name` element ends by itself: a paragraph before a block, a list item
 * before the next item of the same list. */
function closeImplied(name: string, open: string[], out: string[]): void {
  let target = -1;
  if (CLOSES_P.has(name)) target = open.lastIndexOf('p');
  else if (name === 'li') {
    const item = open.lastIndexOf('li');
    if (item > Math.max(open.lastIndexOf('ul'), open.lastIndexOf('ol'))) target = item;
  }
  if (target === -1) return;
  while (open.length > target) out.push(`</${open.pop() as string}>`);
}

const escapeText = (s: string): string => escapeHtml(decodeEntities(s.replace(/\u0000/g, '')));

/** `html` kept to the allow-list, every element closed; at most MAX_REMOTE_HTML of input read. */
export function sanitizeHtml(html: string, maxInput: number = MAX_REMOTE_HTML): string {
  const input = html.length > maxInput ? html.slice(0, maxInput) : html;
  const out: string[] = [];
  const open: string[] = [];
  for (const token of tokens(input)) {
    if (token.kind === 'text') {
      out.push(escapeText(token.text));
    } else if (token.kind === 'start') {
      if (!ALLOWED.has(token.name)) continue;
      if (VOID.has(token.name)) {
        out.push('<br />');
        continue;
      }
      closeImplied(token.name, open, out);
      if (open.length >= MAX_DEPTH || (token.name === 'a' && open.includes('a'))) continue;
      const tag = openTag(token.name, token.attrs);
      if (tag === null) continue;
      if (token.selfClosing) continue;
      out.push(tag);
      open.push(token.name);
    } else {
      const at = open.lastIndexOf(token.name);
      if (at === -1) continue;
      while (open.length > at) out.push(`</${open.pop() as string}>`);
    }
  }
  while (open.length > 0) out.push(`</${open.pop() as string}>`);
  return out.join('');
}

/** The text a reader sees in (sanitised) HTML: line breaks for <br> and between blocks, no
 * markup, entities decoded; Mastodon's `invisible` parts of links are kept (they are text). */
export function htmlToText(html: string, maxInput: number = MAX_REMOTE_HTML): string {
  const input = html.length > maxInput ? html.slice(0, maxInput) : html;
  let text = '';
  for (const token of tokens(input)) {
    if (token.kind === 'text') text += decodeEntities(token.text);
    else if (token.kind === 'start' && token.name === 'br') text += '\n';
    else if (token.kind === 'end' && BLOCKS.has(token.name)) text += token.name === 'p' ? '\n\n' : '\n';
  }
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

/** Cuts a plain string from another server to `max` UTF-16 units (never splitting a pair). */
export function boundText(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = value.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}
