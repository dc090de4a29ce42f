// multipart/form-data (RFC 7578) over bytes, for a transport that hands the front a whole body
// (the node and hapi transports stream multipart bodies instead: FormRules). Text fields become
// strings, parts with a filename become UploadedFile; both come out as name/value pairs for
// Rack-style nesting. Bounded: the number of parts, the size of each part's headers and the
// boundary's length.

import type { UploadedFile } from '../endpoint/types.ts';
import { RookeryError } from '../../domain/errors.ts';
import { indexOf, pattern, startsWith, utf8 } from './bytes.ts';
import { parseHeaderValue } from './header-params.ts';
import { MAX_PARAMS, rackTexts, type RackValue } from './rack.ts';

export const MAX_PART_HEADER_BYTES = 8 * 1024;
export const MAX_BOUNDARY = 70;
/** Text fields of a streamed body, all together: no Mastodon parameter comes near it. */
export const MAX_FIELD_BYTES = 1024 * 1024;
/** File parts of a streamed body: Mastodon's endpoints take at most two (avatar and header). */
export const MAX_FILES = 8;
const CR = 13;
const LF = 10;
const DASH = 45;
const HEADERS_END = pattern('\r\n\r\n');

export const multipartTexts = {
  malformed: 'Invalid multipart payload format',
  tooManyFiles: `Too many files (at most ${MAX_FILES})`,
};

/** A file held in memory. A class, not a plain object, so that Rack nesting never takes a file
 * for a hash. */
class Upload implements UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly path = null;
  readonly #data: Uint8Array;
  constructor(filename: string, contentType: string, data: Uint8Array) {
    this.filename = filename;
    this.contentType = contentType;
    this.size = data.byteLength;
    this.#data = data;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    return this.#data.slice(offset, offset + length);
  }
  async bytes(): Promise<Uint8Array> {
    return this.#data;
  }
}

const malformed = () => new RookeryError(400, multipartTexts.malformed);

/** RFC 5987's filename*=UTF-8''name%20here, when present and decodable. */
function extendedFilename(value: string | undefined): string | undefined {
  const quote = value?.indexOf("''") ?? -1;
  if (value === undefined || quote < 0 || value.slice(0, quote).toLowerCase() !== 'utf-8') return undefined;
  try {
    return decodeURIComponent(value.slice(quote + 2));
  } catch {
    return undefined;
  }
}

function toPair(headerText: string, content: Uint8Array): [string, RackValue] {
  let disposition = null;
  let type = '';
  for (const line of headerText === '' ? [] : headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed();
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === 'content-disposition') disposition = parseHeaderValue(line.slice(colon + 1));
    else if (name === 'content-type') type = line.slice(colon + 1).trim();
  }
  const name = disposition?.value === 'form-data' ? disposition.params.get('name') : undefined;
  if (disposition === null || name === undefined) throw malformed();
  const filename = extendedFilename(disposition.params.get('filename*')) ?? disposition.params.get('filename');
  // A file input left empty sends filename="" and no data: Rack treats it as a plain field.
  if (filename === undefined || filename === '') return [name, utf8(content)];
  return [name, new Upload(filename, type === '' ? 'application/octet-stream' : type, content.slice())];
}

/** The parts of a body, in order; a 400 RookeryError when the body is malformed. */
export function multipartPairs(body: Uint8Array, boundary: string): [string, RackValue][] {
  if (boundary === '' || boundary.length > MAX_BOUNDARY) throw malformed();
  const delimiter = pattern(`\r\n--${boundary}`);
  let at: number;
  // The first delimiter may open the body without a line break before it.
  if (startsWith(body, delimiter.bytes, 2)) at = delimiter.bytes.length - 2;
  else {
    const first = indexOf(body, delimiter, 0);
    if (first < 0) throw malformed();
    at = first + delimiter.bytes.length;
  }
  const pairs: [string, RackValue][] = [];
  for (;;) {
    if (body[at] === DASH && body[at + 1] === DASH) return pairs;
    while (body[at] === 32 || body[at] === 9) at++;
    if (body[at] !== CR || body[at + 1] !== LF) throw malformed();
    at += 2;
    let headersEnd: number;
    let contentStart: number;
    if (body[at] === CR && body[at + 1] === LF) {
      headersEnd = at;
      contentStart = at + 2;
    } else {
      headersEnd = indexOf(body, HEADERS_END, at, Math.min(body.length, at + MAX_PART_HEADER_BYTES + 4));
      if (headersEnd < 0) throw malformed();
      contentStart = headersEnd + 4;
    }
    const next = indexOf(body, delimiter, contentStart);
    if (next < 0) throw malformed();
    if (pairs.length >= MAX_PARAMS) throw new RookeryError(400, rackTexts.tooMany);
    pairs.push(toPair(utf8(body.subarray(at, headersEnd)), body.subarray(contentStart, next)));
    at = next + delimiter.bytes.length;
  }
}
