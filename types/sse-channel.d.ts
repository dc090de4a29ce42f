// sse-channel 4.0.2 ships no types: what the hapi adapter uses of it.
declare module 'sse-channel' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import { EventEmitter } from 'node:events';

  interface SseChannelOptions {
    pingInterval?: number;
    retryTimeout?: number;
    historySize?: number;
    jsonEncode?: boolean;
  }

  class SseChannel extends EventEmitter {
    constructor(options?: SseChannelOptions);
    connections: ServerResponse[];
    addClient(req: IncomingMessage, res: ServerResponse, callback?: () => void): void;
    removeClient(res: ServerResponse): void;
    getConnectionCount(): number;
    ping(): void;
    close(): void;
  }

  export default SseChannel;
}
