// The fan-out benchmark's yardstick: a bare uWebSockets.js server that broadcasts the frames it
// is handed, already encoded, to every WebSocket (one topic) and every SSE stream (a loop), with
// nothing else in between: the least any server could spend delivering the same bytes.
// Started by bench/fanout.ts with --expose-gc; not a test.

import { constants, PerformanceObserver } from 'node:perf_hooks';
import { loadUws } from '../adapters/uws/index.ts';

// When this process last made a major collection (or a step of one): the bench warms up until
// no server has for a while (bench/fanout.ts, WARM_UP_QUIET_SECONDS).
let majorGcAt = -Infinity;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR || kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) majorGcAt = entry.startTime + entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

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
    process.send?.({ stats: { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, cpu: cpu.user + cpu.system, sinceMajorGcMs: Math.min(1e9, performance.now() - majorGcAt) } });
  }
});
process.on('SIGTERM', () => process.exit(0));
