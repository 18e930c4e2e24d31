// What every workload gets: the bench's Redis, an admin connection to it, an enqueuer-mode node
// to produce jobs, the sizes of this run, and a list of problems seen in the library.
import type Redis from 'ioredis';
import type { Nexq } from '../src/nexq';
import { Keys } from '../src/redis/keys';
import type { BenchRedis } from './redis-server';

export const NAMESPACE = 'bench';
export const QUEUE = 'default';
export const keys = new Keys(NAMESPACE);

export interface Sizes {
  /** W1: jobs enqueued one at a time, and again in enqueueAll chunks. */
  enqueue: number;
  /** W1: enqueues before timing, so JIT warm-up is not measured. */
  enqueueWarmup: number;
  /** W2: pre-enqueued jobs per concurrency. */
  processing: number;
  /** W3: jobs enqueued 5 ms apart, and warm-up jobs before them. */
  latency: number;
  latencyWarmup: number;
  /** W4: backlog to drain. */
  backlog: number;
  /** W6: CPU-bound jobs (~2 ms each) per runner. */
  cpuBound: number;
}

export const FULL: Sizes = {
  enqueue: 20_000,
  enqueueWarmup: 1_000,
  processing: 20_000,
  latency: 500,
  latencyWarmup: 20,
  backlog: 100_000,
  cpuBound: 20_000,
};
export const QUICK: Sizes = {
  enqueue: 2_000,
  enqueueWarmup: 200,
  processing: 2_000,
  latency: 100,
  latencyWarmup: 10,
  backlog: 10_000,
  cpuBound: 2_000,
};

export interface BenchContext {
  server: BenchRedis;
  admin: Redis;
  enqueuer: Nexq;
  sizes: Sizes;
  /** Progress lines (stderr). */
  log: (line: string) => void;
  /** What went wrong in the library: lost or failed jobs, hangs, log lines at warn/error. */
  problems: string[];
}
