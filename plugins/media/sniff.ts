// What an upload really is, from its first bytes (the declared content type is only a hint):
// images go through sharp; video and audio are kept as uploaded (no transcoder here).

export type SniffedKind = { kind: 'image'; mime: string; ext: string } | { kind: 'video' | 'audio'; mime: string; ext: string };

const ascii = (data: Uint8Array, from: number, length: number) => String.fromCharCode(...data.subarray(from, from + length));

export function sniff(data: Uint8Array): SniffedKind | null {
  if (data.length < 12) return null;
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return { kind: 'image', mime: 'image/jpeg', ext: 'jpg' };
  if (ascii(data, 0, 8) === '\x89PNG\r\n\x1a\n') return { kind: 'image', mime: 'image/png', ext: 'png' };
  if (ascii(data, 0, 6) === 'GIF87a' || ascii(data, 0, 6) === 'GIF89a') return { kind: 'image', mime: 'image/gif', ext: 'gif' };
  if (ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 4) === 'WEBP') return { kind: 'image', mime: 'image/webp', ext: 'webp' };
  if (ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 4) === 'WAVE') return { kind: 'audio', mime: 'audio/wav', ext: 'wav' };
  if (ascii(data, 4, 4) === 'ftyp') {
    const brand = ascii(data, 8, 4);
    if (brand === 'avif' || brand === 'avis') return { kind: 'image', mime: 'image/avif', ext: 'avif' };
    if (brand === 'qt  ') return { kind: 'video', mime: 'video/quicktime', ext: 'mov' };
    if (brand.startsWith('M4A')) return { kind: 'audio', mime: 'audio/mp4', ext: 'm4a' };
    return { kind: 'video', mime: 'video/mp4', ext: 'mp4' };
  }
  if (data[0] === 0x1a && data[1] === 0x45 && data[2] === 0xdf && data[3] === 0xa3) return { kind: 'video', mime: 'video/webm', ext: 'webm' };
  if (ascii(data, 0, 4) === 'OggS') return { kind: 'audio', mime: 'audio/ogg', ext: 'ogg' };
  if (ascii(data, 0, 4) === 'fLaC') return { kind: 'audio', mime: 'audio/flac', ext: 'flac' };
  if (ascii(data, 0, 3) === 'ID3' || (data[0] === 0xff && ((data[1] ?? 0) & 0xe0) === 0xe0)) return { kind: 'audio', mime: 'audio/mpeg', ext: 'mp3' };
  return null;
}

/** What the instance endpoint lists: exactly what sniff() accepts. */
export const SUPPORTED_MIME_TYPES = [
  'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif',
  'video/mp4', 'video/quicktime', 'video/webm',
  'audio/wav', 'audio/wave', 'audio/x-wav', 'audio/mp4', 'audio/m4a', 'audio/x-m4a', 'audio/ogg', 'audio/flac', 'audio/mpeg', 'audio/mp3',
];
