// Reads a V8 .cpuprofile (written by node --cpu-prof) and sums self time per function
// (functionName + url:line), optionally only for samples inside a time window.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  ms: number;
  /** Share of the sampled time in the window, idle included. */
  pct: number;
}

export interface ProfileSummary {
  file: string;
  /** Sampled time summed, ms, and the part not spent waiting (WAITING below). */
  totalMs: number;
  busyMs: number;
  /** True when the samples were cut to the window asked for; false when it missed the profile. */
  windowed: boolean;
  top: SelfTime[];
}

/**
 * Frames that are a thread waiting, not working: V8's idle state, and piscina's worker blocked in
 * Atomics.wait for its next task. Note that busy time is wall time: a thread descheduled on a busy
 * machine still counts as busy in the function it was in.
 */
export const WAITING = new Set(['(idle)', 'atomicsWaitLoop']);

function label(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const url = frame.url.replace(/^file:\/\//, '');
  const short = url.includes('/node_modules/')
    ? url.slice(url.lastIndexOf('/node_modules/') + 14)
    : path.relative(process.cwd(), url) || url;
  return `${name} ${short.startsWith('..') ? url : short}:${frame.lineNumber + 1}`;
}

/**
 * Top `n` functions by self time. `window` is [from, to] in µs of the monotonic clock the profile
 * uses (process.hrtime / 1000); samples outside it are skipped when it overlaps the profile.
 */
export function summarize(file: string, n: number, window?: [number, number]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // A worker thread may start after the window opens; what overlaps is kept.
  const windowed = window !== undefined && window[0] < profile.endTime && window[1] > profile.startTime;
  const byFn = new Map<string, number>();
  let t = profile.startTime;
  let totalUs = 0;
  let idleUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (windowed && (t < window[0] || t > window[1])) continue;
    const frame = frames.get(profile.samples[i]);
    if (!frame) continue;
    const key = label(frame);
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    totalUs += us;
    if (WAITING.has(frame.functionName)) idleUs += us;
  }
  const top = [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, us]) => ({ fn, ms: us / 1000, pct: (100 * us) / (totalUs || 1) }));
  return { file, totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, windowed, top };
}
