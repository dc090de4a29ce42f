// What the media plugin accepts (stated on /api/v2/instance as configuration.media_attachments)
// and Mastodon's texts for what it refuses.

import { ANIMATION_PIXEL_LIMIT, FRAME_LIMIT } from './process.ts';

export const IMAGE_SIZE_LIMIT = 16_777_216;
export const VIDEO_SIZE_LIMIT = 103_809_024;
export const VIDEO_MATRIX_LIMIT = 8_294_400;
export const VIDEO_FRAME_RATE_LIMIT = 120;
export const PROFILE_IMAGE_LIMIT = 8 * 1024 * 1024;
export const DESCRIPTION_LIMIT = 1500;

export const mediaTexts = {
  fileBlank: "Validation failed: File can't be blank",
  fileType: 'Validation failed: File content type is invalid',
  notVerified: 'File type of uploaded media could not be verified',
  /** Mastodon's answer about an upload whose processing failed (GET and PUT /api/v1/media/:id). */
  processingFailed: 'Error processing thumbnail for uploaded media',
  imageTooBig: 'Validation failed: File file size must be less than 16 MB',
  videoTooBig: 'Validation failed: File file size must be less than 99 MB',
  dimensions: 'Validation failed: File dimensions are too large (at most 33177600 pixels)',
  animationTooLarge: `Validation failed: File animation is too large (at most ${FRAME_LIMIT} frames and ${ANIMATION_PIXEL_LIMIT} pixels in all)`,
  descriptionTooLong: `Validation failed: Description is too long (maximum is ${DESCRIPTION_LIMIT} characters)`,
  tooMany: 'Cannot attach more than 4 files',
  notFound: (ids: readonly string[]) => `Media ${ids.join(', ')} not found or already attached to another post`,
  videoWithImages: 'Cannot attach a video to a post that already contains images',
  notReady: 'Cannot attach files that have not finished processing. Try again in a moment!',
  videoDimensions: (width: number, height: number) => `${width}x${height} videos are not supported`,
  videoFrameRate: (fps: number) => `${Math.floor(fps)}fps videos are not supported`,
  profileTooBig: (field: string) => `Validation failed: ${field} file size must be less than 8 MB`,
  profileType: (field: string) => `Validation failed: ${field} content type is invalid`,
} as const;
