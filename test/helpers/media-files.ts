// Media files made by hand for tests: only their headers matter (what the media plugin reads
// to know what a file is), so each is as small as the container allows.

import { crc32 } from 'node:zlib';

export const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >>> 8) & 255];
const le32 = (n: number) => [...le16(n & 0xffff), ...le16(n >>> 16)];
export const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** An ISO BMFF box. */
export const box = (type: string, ...parts: number[][]) => {
  const body = parts.flat();
  return [...be32(body.length + 8), ...ascii(type), ...body];
};

/** A trak box: a track of `handler` (vide, soun), width×height, `samples` over `seconds`. */
function trak(handler: string, width: number, height: number, samples: number, seconds: number): number[] {
  const timescale = 1000;
  const tkhd = box('tkhd', [0, 0, 0, 3], Array(20).fill(0), Array(16).fill(0), Array(36).fill(0), be32(width * 65536), be32(height * 65536));
  const mdhd = box('mdhd', [0, 0, 0, 0], Array(8).fill(0), be32(timescale), be32(seconds * timescale), [0, 0, 0, 0]);
  const hdlr = box('hdlr', [0, 0, 0, 0], [0, 0, 0, 0], ascii(handler), Array(12).fill(0), [0]);
  const stts = box('stts', [0, 0, 0, 0], be32(1), be32(samples), be32(Math.round((seconds * timescale) / samples)));
  return box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', box('stbl', stts))));
}

/** The header of an MP4 (brand `brand`) whose one video track is width×height and `frames`
 * frames over `seconds`, with `mdat` bytes of media data after it. */
export function mp4Header(width: number, height: number, frames: number, seconds: number, brand = 'isom', mdat = 64): Uint8Array {
  const moov = box('moov', trak('vide', width, height, frames, seconds));
  return new Uint8Array([...box('ftyp', ascii(brand), be32(512), ascii(brand), ascii('mp41')), ...moov, ...be32(mdat + 8), ...ascii('mdat')]);
}

export function mp4(width: number, height: number, frames: number, seconds: number, brand = 'isom'): Uint8Array {
  return new Uint8Array([...mp4Header(width, height, frames, seconds, brand, 64), ...Array(64).fill(0)]);
}

/** An M4A: one sound track. */
export function m4a(seconds = 2): Uint8Array {
  const moov = box('moov', trak('soun', 0, 0, 44 * seconds, seconds));
  return new Uint8Array([...box('ftyp', ascii('M4A '), be32(0)), ...moov, ...box('mdat', Array(16).fill(0))]);
}

const ebml = (id: number[], ...parts: number[][]) => {
  const body = parts.flat();
  return [...id, 0x40 | (body.length >> 8), body.length & 255, ...body];
};
const ebmlUint = (id: number[], value: number) => ebml(id, be32(value));

/** A WebM whose video track is width×height at `fps` frames per second. */
export function webm(width: number, height: number, fps: number): Uint8Array {
  const video = ebml([0xe0], ebmlUint([0xb0], width), ebmlUint([0xba], height));
  const entry = ebml([0xae], ebmlUint([0x83], 1), ebmlUint([0x23, 0xe3, 0x83], Math.round(1e9 / fps)), video);
  return new Uint8Array([...ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], ascii('webm'))), ...ebml([0x18, 0x53, 0x80, 0x67], ebml([0x16, 0x54, 0xae, 0x6b], entry))]);
}

/** A PCM WAVE file of `samples` silent 16-bit mono samples at 8 kHz. */
export function wav(samples = 64): Uint8Array {
  const fmt = [...ascii('fmt '), ...le32(16), ...le16(1), ...le16(1), ...le32(8000), ...le32(16000), ...le16(2), ...le16(16)];
  const data = [...ascii('data'), ...le32(samples * 2), ...Array(samples * 2).fill(0)];
  return new Uint8Array([...ascii('RIFF'), ...le32(4 + fmt.length + data.length), ...ascii('WAVE'), ...fmt, ...data]);
}

/** An MP3: an ID3v2 tag, then `frames` silent MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz). */
export function mp3(frames = 2): Uint8Array {
  const frame = [0xff, 0xfb, 0x90, 0x00, ...Array(417 - 4).fill(0)];
  return new Uint8Array([...ascii('ID3'), 4, 0, 0, 0, 0, 0, 0, ...Array(frames).fill(frame).flat()]);
}

/** An Ogg Vorbis stream's first page: the identification header (2 channels, 44.1 kHz). */
export function ogg(): Uint8Array {
  const id = [1, ...ascii('vorbis'), ...le32(0), 2, ...le32(44100), ...le32(0), ...le32(128000), ...le32(0), 0xb8, 1];
  return new Uint8Array([...ascii('OggS'), 0, 0x02, ...Array(8).fill(0), ...le32(1), ...le32(0), ...le32(0), 1, id.length, ...id]);
}

/** A FLAC stream's marker and STREAMINFO (44.1 kHz, stereo, 16-bit, `seconds` long). */
export function flac(seconds = 1): Uint8Array {
  const samples = 44100 * seconds;
  const info = [0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0x0a, 0xc4, 0x42, 0xf0 | ((samples / 0x1_0000_0000) & 0x0f), ...be32(samples >>> 0), ...Array(16).fill(0)];
  return new Uint8Array([...ascii('fLaC'), 0x80, 0, 0, 34, ...info]);
}

/** A PNG that claims width×height and carries no real pixels: what its header says is all. */
export function pngHeader(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: number[]) => {
    const typed = [...ascii(type), ...data];
    return [...be32(data.length), ...typed, ...be32(crc32(new Uint8Array(typed)))];
  };
  const ihdr = chunk('IHDR', [...be32(width), ...be32(height), 8, 2, 0, 0, 0]);
  return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...ihdr, ...chunk('IDAT', [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]), ...chunk('IEND', [])]);
}
