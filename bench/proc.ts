// Readings of a process, or of it and its descendants, from /proc (Linux): CPU time and resident
// memory, without asking the process anything — the same way for the node child, a peer's
// processes and redis-server.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux we run on). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds of every thread of `pid`. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS;
}

export interface Memory {
  /** Resident set now, MB. */
  rssMb: number;
  /** Peak resident set since the process started (VmHWM), MB. */
  peakRssMb: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/**
 * CPU seconds of `pid`'s main thread and of all its other threads together (worker threads, V8's
 * GC helpers and libuv's pool; Node names them all "node", so they cannot be told apart here).
 */
export function cpuByThread(pid: number): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
      if (Number(tid) === pid) out.main += seconds;
      else out.others += seconds;
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

/** The parent pid of `pid`, or undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `pid` and every process descended from it that is alive now (a sandbox's forked children). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const visit = (p: number) => {
    tree.push(p);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/**
 * The peak resident set (VmHWM) of every process of `pid`'s tree, summed, MB: an upper bound of
 * what the tree held at once (each process's peak may fall at another moment).
 */
export function treePeakRssMb(pid: number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += memory(p).peakRssMb;
    } catch {
      // the process ended between the listing and the read
    }
  }
  return sum;
}

/** User + system CPU seconds of every process of `pid`'s tree alive now (all their threads). */
export function treeCpuSeconds(pid: number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += cpuSeconds(p);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return sum;
}
