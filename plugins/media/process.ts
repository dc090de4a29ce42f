// Image processing with sharp: orientation applied (EXIF), metadata stripped (sharp writes none
// unless asked), the original downscaled to at most 3840×2160 worth of pixels, a small preview
// (at most 640×360 worth), their sizes, and a blurhash of the preview.
//
// Every input is bounded before a pixel is decoded: the header's dimensions against the matrix
// limit, an animation's frames and its pixels in all, and sharp is told the same limits
// (limitInputPixels, pages) and a time limit, so that a file built to decode into gigabytes or
// to take hours is refused in milliseconds rather than allocated.

import type { MediaDimensions } from 'rookery/plugin-kit';
import { encode } from 'blurhash';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';

const ORIGINAL_MAX_PIXELS = 8_294_400;
const SMALL_MAX_PIXELS = 230_400;
export const IMAGE_MATRIX_LIMIT = 33_177_600;
/** Frames of an animated GIF or WebP. */
export const FRAME_LIMIT = 1000;
/** Pixels of all of an animation's frames together: re-encoding costs about this many pixels'
 * work, a few seconds at most. */
export const ANIMATION_PIXEL_LIMIT = 100_000_000;
/** What one sharp pipeline may take, well within the processing job's own time limit. */
const PIPELINE_SECONDS = 20;

export type ImageInput = string | Uint8Array;

export interface ProcessedImage {
  original: { data: Uint8Array; dimensions: MediaDimensions; ext: string; mime: string };
  small: { data: Uint8Array; dimensions: MediaDimensions };
  blurhash: string;
}

/** Why an image was refused: it cannot be read, its dimensions pass the matrix limit, or its
 * animation passes the frame or pixel limits. */
export type ImageProblem = 'unreadable' | 'too large' | 'animation too large';

export class ImageError extends Error {
  readonly problem: ImageProblem;
  constructor(problem: ImageProblem) {
    super(problem);
    this.problem = problem;
  }
}

function fit(width: number, height: number, maxPixels: number): MediaDimensions {
  if (width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/** A file path is read by libvips itself, never into this process's heap as a whole. */
function open(input: ImageInput, options: SharpOptions): Sharp {
  return sharp(typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength), { failOn: 'warning', ...options }).timeout({ seconds: PIPELINE_SECONDS });
}

/** The size of one frame as shown (EXIF orientations 5 to 8 turn it a quarter). */
function uprightSize(meta: Metadata): MediaDimensions {
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 0;
  const height = (rotated ? meta.width : meta.pageHeight ?? meta.height) ?? 0;
  if (width === 0 || height === 0) throw new ImageError('unreadable');
  return { width, height };
}

/** Reads, rotates and re-encodes an image; throws ImageError when it cannot be read or passes a limit. */
export async function processImage(input: ImageInput, format: 'jpg' | 'png' | 'gif' | 'webp' | 'avif'): Promise<ProcessedImage> {
  try {
    return await encodeImage(input, format);
  } catch (error) {
    // A header that reads fine over pixels that do not (truncated, corrupt): not an image.
    if (error instanceof ImageError) throw error;
    throw new ImageError('unreadable');
  }
}

async function encodeImage(input: ImageInput, format: 'jpg' | 'png' | 'gif' | 'webp' | 'avif'): Promise<ProcessedImage> {
  const mayAnimate = format === 'gif' || format === 'webp';
  let meta: Metadata;
  try {
    // The header only: its dimensions are checked here, before any decoding.
    meta = await open(input, { animated: mayAnimate, limitInputPixels: false }).metadata();
  } catch {
    throw new ImageError('unreadable');
  }
  const { width, height } = uprightSize(meta);
  if (width * height > IMAGE_MATRIX_LIMIT) throw new ImageError('too large');
  const frames = mayAnimate ? (meta.pages ?? 1) : 1;
  if (frames > FRAME_LIMIT || width * height * frames > ANIMATION_PIXEL_LIMIT) throw new ImageError('animation too large');
  const animated = frames > 1;
  // One frame is a still image: bounded by the matrix limit. All frames: by the animation's.
  const still = { limitInputPixels: IMAGE_MATRIX_LIMIT };
  const whole = animated ? { animated: true, pages: frames, limitInputPixels: ANIMATION_PIXEL_LIMIT } : still;
  const target = fit(width, height, ORIGINAL_MAX_PIXELS);
  const base = () => open(input, whole).rotate();
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
  const { small, blurhash } = await smallPreview(input, width, height);
  return { original: { data: new Uint8Array(original), dimensions: target, ext, mime }, small, blurhash };
}

/** The preview of a still image already checked against the matrix limit, and its blurhash. */
async function smallPreview(input: ImageInput, width: number, height: number): Promise<{ small: ProcessedImage['small']; blurhash: string }> {
  const smallSize = fit(width, height, SMALL_MAX_PIXELS);
  const small = await open(input, { limitInputPixels: IMAGE_MATRIX_LIMIT }).rotate().resize(smallSize.width, smallSize.height, { fit: 'fill' }).flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer();
  const thumb = await sharp(small).resize(32, 32, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const blurhash = encode(new Uint8ClampedArray(thumb.data), thumb.info.width, thumb.info.height, 4, 3);
  return { small: { data: new Uint8Array(small), dimensions: smallSize }, blurhash };
}

/** Only the preview and blurhash of an image (a link's picture from another site): its first
 * frame, within the same limits as an upload; throws ImageError as processImage does. */
export async function processPreview(input: ImageInput): Promise<{ small: ProcessedImage['small']; blurhash: string }> {
  try {
    const meta = await open(input, { limitInputPixels: false }).metadata();
    const { width, height } = uprightSize(meta);
    if (width * height > IMAGE_MATRIX_LIMIT) throw new ImageError('too large');
    return await smallPreview(input, width, height);
  } catch (error) {
    if (error instanceof ImageError) throw error;
    throw new ImageError('unreadable');
  }
}

/** A square (avatar) or banner (header) image, cropped to fill `width`×`height`. */
export async function processProfileImage(input: ImageInput, width: number, height: number): Promise<Uint8Array> {
  try {
    const meta = await open(input, { limitInputPixels: false }).metadata();
    if ((meta.width ?? 0) * (meta.height ?? 0) > IMAGE_MATRIX_LIMIT) throw new ImageError('too large');
    return new Uint8Array(await open(input, { limitInputPixels: IMAGE_MATRIX_LIMIT }).rotate().resize(width, height, { fit: 'cover' }).png().toBuffer());
  } catch (error) {
    if (error instanceof ImageError) throw error;
    throw new ImageError('unreadable');
  }
}

/** A still PNG of an image's first frame (a custom emoji's static picture). */
export async function stillPng(input: ImageInput): Promise<Uint8Array> {
  try {
    return new Uint8Array(await open(input, { limitInputPixels: IMAGE_MATRIX_LIMIT }).png().toBuffer());
  } catch {
    throw new ImageError('unreadable');
  }
}
