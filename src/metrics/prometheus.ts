// Prometheus metrics of one node, in a registry of its own (two nodes in one process do not clash).
// Job counters and the duration histogram are fed by the node's job events; the gauges are read
// when scraped: queue sizes and latency, the retry/dead/schedule set sizes (one Redis round trip
// per scrape, shared by every gauge), this node's busy slots (from its work table) and how far its
// wall clock is off Redis' (its Clock's last sample, src/actors/clock-watch.ts).
//
// What this node did or holds carries a `node` label; the queue and set gauges describe the whole
// cluster (every node reads the same keys, ./cluster-gauges.ts), so they carry none:
// `max by (queue) (nexq_queue_size)` over a fleet is the backlog, where a node label would make
// `sum` count it once per node.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobEventMap } from '../events/job-events';
import type { NodeContext } from '../run/node-context';
import { errorFields } from '../runtime/logger';
import { ClusterGauges, MetricsHandler, registryHandler } from './cluster-gauges';

/** Seconds; from 5 ms to 5 minutes. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** The class label of jobs no handler is registered for, so payloads cannot make up label values. */
export { UNKNOWN_CLASS } from '../run/class-timings';
import { UNKNOWN_CLASS } from '../run/class-timings';

export type { MetricsHandler };

export class NodeMetrics {
  readonly registry = new Registry();
  private readonly processed: Counter<'queue' | 'class' | 'node'>;
  private readonly failed: Counter<'queue' | 'class' | 'node'>;
  private readonly retried: Counter<'queue' | 'class' | 'node'>;
  private readonly died: Counter<'queue' | 'class' | 'node'>;
  private readonly duration: Histogram<'queue' | 'class' | 'node'>;

  constructor(private readonly ctx: NodeContext) {
    const registers = [this.registry];
    const node = ctx.config.nodeId;
    const labelNames = ['queue', 'class', 'node'] as const;
    this.processed = new Counter({
      name: 'nexq_jobs_processed_total',
      help: 'Jobs finished on this node, failed or not.',
      labelNames,
      registers,
    });
    this.failed = new Counter({
      name: 'nexq_jobs_failed_total',
      help: 'Jobs whose run failed on this node.',
      labelNames,
      registers,
    });
    this.retried = new Counter({
      name: 'nexq_jobs_retried_total',
      help: 'Failed jobs filed in the retry set.',
      labelNames,
      registers,
    });
    this.died = new Counter({
      name: 'nexq_jobs_dead_total',
      help: 'Jobs filed in the dead set (out of retries or expired).',
      labelNames,
      registers,
    });
    this.duration = new Histogram({
      name: 'nexq_job_duration_seconds',
      help: 'Run time of a job, from start to outcome.',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    });

    const cluster = new ClusterGauges(this.registry, {
      redis: () => ctx.redis,
      keys: ctx.keys,
      clock: ctx.clock,
      queues: () => subscribedQueues(ctx),
      onError: (err) => ctx.logger.warn(`metrics: cannot read Redis: ${err.message}`, { actor: 'metrics' }),
    });
    const read = () => cluster.snapshot();
    new Gauge({
      name: 'nexq_redis_up',
      help: '1 when the last scrape could read Redis, else 0.',
      labelNames: ['node'],
      registers,
      async collect() {
        this.set({ node }, (await read()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'nexq_clock_offset_seconds',
      help: "Redis' clock minus this machine's wall clock at the last sample (nexq keeps time by Redis').",
      labelNames: ['node'],
      registers,
      collect() {
        this.set({ node }, ctx.clock.offsetSeconds);
      },
    });
    const slots = (pick: 'busy' | 'concurrency') =>
      function (this: Gauge<'queue' | 'node'>) {
        this.reset();
        const table = ctx.jobs?.running.slots;
        if (!table) return;
        for (const q of subscribedQueues(ctx)) this.set({ queue: q, node }, table[pick](q));
      };
    new Gauge({
      name: 'nexq_busy_slots',
      help: 'Jobs running on this node, per queue.',
      labelNames: ['queue', 'node'],
      registers,
      collect: slots('busy'),
    });
    new Gauge({
      name: 'nexq_slots',
      help: 'Concurrency of this node, per queue.',
      labelNames: ['queue', 'node'],
      registers,
      collect: slots('concurrency'),
    });

    ctx.events
      .on('job:success', this.onSuccess)
      .on('job:failure', this.onFailure)
      .on('job:retry', this.onRetry)
      .on('job:dead', this.onDead);
  }

  /** Serves the registry in Prometheus' text format; for any HTTP server's `/metrics` route. */
  readonly handler: MetricsHandler = registryHandler(this.registry, (err) =>
    this.ctx.logger.error(`metrics: collecting failed: ${err.message}`, { actor: 'metrics', error: errorFields(err) }),
  );

  /** Stops counting (the node stopped). */
  detach(): void {
    this.ctx.events
      .off('job:success', this.onSuccess)
      .off('job:failure', this.onFailure)
      .off('job:retry', this.onRetry)
      .off('job:dead', this.onDead);
  }

  private labels(e: { queue: string; class: string }): { queue: string; class: string; node: string } {
    const known = this.ctx.jobs?.handlers.has(e.class) ?? false;
    return { queue: e.queue, class: known ? e.class : UNKNOWN_CLASS, node: this.ctx.config.nodeId };
  }

  private readonly onSuccess = (e: JobEventMap['job:success']) => {
    const labels = this.labels(e);
    this.processed.inc(labels);
    this.duration.observe(labels, e.durationMs / 1000);
  };

  private readonly onFailure = (e: JobEventMap['job:failure']) => {
    const labels = this.labels(e);
    this.processed.inc(labels);
    this.failed.inc(labels);
    this.duration.observe(labels, e.durationMs / 1000);
  };

  private readonly onRetry = (e: JobEventMap['job:retry']) => this.retried.inc(this.labels(e));
  private readonly onDead = (e: JobEventMap['job:dead']) => this.died.inc(this.labels(e));
}

/** The queues this node serves now, read from the shared work table (none in enqueuer mode). */
function subscribedQueues(ctx: NodeContext): string[] {
  return (ctx.jobs?.running.slots.subscribed() ?? []).map((q) => q.name);
}
