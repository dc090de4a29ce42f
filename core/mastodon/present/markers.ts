// Markers as Mastodon shows them: one object per timeline asked for, keyed by its name.

import type { Marker } from '../../domain/model.ts';
import { iso } from '../entities/time.ts';

export function renderMarkers(markers: readonly Marker[]): Record<string, { last_read_id: string; version: number; updated_at: string }> {
  const json: Record<string, { last_read_id: string; version: number; updated_at: string }> = {};
  for (const m of markers) json[m.timeline] = { last_read_id: m.lastReadId, version: m.version, updated_at: iso(m.updatedAt) };
  return json;
}
