// Searching and decoding plain byte arrays, with no Node API (core stays pure). The search is
// Knuth–Morris–Pratt: linear in the input whatever its content, so a body crafted against the
// boundary cannot make the multipart parser quadratic.

const encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8');
const strictUtf8Decoder = new TextDecoder('utf-8', { fatal: true });

export interface Pattern {
  bytes: Uint8Array;
  /** KMP failure table: for each prefix, the length of its longest proper border. */
  table: Int32Array;
}

export function pattern(text: string): Pattern {
  const bytes = encoder.encode(text);
  const table = new Int32Array(bytes.length);
  for (let i = 1, k = 0; i < bytes.length; i++) {
    while (k > 0 && bytes[i] !== bytes[k]) k = table[k - 1] ?? 0;
    if (bytes[i] === bytes[k]) k++;
    table[i] = k;
  }
  return { bytes, table };
}

/** The first index at or after `from` where the pattern starts and ends before `end`; -1 if none. */
export function indexOf(haystack: Uint8Array, { bytes, table }: Pattern, from: number, end = haystack.length): number {
  for (let i = from, k = 0; i < end; i++) {
    while (k > 0 && haystack[i] !== bytes[k]) k = table[k - 1] ?? 0;
    if (haystack[i] === bytes[k]) k++;
    if (k === bytes.length) return i - k + 1;
  }
  return -1;
}

export function startsWith(haystack: Uint8Array, needle: Uint8Array, offset: number): boolean {
  if (haystack.length < needle.length - offset) return false;
  for (let i = offset; i < needle.length; i++) if (haystack[i - offset] !== needle[i]) return false;
  return true;
}

/** UTF-8 text; malformed sequences become U+FFFD. */
export function utf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

/** UTF-8 text, or null when the bytes are not valid UTF-8. */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8Decoder.decode(bytes);
  } catch {
    return null;
  }
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
