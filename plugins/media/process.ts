// Image processing with sharp: orientation applied (EXIF), metadata stripped (sharp writes none
// unless asked), the original downscaled to at most 3840×2160 worth of pixels, a small preview
// (at most 640×360 worth), their sizes, and a blurhash of the preview.

import type { MediaDimensions } from 'rookery/plugin-kit';
import { encode } from 'blurhash';
import sharp, { type Metadata } from 'sharp';

const ORIGINAL_MAX_PIXELS = 8_294_400;
const SMALL_MAX_PIXELS = 230_400;
export const IMAGE_MATRIX_LIMIT = 33_177_600;

export interface ProcessedImage {
  original: { data: Uint8Array; dimensions: MediaDimensions; ext: string; mime: string };
  small: { data: Uint8Array; dimensions: MediaDimensions };
  blurhash: string;
}

export class ImageError extends Error {}

function fit(width: number, height: number, maxPixels: number): MediaDimensions {
  if (width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/** Reads, rotates and re-encodes an image; throws ImageError when it cannot be read or is too large. */
export async function processImage(data: Uint8Array, format: 'jpg' | 'png' | 'gif' | 'webp' | 'avif'): Promise<ProcessedImage> {
  try {
    return await encodeImage(data, format);
  } catch (error) {
    // A header that reads fine over pixels that do not (truncated, corrupt): not an image.
    if (error instanceof ImageError) throw error;
    throw new ImageError('unreadable');
  }
}

async function encodeImage(data: Uint8Array, format: 'jpg' | 'png' | 'gif' | 'webp' | 'avif'): Promise<ProcessedImage> {
  let meta: Metadata;
  try {
    meta = await sharp(data, { animated: format === 'gif' || format === 'webp' }).metadata();
  } catch {
    throw new ImageError('unreadable');
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 0;
  const height = ((rotated ? meta.width : meta.pageHeight ?? meta.height) ?? 0);
  if (width === 0 || height === 0) throw new ImageError('unreadable');
  if (width * height > IMAGE_MATRIX_LIMIT) throw new ImageError('too large');
  const target = fit(width, height, ORIGINAL_MAX_PIXELS);
  const animated = (meta.pages ?? 1) > 1;
  const base = () => sharp(data, { animated }).rotate();
  let original: Buffer;
  let ext: string = format;
  let mime: string;
  const resized = target.width === width ? base() : base().resize(target.width, target.height, { fit: 'fill' });
  switch (format) {
    case 'png':
      original = await resized.png().toBuffer();
      mime = 'image/png';
      break;
    case 'gif':
      original = await resized.gif().toBuffer();
      mime = 'image/gif';
      break;
    case 'webp':
      original = await resized.webp().toBuffer();
      mime = 'image/webp';
      break;
    default:
      // JPEG (and AVIF, which browsers render less widely) become JPEG.
      original = await resized.jpeg({ quality: 90, mozjpeg: true }).toBuffer();
      ext = 'jpg';
      mime = 'image/jpeg';
  }
  const smallSize = fit(width, height, SMALL_MAX_PIXELS);
  const small = await sharp(data).rotate().resize(smallSize.width, smallSize.height, { fit: 'fill' }).flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer();
  const thumb = await sharp(small).resize(32, 32, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const blurhash = encode(new Uint8ClampedArray(thumb.data), thumb.info.width, thumb.info.height, 4, 3);
  return {
    original: { data: new Uint8Array(original), dimensions: target, ext, mime },
    small: { data: new Uint8Array(small), dimensions: smallSize },
    blurhash,
  };
}

/** A square (avatar) or banner (header) image, cropped to fill `width`×`height`. */
export async function processProfileImage(data: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  try {
    const meta = await sharp(data).metadata();
    if ((meta.width ?? 0) * (meta.height ?? 0) > IMAGE_MATRIX_LIMIT) throw new ImageError('too large');
    return new Uint8Array(await sharp(data).rotate().resize(width, height, { fit: 'cover' }).png().toBuffer());
  } catch (error) {
    if (error instanceof ImageError) throw error;
    throw new ImageError('unreadable');
  }
}
