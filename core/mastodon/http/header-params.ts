// Header values with parameters: `multipart/form-data; boundary="x"`, `form-data; name="a";
// filename="b.png"`. Quoted strings may hold ';' and backslash escapes. One pass, no regex.

export interface HeaderValue {
  /** The part before the first ';', trimmed and lower-cased (a media type, a disposition). */
  value: string;
  /** Parameters by lower-cased name; the first of a repeated name wins. */
  params: Map<string, string>;
}

function skipSpaces(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++;
  return at;
}

function readQuoted(text: string, at: number): [string, number] {
  let out = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) out += text[++i];
    else if (c === '"') return [out, i + 1];
    else out += c;
  }
  return [out, text.length];
}

export function parseHeaderValue(text: string): HeaderValue {
  const semi = text.indexOf(';');
  const value = (semi < 0 ? text : text.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  let at = semi < 0 ? text.length : semi + 1;
  while (at < text.length) {
    at = skipSpaces(text, at);
    const eq = text.indexOf('=', at);
    const nextSemi = text.indexOf(';', at);
    if (eq < 0 || (nextSemi >= 0 && nextSemi < eq)) {
      at = nextSemi < 0 ? text.length : nextSemi + 1;
      continue;
    }
    const name = text.slice(at, eq).trim().toLowerCase();
    let paramValue: string;
    at = skipSpaces(text, eq + 1);
    if (text[at] === '"') {
      [paramValue, at] = readQuoted(text, at);
      const after = text.indexOf(';', at);
      at = after < 0 ? text.length : after + 1;
    } else {
      const end = text.indexOf(';', at);
      paramValue = text.slice(at, end < 0 ? text.length : end).trim();
      at = end < 0 ? text.length : end + 1;
    }
    if (name !== '' && !params.has(name)) params.set(name, paramValue);
  }
  return { value, params };
}
