// ISO BMFF (MP4, MOV, M4A): the top-level boxes are stepped over by their headers until `moov`
// (wherever it is: muxers put it first or last), which is read whole up to MAX_MOOV_BYTES and
// walked: each track's handler (vide, soun), tkhd's dimensions, mdhd's duration, and stts's
// sample count (frames, for the frame rate).

import { audioFacts, known, type ByteSource, type MediaFacts } from './facts.ts';

/** Far more than the moov of any 99 MB file (its sample tables are a few bytes per frame). */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;
const MAX_TOP_BOXES = 1000;
const MAX_DEPTH = 8;
const MAX_NODES = 10_000;

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

/** The tracks described in `data`, a moov box. */
function readTracks(data: Uint8Array): Track[] {
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
  return tracks;
}

/** The moov box's bytes, found by stepping over the top-level boxes; null when there is none,
 * or it is larger than MAX_MOOV_BYTES. */
async function findMoov(source: ByteSource): Promise<Uint8Array | null> {
  let at = 0;
  for (let boxes = 0; boxes < MAX_TOP_BOXES && at + 8 <= source.size; boxes++) {
    const header = await source.read(at, 16);
    let size = u32(header, 0);
    const type = type4(header, 4);
    if (size === 1) {
      if (header.length < 16) return null;
      size = u64(header, 8);
    } else if (size === 0) {
      size = source.size - at;
    }
    if (size < 8) return null;
    if (type === 'moov') {
      // A moov that claims more than the file holds is read as far as the file goes.
      const length = Math.min(size, source.size - at);
      return length > MAX_MOOV_BYTES ? null : source.read(at, length);
    }
    at += size;
  }
  return null;
}

export async function probeBmff(source: ByteSource): Promise<MediaFacts | null> {
  const moov = await findMoov(source);
  if (moov === null) return null;
  const tracks = readTracks(moov);
  const seconds = (t: Track) => (t.timescale > 0 ? t.duration / t.timescale : 0);
  const video = tracks.find((t) => t.handler === 'vide' && t.width > 0 && t.height > 0);
  if (video !== undefined) {
    const duration = seconds(video);
    return { type: 'video', width: video.width, height: video.height, frameRate: duration > 0 && video.samples > 0 ? video.samples / duration : null, duration: known(duration) };
  }
  const audio = tracks.find((t) => t.handler === 'soun' && t.timescale > 0);
  if (audio !== undefined) return audioFacts(known(seconds(audio)));
  return null;
}
