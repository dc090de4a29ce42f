// The fan-out benchmark's yardstick: a bare uWebSockets.js server that broadcasts the frames it
// is handed, already encoded, to every WebSocket (one topic) and every SSE stream (a loop), with
// nothing else in between: the least any server could spend delivering the same bytes.
// Started by bench/fanout.ts with --expose-gc; not a test.

import { loadUws } from '../adapters/uws/index.ts';
import { watchCollections } from './gc-watch.ts';

const collections = watchCollections();

const uws = loadUws();
const port = Number(process.argv[2]);
const app = uws.App();
const sse = new Set<import('uWebSockets.js').HttpResponse>();

app.ws('/*', {
  compression: uws.DISABLED,
  maxBackpressure: 1024 * 1024,
  idleTimeout: 0,
  open: (ws) => void ws.subscribe('all'),
});
app.get('/sse', (res) => {
  res.onAborted(() => sse.delete(res));
  res.cork(() => {
    res.writeStatus('200 OK').writeHeader('content-type', 'text/event-stream');
    res.write(':)\n');
  });
  sse.add(res);
});
app.listen('127.0.0.1', port, (socket) => {
  if (!socket) throw new Error(`bare uWS could not listen on ${port}`);
  process.send?.({ ready: true });
});

process.on('message', (message: { cmd: 'broadcast'; ws: string; sse: string } | { cmd: 'stats'; gc?: boolean }) => {
  if (message.cmd === 'broadcast') {
    const frame = Buffer.from(message.ws);
    const event = Buffer.from(message.sse);
    app.publish('all', frame, false);
    for (const res of sse) res.cork(() => res.write(event));
  } else {
    if (message.gc) (globalThis as { gc?: () => void }).gc?.();
    const cpu = process.cpuUsage();
    process.send?.({ stats: { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, cpu: cpu.user + cpu.system, ...collections() } });
  }
});
process.on('SIGTERM', () => process.exit(0));
