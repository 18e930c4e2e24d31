// The Prometheus gauges that describe the whole cluster, not one node: queue sizes and latency and
// the retry/dead/schedule set sizes, read from Redis when scraped (one round trip per scrape,
// shared by every gauge) and carrying no `node` label, since every reader answers the same number.
// A node's registry holds them (prometheus.ts); so does the mounted dashboard's `/metrics`
// (`nexqDashboard({ metrics: true })`), which serves them once for a fleet, without a node.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Gauge, Registry } from 'prom-client';
import type { Clock } from '../job/time';
import type { RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import { jobSetSize } from '../redis/known-queues';
import { queueInfo, QueueInfo } from '../redis/queue-info';

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Snapshot {
  queues: QueueInfo[];
  retry: number;
  dead: number;
  scheduled: number;
}

export interface ClusterSource {
  /** Read at each scrape: a node's client may be replaced. */
  redis: () => RedisClient;
  keys: Keys;
  clock?: Clock;
  /** Queues to list besides the known ones (and, in the per-queue layout, whose sets to read). */
  queues: () => string[];
  /** Told when a scrape cannot read Redis. */
  onError: (err: Error) => void;
}

export class ClusterGauges {
  private pending?: Promise<Snapshot | undefined>;

  constructor(
    registry: Registry,
    private readonly source: ClusterSource,
  ) {
    const registers = [registry];
    const read = () => this.snapshot();
    const queueGauge = (name: string, help: string, pick: (q: QueueInfo) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['queue'],
        registers,
        async collect() {
          const s = await read();
          this.reset();
          for (const q of s?.queues ?? []) this.set({ queue: q.queue }, pick(q));
        },
      });
    queueGauge('nexq_queue_size', 'Jobs waiting in each queue (cluster-wide: the same on every node).', (q) => q.size);
    queueGauge(
      'nexq_queue_latency_seconds',
      'Seconds since the oldest waiting job of each queue was enqueued.',
      (q) => q.latency,
    );
    const setGauge = (name: string, help: string, pick: (s: Snapshot) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const s = await read();
          this.reset();
          if (s) this.set(pick(s));
        },
      });
    setGauge('nexq_retry_set_size', 'Jobs waiting in the retry set.', (s) => s.retry);
    setGauge('nexq_dead_set_size', 'Jobs in the dead set.', (s) => s.dead);
    setGauge('nexq_scheduled_set_size', 'Jobs waiting in the schedule set.', (s) => s.scheduled);
  }

  /** One Redis read per scrape, shared by the gauges collected together; undefined when Redis fails. */
  snapshot(): Promise<Snapshot | undefined> {
    this.pending ??= this.readRedis().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async readRedis(): Promise<Snapshot | undefined> {
    const { keys, clock } = this.source;
    const redis = this.source.redis();
    try {
      const queues = this.source.queues();
      const [infos, retry, dead, scheduled] = await Promise.all([
        queueInfo({ redis, keys, clock }, queues),
        jobSetSize(redis, keys, 'retry', queues),
        jobSetSize(redis, keys, 'dead', queues),
        jobSetSize(redis, keys, 'schedule', queues),
      ]);
      return { queues: infos, retry, dead, scheduled };
    } catch (err) {
      this.source.onError(err as Error);
      return undefined;
    }
  }
}

/**
 * Serves `registry` in Prometheus' text format; for any HTTP server's `/metrics` route. Never
 * rejects; a failed collection answers a plain 500 and its error goes to `onError` (the log), not
 * to the scraper.
 */
export function registryHandler(registry: Registry, onError: (err: Error) => void): MetricsHandler {
  return async (_req, res) => {
    let body: string;
    try {
      body = await registry.metrics();
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('metrics failed; the server log has the details\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': registry.contentType });
    res.end(body);
  };
}

/** A registry of the cluster-wide gauges alone, and `nexq_redis_up`; its handler serves it. */
export function clusterMetrics(source: ClusterSource): { registry: Registry; handler: MetricsHandler } {
  const registry = new Registry();
  const gauges = new ClusterGauges(registry, source);
  new Gauge({
    name: 'nexq_redis_up',
    help: '1 when the last scrape could read Redis, else 0.',
    registers: [registry],
    async collect() {
      this.set((await gauges.snapshot()) ? 1 : 0);
    },
  });
  return { registry, handler: registryHandler(registry, source.onError) };
}
