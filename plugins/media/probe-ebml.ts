// EBML (WebM, Matroska): the EBML header, then the Segment's children stepped over by their
// headers until Tracks (read whole up to MAX_ELEMENT_BYTES): each TrackEntry's type, a video's
// PixelWidth, PixelHeight and DefaultDuration (its frame rate); Info's Duration too when it
// comes first, as muxers write it.

import { audioFacts, known, type ByteSource, type MediaFacts } from './facts.ts';

const MAX_ELEMENT_BYTES = 1024 * 1024;
const MAX_SEGMENT_CHILDREN = 1000;
const MAX_DEPTH = 8;
const MAX_NODES = 10_000;

const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const DEFAULT_DURATION = 0x23e383;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;
const MASTERS = new Set([TRACK_ENTRY, VIDEO]);

interface Entry {
  type: number;
  width: number;
  height: number;
  frameNs: number;
}

/** A variable-length integer at `at`: its value (the marker bit kept for ids, dropped for
 * sizes; -1 for an unknown size) and length; null past the end or when malformed. */
function vint(data: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number } | null {
  const first = data[at];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length++;
  if (length > 8 || at + length > data.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let unknown = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    const byte = data[at + i] ?? 0;
    value = value * 256 + byte;
    if (byte !== 0xff) unknown = false;
  }
  return { value: !keepMarker && unknown ? -1 : value, length };
}

function uint(data: Uint8Array, at: number, size: number): number {
  let value = 0;
  for (let i = 0; i < size && i < 8; i++) value = value * 256 + (data[at + i] ?? 0);
  return value;
}

function float(data: Uint8Array, at: number, size: number): number {
  if (at + size > data.length) return 0;
  const view = new DataView(data.buffer, data.byteOffset + at, size);
  return size === 4 ? view.getFloat32(0) : size === 8 ? view.getFloat64(0) : 0;
}

/** An element's header at `at` of the file: its id, where its body starts, and its size (-1:
 * unknown, up to its parent's end). */
async function headerAt(source: ByteSource, at: number): Promise<{ id: number; body: number; size: number } | null> {
  const bytes = await source.read(at, 12);
  const id = vint(bytes, 0, true);
  if (id === null) return null;
  const size = vint(bytes, id.length, false);
  if (size === null) return null;
  return { id: id.value, body: at + id.length + size.length, size: size.value };
}

/** Calls `visit` for each child element of data[start, end) (with `depth` levels of masters). */
function walk(data: Uint8Array, start: number, end: number, visit: (id: number, body: number, bodyEnd: number) => void): void {
  let nodes = 0;
  const step = (from: number, to: number, depth: number): void => {
    let at = from;
    while (at < to && nodes++ < MAX_NODES) {
      const id = vint(data, at, true);
      if (id === null) return;
      const size = vint(data, at + id.length, false);
      if (size === null) return;
      const body = at + id.length + size.length;
      // A value cut short would read as another number: the walk ends there.
      if (size.value >= 0 && body + size.value > to) return;
      const bodyEnd = size.value < 0 ? to : body + size.value;
      visit(id.value, body, bodyEnd);
      if (MASTERS.has(id.value) && depth < MAX_DEPTH) step(body, bodyEnd, depth + 1);
      if (bodyEnd <= at) return;
      at = bodyEnd;
    }
  };
  step(start, end, 0);
}

function readEntries(data: Uint8Array): Entry[] {
  const entries: Entry[] = [];
  let entry: Entry | null = null;
  walk(data, 0, data.length, (id, body, bodyEnd) => {
    const length = bodyEnd - body;
    if (id === TRACK_ENTRY) entries.push((entry = { type: 0, width: 0, height: 0, frameNs: 0 }));
    else if (entry === null) return;
    else if (id === TRACK_TYPE) entry.type = uint(data, body, length);
    else if (id === PIXEL_WIDTH) entry.width = uint(data, body, length);
    else if (id === PIXEL_HEIGHT) entry.height = uint(data, body, length);
    else if (id === DEFAULT_DURATION) entry.frameNs = uint(data, body, length);
  });
  return entries;
}

/** Seconds, from Info's Duration (in TimecodeScale units, nanoseconds each by default). */
function readDuration(data: Uint8Array): number | null {
  let scale = 1_000_000;
  let duration = 0;
  walk(data, 0, data.length, (id, body, bodyEnd) => {
    if (id === TIMECODE_SCALE) scale = uint(data, body, bodyEnd - body);
    else if (id === DURATION) duration = float(data, body, bodyEnd - body);
  });
  return known((duration * scale) / 1e9);
}

export async function probeEbml(source: ByteSource): Promise<MediaFacts | null> {
  const ebml = await headerAt(source, 0);
  if (ebml === null || ebml.id !== EBML_HEADER || ebml.size < 0) return null;
  const segment = await headerAt(source, ebml.body + ebml.size);
  if (segment === null || segment.id !== SEGMENT) return null;
  const end = segment.size < 0 ? source.size : Math.min(source.size, segment.body + segment.size);
  let duration: number | null = null;
  let at = segment.body;
  for (let children = 0; children < MAX_SEGMENT_CHILDREN && at < end; children++) {
    const child = await headerAt(source, at);
    // An element of unknown size (a live stream's cluster) cannot be stepped over.
    if (child === null || child.size < 0) return null;
    if (child.id === INFO || child.id === TRACKS) {
      if (child.size > MAX_ELEMENT_BYTES) return null;
      const data = await source.read(child.body, child.size);
      if (child.id === INFO) duration = readDuration(data);
      else return factsOf(readEntries(data), duration);
    }
    at = child.body + child.size;
  }
  return null;
}

function factsOf(entries: Entry[], duration: number | null): MediaFacts | null {
  const video = entries.find((e) => e.type === 1 && e.width > 0 && e.height > 0);
  if (video !== undefined) return { type: 'video', width: video.width, height: video.height, frameRate: video.frameNs > 0 ? 1e9 / video.frameNs : null, duration };
  return entries.some((e) => e.type === 2) ? audioFacts(duration) : null;
}
