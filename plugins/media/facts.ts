// What the container probes (probe.ts) read from, and what they find.

/** Random access to a file's bytes (an UploadedFile is one). */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `offset` (fewer past the end). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface MediaFacts {
  type: 'video' | 'audio';
  /** The video track's, for a video. */
  width: number | null;
  height: number | null;
  /** Frames per second, when the headers say it. */
  frameRate: number | null;
  /** Seconds, when the headers say it. */
  duration: number | null;
}

/** A fact that says nothing (zero, or not a finite number) is unknown. */
export function known(value: number): number | null {
  return Number.isFinite(value) && value > 0 ? value : null;
}

export const audioFacts = (duration: number | null): MediaFacts => ({ type: 'audio', width: null, height: null, frameRate: null, duration });
