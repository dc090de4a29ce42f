// The two wire formats, encoded to bytes once per event and shared by every connection that
// gets the same bytes (docs/behaviour.md, "Streaming").

const utf8 = new TextEncoder();

/** `event: <name>` and `data: <payload>` lines; an event without payload says `undefined`, as
 * Mastodon's documentation promises for filters_changed. */
export function sseFrame(event: string, payload: string | undefined): Uint8Array {
  return utf8.encode(`event: ${event}\ndata: ${payload ?? 'undefined'}\n\n`);
}

/** {"stream":[…],"event":…,"payload":"<JSON as a string>"}; no payload member when there is none. */
export function wsFrame(stream: readonly string[], event: string, payload: string | undefined): Uint8Array {
  return utf8.encode(JSON.stringify(payload === undefined ? { stream, event } : { stream, event, payload }));
}

export const SSE_OPENING = utf8.encode(':)\n');
export const SSE_HEARTBEAT = utf8.encode(':thump\n\n');

/** A WebSocket subscription error: {"error": …, "status": …}; unsubscribe errors have no status. */
export function wsError(error: string, status?: number): Uint8Array {
  return utf8.encode(JSON.stringify(status === undefined ? { error } : { error, status }));
}
