// What a video says about itself in its container headers, read without decoding anything:
// the video track's dimensions and frame rate, so that the instance's video_matrix_limit and
// video_frame_rate_limit are enforced, not only stated. MP4/QuickTime (ISO BMFF boxes: tkhd,
// mdhd, stts under the track whose handler is 'vide') and WebM/Matroska (EBML: PixelWidth,
// PixelHeight, DefaultDuration of the video track). Bounded: a fixed nesting depth, every
// step moves forward, and a malformed header simply yields what was found (null when nothing).

export interface VideoFacts {
  width: number;
  height: number;
  /** Frames per second, when the headers say it. */
  frameRate: number | null;
}

const MAX_DEPTH = 8;
const MAX_NODES = 10_000;

// ---- ISO BMFF (MP4, MOV) ---------------------------------------------------------------------

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf']);

interface Track {
  handler: string | null;
  width: number;
  height: number;
  timescale: number;
  duration: number;
  samples: number;
}

function u32(data: Uint8Array, at: number): number {
  return ((data[at] ?? 0) * 0x1000000) + (((data[at + 1] ?? 0) << 16) | ((data[at + 2] ?? 0) << 8) | (data[at + 3] ?? 0));
}

function u64(data: Uint8Array, at: number): number {
  return u32(data, at) * 0x1_0000_0000 + u32(data, at + 4);
}

function type4(data: Uint8Array, at: number): string {
  return String.fromCharCode(data[at] ?? 0, data[at + 1] ?? 0, data[at + 2] ?? 0, data[at + 3] ?? 0);
}

function probeBmff(data: Uint8Array): VideoFacts | null {
  const tracks: Track[] = [];
  let nodes = 0;
  const walk = (start: number, end: number, depth: number, track: Track | null): void => {
    let at = start;
    while (at + 8 <= end && nodes++ < MAX_NODES) {
      let size = u32(data, at);
      const type = type4(data, at + 4);
      let header = 8;
      if (size === 1) {
        if (at + 16 > end) return;
        size = u64(data, at + 8);
        header = 16;
      } else if (size === 0) {
        size = end - at;
      }
      if (size < header || at + size > end) size = end - at; // a truncated last box: read what is there
      const body = at + header;
      const boxEnd = at + size;
      if (type === 'trak' && depth < MAX_DEPTH) {
        const t: Track = { handler: null, width: 0, height: 0, timescale: 0, duration: 0, samples: 0 };
        tracks.push(t);
        walk(body, boxEnd, depth + 1, t);
      } else if (CONTAINERS.has(type) && depth < MAX_DEPTH) {
        walk(body, boxEnd, depth + 1, track);
      } else if (track !== null) {
        const version = data[body] ?? 0;
        if (type === 'tkhd') {
          const dims = body + 4 + (version === 1 ? 32 : 20) + 8 + 8 + 36;
          if (dims + 8 <= boxEnd) {
            track.width = Math.round(u32(data, dims) / 65536);
            track.height = Math.round(u32(data, dims + 4) / 65536);
          }
        } else if (type === 'mdhd') {
          const times = body + 4 + (version === 1 ? 16 : 8);
          if (times + (version === 1 ? 12 : 8) <= boxEnd) {
            track.timescale = u32(data, times);
            track.duration = version === 1 ? u64(data, times + 4) : u32(data, times + 4);
          }
        } else if (type === 'hdlr') {
          if (body + 12 <= boxEnd) track.handler = type4(data, body + 8);
        } else if (type === 'stts') {
          const count = u32(data, body + 4);
          let samples = 0;
          for (let i = 0, entry = body + 8; i < count && entry + 8 <= boxEnd; i++, entry += 8) samples += u32(data, entry);
          track.samples = samples;
        }
      }
      at = boxEnd;
    }
  };
  walk(0, data.length, 0, null);
  const video = tracks.find((t) => t.handler === 'vide' && t.width > 0 && t.height > 0);
  if (video === undefined) return null;
  const seconds = video.timescale > 0 ? video.duration / video.timescale : 0;
  return { width: video.width, height: video.height, frameRate: seconds > 0 && video.samples > 0 ? video.samples / seconds : null };
}

// ---- EBML (WebM, Matroska) -------------------------------------------------------------------

const SEGMENT = 0x18538067;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const DEFAULT_DURATION = 0x23e383;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;
const EBML_MASTERS = new Set([SEGMENT, TRACKS, TRACK_ENTRY, VIDEO]);

/** A variable-length integer at `at`: its value (the marker bit kept for ids, dropped for
 * sizes) and length; null past the end or when malformed. */
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

function probeEbml(data: Uint8Array): VideoFacts | null {
  let found: VideoFacts | null = null;
  let nodes = 0;
  const walk = (start: number, end: number, depth: number, entry: { type: number; width: number; height: number; frameNs: number } | null): void => {
    let at = start;
    while (at < end && nodes++ < MAX_NODES && found === null) {
      const id = vint(data, at, true);
      if (id === null) return;
      const size = vint(data, at + id.length, false);
      if (size === null) return;
      const body = at + id.length + size.length;
      // An unknown size (live streams) runs to the end of its parent.
      const bodyEnd = size.value < 0 ? end : Math.min(end, body + size.value);
      if (EBML_MASTERS.has(id.value) && depth < MAX_DEPTH) {
        if (id.value === TRACK_ENTRY) {
          const e = { type: 0, width: 0, height: 0, frameNs: 0 };
          walk(body, bodyEnd, depth + 1, e);
          if (e.type === 1 && e.width > 0 && e.height > 0) found = { width: e.width, height: e.height, frameRate: e.frameNs > 0 ? 1e9 / e.frameNs : null };
        } else {
          walk(body, bodyEnd, depth + 1, entry);
        }
      } else if (entry !== null) {
        const length = bodyEnd - body;
        if (id.value === TRACK_TYPE) entry.type = uint(data, body, length);
        else if (id.value === PIXEL_WIDTH) entry.width = uint(data, body, length);
        else if (id.value === PIXEL_HEIGHT) entry.height = uint(data, body, length);
        else if (id.value === DEFAULT_DURATION) entry.frameNs = uint(data, body, length);
      }
      if (bodyEnd <= at) return;
      at = bodyEnd;
    }
  };
  walk(0, data.length, 0, null);
  return found;
}

/** The video track's facts for the containers sniff() accepts as video; null when the headers
 * name no video track (an audio-only file) or cannot be read. */
export function probeVideo(data: Uint8Array, ext: string): VideoFacts | null {
  const facts = ext === 'mp4' || ext === 'mov' ? probeBmff(data) : ext === 'webm' ? probeEbml(data) : null;
  // Frame durations are stored rounded (120 fps is 8333333 ns in WebM): to a thousandth of a
  // frame, 120 is 120.
  if (facts !== null && facts.frameRate !== null) facts.frameRate = Math.round(facts.frameRate * 1000) / 1000;
  return facts;
}
