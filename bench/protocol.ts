// What the bench (parent) and the node child process (node-process.ts) say to each other over IPC.
// Times are epoch milliseconds read as performance.timeOrigin + performance.now() (µs precision).

/** The node child's configuration, passed as JSON in NEXQ_BENCH_NODE. */
export interface NodeChildConfig {
  redisUrl: string;
  namespace: string;
  /** The queues the node serves, in order. */
  queues: BenchQueue[];
  /** Finished jobs (acked or failed) after which the child reports `done`. */
  expect: number;
  /** Collect the Latency fixture's per-job readings (BroadcastChannel) and send them with `done`. */
  latency: boolean;
  /** The node's `threads` (W6: one per core, said explicitly); nexq's default when absent. */
  threads?: number;
}

export interface BenchQueue {
  name: string;
  concurrency: number;
  weight?: number;
  /** Its groups take turns (W8). */
  fair?: boolean;
  /** A rate limit across nodes (`--rate-limit`, to measure what the limiter costs). */
  rateLimit?: { limit: number; per: number };
}

/**
 * Seconds on the machine's monotonic clock (process.hrtime): the same clock in every process and
 * thread, so W3 compares a stamp taken in one with a reading taken in another.
 */
export function monotonicSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** The BroadcastChannel the Latency fixture posts its readings on. */
export const LATENCY_CHANNEL = 'nexq-bench-latency';

/** One Latency job: its first argument (negative for warm-up jobs) and its start − the bench's stamp, seconds. */
export interface LatencyReading {
  index: number;
  seconds: number;
}

/** `mono` fields: µs of the monotonic clock (process.hrtime), the time base of a .cpuprofile. */
export interface CpuTimes {
  /** process.cpuUsage(): user and system µs of every thread of the process. */
  user: number;
  system: number;
}

export type ChildMessage =
  | { type: 'ready'; nodeId: string; at: number; mono: number; finishedAtReady: number; cpu: CpuTimes }
  /** `lastAt`: when the latest job finished (a peer's process says it; W6 ends a fleet's run on it). */
  | { type: 'progress'; acked: number; failed: number; lastAt?: number }
  | {
      type: 'done';
      at: number;
      mono: number;
      acked: number;
      failed: number;
      cpu: CpuTimes;
      latencies: LatencyReading[];
    }
  | { type: 'stopped'; acked: number; failed: number }
  | { type: 'error'; message: string }
  | PeerOnlyMessage;

export type ParentMessage = { type: 'stop' };

/** What a peer's process (bench/peers/) says besides the messages above: its name and version
 * first, and for its enqueue side, the timed enqueue's seconds and redis-server's CPU in them. */
export type PeerOnlyMessage =
  { type: 'version'; version: string } | { type: 'enqueued'; seconds: number; redisCpuSeconds: number };
