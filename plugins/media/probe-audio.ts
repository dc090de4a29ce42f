// Audio containers, each read only as far as the header that proves it is one: WAVE's fmt
// chunk, MPEG audio's first two frame headers (after an ID3v2 tag), Ogg's first page and the
// codec header it opens with (Vorbis, Opus, FLAC), FLAC's STREAMINFO.

import { audioFacts, known, type ByteSource, type MediaFacts } from './facts.ts';

const MAX_CHUNKS = 1000;
/** How far past an ID3 tag the first MPEG audio frame may start (some encoders pad). */
const MP3_SYNC_WINDOW = 64 * 1024;
/** Reads of a next frame header beyond that window, for candidates near its end. */
const MAX_FAR_READS = 8;

const ascii = (data: Uint8Array, from: number, length: number) => String.fromCharCode(...data.subarray(from, from + length));
const le16 = (data: Uint8Array, at: number) => (data[at] ?? 0) | ((data[at + 1] ?? 0) << 8);
const le32 = (data: Uint8Array, at: number) => le16(data, at) + le16(data, at + 2) * 0x10000;

/** RIFF/WAVE: a fmt chunk with channels and a sample rate, before a data chunk. */
export async function probeWav(source: ByteSource): Promise<MediaFacts | null> {
  const riff = await source.read(0, 12);
  if (ascii(riff, 0, 4) !== 'RIFF' || ascii(riff, 8, 4) !== 'WAVE') return null;
  let byteRate = 0;
  let format = false;
  let at = 12;
  for (let chunks = 0; chunks < MAX_CHUNKS && at + 8 <= source.size; chunks++) {
    const header = await source.read(at, 8);
    const id = ascii(header, 0, 4);
    const size = le32(header, 4);
    if (id === 'fmt ') {
      if (size < 16) return null;
      const fmt = await source.read(at + 8, 16);
      const channels = le16(fmt, 2);
      const sampleRate = le32(fmt, 4);
      byteRate = le32(fmt, 8);
      if (fmt.length < 16 || channels === 0 || sampleRate === 0) return null;
      format = true;
    } else if (id === 'data') {
      return format ? audioFacts(byteRate > 0 ? known(size / byteRate) : null) : null;
    }
    // Chunks are padded to an even length.
    at += 8 + size + (size % 2);
  }
  return null;
}

// MPEG audio frame headers: bitrates (kbit/s) by version and layer, sample rates by version.
const BITRATES: Record<string, readonly number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, readonly number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The length in bytes of the frame whose header is at data[at], or 0 when it is not one. */
function frameLength(data: Uint8Array, at: number): number {
  const b1 = data[at + 1] ?? 0;
  const b2 = data[at + 2] ?? 0;
  if (data[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return 0;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const layer = 4 - layerBits;
  const bitrate = (BITRATES[`${versionBits === 3 ? 1 : 2}-${layer}`]?.[bitrateIndex] ?? 0) * 1000;
  const sampleRate = SAMPLE_RATES[versionBits]?.[rateIndex] ?? 0;
  if (bitrate === 0 || sampleRate === 0) return 0;
  const padding = (b2 >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  const perFrame = layer === 3 && versionBits !== 3 ? 72 : 144;
  return Math.floor((perFrame * bitrate) / sampleRate) + padding;
}

/** MPEG audio: after an optional ID3v2 tag, a frame header whose next frame starts where it
 * says (or the file ends there). */
export async function probeMp3(source: ByteSource): Promise<MediaFacts | null> {
  let start = 0;
  const tag = await source.read(0, 10);
  if (ascii(tag, 0, 3) === 'ID3') {
    const syncsafe = (((tag[6] ?? 0) & 0x7f) << 21) | (((tag[7] ?? 0) & 0x7f) << 14) | (((tag[8] ?? 0) & 0x7f) << 7) | ((tag[9] ?? 0) & 0x7f);
    start = 10 + syncsafe + (((tag[5] ?? 0) & 0x10) !== 0 ? 10 : 0);
  }
  const window = await source.read(start, MP3_SYNC_WINDOW);
  let reads = 0;
  for (let at = 0; at + 4 <= window.length; at++) {
    const length = frameLength(window, at);
    if (length === 0) continue;
    const next = at + length;
    if (start + next === source.size) return audioFacts(null);
    if (next + 4 <= window.length) {
      if (frameLength(window, next) > 0) return audioFacts(null);
    } else if (start + next + 4 <= source.size && reads++ < MAX_FAR_READS) {
      if (frameLength(await source.read(start + next, 4), 0) > 0) return audioFacts(null);
    }
  }
  return null;
}

/** Ogg: a first page that begins a stream, carrying a Vorbis, Opus or FLAC identification header. */
export async function probeOgg(source: ByteSource): Promise<MediaFacts | null> {
  const page = await source.read(0, 27 + 255);
  if (ascii(page, 0, 4) !== 'OggS' || page[4] !== 0 || ((page[5] ?? 0) & 0x02) === 0) return null;
  const segments = page[26] ?? 0;
  const packet = await source.read(27 + segments, 64);
  if (ascii(packet, 0, 7) === '\x01vorbis') return (packet[11] ?? 0) > 0 && le32(packet, 12) > 0 ? audioFacts(null) : null;
  if (ascii(packet, 0, 8) === 'OpusHead') return (packet[9] ?? 0) > 0 ? audioFacts(null) : null;
  if (ascii(packet, 0, 5) === '\x7fFLAC') return ascii(packet, 9, 4) === 'fLaC' ? streamInfo(packet.subarray(13)) : null;
  return null;
}

/** FLAC: STREAMINFO, the first metadata block, with a sample rate. */
export async function probeFlac(source: ByteSource): Promise<MediaFacts | null> {
  const head = await source.read(0, 4 + 4 + 34);
  return ascii(head, 0, 4) === 'fLaC' ? streamInfo(head.subarray(4)) : null;
}

/** A STREAMINFO metadata block (its 4-byte block header first). */
function streamInfo(block: Uint8Array): MediaFacts | null {
  const type = (block[0] ?? 0) & 0x7f;
  const length = ((block[1] ?? 0) << 16) | ((block[2] ?? 0) << 8) | (block[3] ?? 0);
  if (type !== 0 || length < 34 || block.length < 4 + 34) return null;
  const info = block.subarray(4);
  const sampleRate = ((info[10] ?? 0) << 12) | ((info[11] ?? 0) << 4) | ((info[12] ?? 0) >> 4);
  if (sampleRate === 0) return null;
  const samples = ((info[13] ?? 0) & 0x0f) * 0x1_0000_0000 + (((info[14] ?? 0) << 24) >>> 0) + (((info[15] ?? 0) << 16) | ((info[16] ?? 0) << 8) | (info[17] ?? 0));
  return audioFacts(known(samples / sampleRate));
}
