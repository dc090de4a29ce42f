// How much of the machine's CPU time the hypervisor gave to other guests (Linux's "steal",
// from /proc/stat) while a part of the bench ran. On a shared VM a slow spell of a neighbour
// moves both servers' latencies, and a ratio read from such a spell says little: the share is
// printed beside the figures so that a reader can tell a quiet run from a noisy one.

import { readFileSync } from 'node:fs';

interface CpuTimes {
  steal: number;
  total: number;
}

function cpuTimes(): CpuTimes | null {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal ...
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
    return { steal: fields[7] as number, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** Starts measuring; the function returned gives the steal share since then (0–1), or null
 * where /proc/stat is not there or too little time passed to tell. */
export function measureSteal(): () => number | null {
  const start = cpuTimes();
  return () => {
    const end = cpuTimes();
    if (start === null || end === null || end.total <= start.total) return null;
    return (end.steal - start.steal) / (end.total - start.total);
  };
}

/** "steal 12%", or "steal ?" where it cannot be read. */
export function stealText(share: number | null): string {
  return share === null ? 'steal ?' : `steal ${(share * 100).toFixed(0)}%`;
}
