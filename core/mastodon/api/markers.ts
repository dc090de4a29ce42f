// Read markers of the home timeline and the notifications (rules in core/markers.ts).

import type { AppCore } from '../context.ts';
import { readMarkers, saveMarkers } from '../../domain/markers.ts';
import { renderMarkers } from '../present/markers.ts';
import { MARKER_TIMELINES, type MarkerTimeline } from '../../domain/model.ts';
import { obj, str, strArray, type Params } from '../../domain/params.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

/** home[last_read_id]=… and notifications[last_read_id]=… (nested by the adapter, or JSON). */
function positionsOf(params: Params): Map<MarkerTimeline, string> {
  const positions = new Map<MarkerTimeline, string>();
  for (const timeline of MARKER_TIMELINES) {
    const fields = obj(params, timeline);
    if (fields !== undefined) positions.set(timeline, str(fields, 'last_read_id') ?? '');
  }
  return positions;
}

export function markerEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/markers',
      auth: 'user',
      scopes: ['read', 'read:statuses'],
      handle: async (request) => json(renderMarkers(await readMarkers(core, actorOf(request), strArray(paramsOf(request), 'timeline') ?? []))),
    },
    {
      method: 'POST',
      path: '/api/v1/markers',
      auth: 'user',
      scopes: ['write', 'write:statuses'],
      handle: async (request) => json(renderMarkers(await saveMarkers(core, actorOf(request), positionsOf(paramsOf(request))))),
    },
  ];
}
