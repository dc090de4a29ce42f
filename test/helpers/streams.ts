// Streams for tests without a socket: a sink that records what the hub hands a transport, and
// a helper that opens a connection for a test user and subscribes it.

import type { StreamConnection, StreamEvent, StreamOutput } from '../../core/mastodon/streaming/hub.ts';
import type { StreamParams } from '../../core/mastodon/streaming/streams.ts';
import type { Harness, TestUser } from './harness.ts';

const text = new TextDecoder();

export interface Received {
  event: string;
  /** The payload, parsed when it is JSON (undefined for filters_changed). */
  payload: any;
  /** The WebSocket message, parsed. */
  ws: { stream: string[]; event: string; payload?: string };
  sse: string;
  raw: StreamEvent;
}

export interface Sink {
  output: StreamOutput;
  received: Received[];
  killed: number;
  events(): string[];
}

export function sink(): Sink {
  const s: Sink = {
    received: [],
    killed: 0,
    output: {
      deliver(raw) {
        const ws = JSON.parse(text.decode(raw.ws())) as Received['ws'];
        // A delete's payload is a bare id: kept as the string it is (ids exceed 2^53).
        const payload: unknown = ws.payload === undefined || raw.event === 'delete' ? ws.payload : JSON.parse(ws.payload);
        s.received.push({ event: raw.event, payload, ws, sse: text.decode(raw.sse()), raw });
      },
      kill() {
        s.killed += 1;
      },
    },
    events: () => s.received.map((r) => (r.event === 'delete' ? `delete ${r.payload}` : r.event === 'notification' ? `notification ${r.payload.type}` : `${r.event} ${r.payload?.id ?? ''}`.trim())),
  };
  return s;
}

/** A connection of `user` subscribed to `stream`; fails loudly when refused. */
export async function openStream(h: Harness, user: TestUser, stream: string, params: StreamParams = {}): Promise<{ connection: StreamConnection; sink: Sink }> {
  const identity = await h.rookery.streaming.authenticate({ authorization: `Bearer ${user.token}` });
  if ('error' in identity) throw new Error(`stream refused: ${identity.error}`);
  const s = sink();
  const connection = h.rookery.streaming.connect(identity, s.output);
  const refused = await connection.subscribe(stream, params);
  if (refused !== null) throw new Error(`subscription refused: ${refused.status} ${refused.error}`);
  return { connection, sink: s };
}
