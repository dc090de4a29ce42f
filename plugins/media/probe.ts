// What a video or audio file says about itself in its container headers, read without decoding
// anything and without holding the file: the kind of track it carries (a video track makes it
// a video, else an audio track makes it audio), a video's dimensions and frame rate, and the
// duration when the headers state it. An upload is taken only when this can be read, so that
// the instance's video_matrix_limit and video_frame_rate_limit are enforced, not only stated,
// and a file that merely starts like a container is refused.
//
// Bounded: headers are read a few bytes at a time from the file, the one header element that
// holds the tracks is read whole only up to a fixed size, walks have a fixed depth and node
// count, and every step moves forward.

import type { ByteSource, MediaFacts } from './facts.ts';
import { probeBmff } from './probe-bmff.ts';
import { probeEbml } from './probe-ebml.ts';
import { probeFlac, probeMp3, probeOgg, probeWav } from './probe-audio.ts';

export type { ByteSource, MediaFacts } from './facts.ts';

/** The facts of a file of the container `ext` (as sniff() named it); null when its headers
 * name no video or audio track, or cannot be read. */
export async function probeMedia(source: ByteSource, ext: string): Promise<MediaFacts | null> {
  let facts: MediaFacts | null;
  switch (ext) {
    case 'mp4':
    case 'mov':
    case 'm4a':
      facts = await probeBmff(source);
      break;
    case 'webm':
      facts = await probeEbml(source);
      break;
    case 'wav':
      facts = await probeWav(source);
      break;
    case 'mp3':
      facts = await probeMp3(source);
      break;
    case 'ogg':
      facts = await probeOgg(source);
      break;
    case 'flac':
      facts = await probeFlac(source);
      break;
    default:
      facts = null;
  }
  // Frame durations are stored rounded (120 fps is 8333333 ns in WebM): to a thousandth of a
  // frame, 120 is 120.
  if (facts !== null && facts.frameRate !== null) facts.frameRate = Math.round(facts.frameRate * 1000) / 1000;
  if (facts !== null && facts.duration !== null) facts.duration = Math.round(facts.duration * 1000) / 1000;
  return facts;
}
