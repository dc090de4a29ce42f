// What a bench server reports of its own collector (bench/fanout.ts reads it over IPC): when it
// last made a major collection (or a step of one), for the warm-up, which waits until the heap
// has settled; how many major ones it made and how long all of them paused it, for the report
// of the counted rounds; and its young generation's size now. Not a test.

import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

export interface GcReading {
  sinceMajorGcMs: number;
  majorGcs: number;
  gcPauseMs: number;
  youngBytes: number;
}

/** Starts watching this process's collections; the function reads them. */
export function watchCollections(): () => GcReading {
  let majorGcAt = -Infinity;
  let majorGcs = 0;
  let gcPauseMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      gcPauseMs += entry.duration;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs += 1;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR || kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) majorGcAt = entry.startTime + entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return () => ({
    sinceMajorGcMs: Math.min(1e9, performance.now() - majorGcAt),
    majorGcs,
    gcPauseMs,
    youngBytes: getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
  });
}
