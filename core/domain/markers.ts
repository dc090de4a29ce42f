// Read positions (markers) of the home timeline and the notifications: clients sync them
// across devices; each save adds one to the marker's version.

import type { Core } from './context.ts';
import { unprocessable } from './errors.ts';
import { isId } from './ids.ts';
import { MARKER_TIMELINES, type Account, type Marker, type MarkerTimeline } from './model.ts';

export function isMarkerTimeline(value: string): value is MarkerTimeline {
  return (MARKER_TIMELINES as readonly string[]).includes(value);
}

export async function readMarkers(core: Core, actor: Account, timelines: readonly string[]): Promise<Marker[]> {
  const known = timelines.filter(isMarkerTimeline);
  return known.length === 0 ? [] : core.storage.markers.get(actor.id, known);
}

export const markerTexts = {
  blank: "Validation failed: Last read can't be blank",
  invalid: 'Validation failed: Last read is invalid',
} as const;

/** Saves the positions sent (timeline → last read id); a timeline sent without one, or with
 * something that is not an id, is 422. */
export async function saveMarkers(core: Core, actor: Account, positions: ReadonlyMap<MarkerTimeline, string>): Promise<Marker[]> {
  for (const id of positions.values()) {
    if (id.trim() === '') throw unprocessable(markerTexts.blank);
    if (!isId(id)) throw unprocessable(markerTexts.invalid);
  }
  const saved: Marker[] = [];
  for (const [timeline, lastReadId] of positions) {
    saved.push(await core.storage.markers.set(actor.id, timeline, lastReadId, core.clock.now()));
  }
  return saved;
}
