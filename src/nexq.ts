// The public API, Exq's in camelCase: start a node, enqueue jobs, manage subscriptions, stop.
import { resolveQueue, ResolvedQueue } from '../config/validate';
import { pausedQueues, pauseQueue, PauseMode, resumeQueue } from './admin/pause';
import type { Enqueuer, EnqueueRequest, EnqueueResult } from './actors/enqueuer';
import type { Manager, ManagerCall } from './actors/manager';
import type { JobOptions } from './job/job';
import { ActorNames } from './node-context';
import { NexqNode, NodeStartOptions } from './node';

export type NexqStartOptions = NodeStartOptions;
export type { PauseMode };

/** One job for `enqueueAll`: at most one of `at` and `in`. */
export type BulkJob = EnqueueRequest;

export class Nexq {
  private constructor(readonly node: NexqNode) {}

  /** Starts a node: a full worker node, or a producer only with `mode: 'enqueuer'`. */
  static async start(options: NexqStartOptions = {}): Promise<Nexq> {
    return new Nexq(await NexqNode.start(options));
  }

  /** Enqueues a job now; resolves to its jid. */
  enqueue(queue: string, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.enqueuer.enqueue({ queue, class: className, args, options });
  }

  /** Enqueues a job to run at `date`. */
  enqueueAt(queue: string, date: Date, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.enqueuer.enqueue({ queue, class: className, args, at: date, options });
  }

  /** Enqueues a job to run `seconds` from now. */
  enqueueIn(queue: string, seconds: number, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.enqueuer.enqueue({ queue, class: className, args, in: seconds, options });
  }

  /** Enqueues every job or none, in one round trip; resolves to their jids in order. */
  enqueueAll(jobs: BulkJob[]): Promise<string[]> {
    return this.enqueuer.enqueueAll(jobs);
  }

  /** Like `enqueue`, saying whether a `unique` lock sent it to an existing job (`conflict`, with that jid). */
  async enqueueResult(queue: string, className: string, args: unknown[] = [], options?: JobOptions): Promise<EnqueueResult> {
    const [result] = await this.enqueuer.enqueueAllResults([{ queue, class: className, args, options }]);
    return result;
  }

  /**
   * Pauses `queue` on every node (Disque's PAUSE): 'in' refuses enqueues with QueuePausedError,
   * 'out' stops every node fetching from it, 'all' both. Jobs already running finish.
   */
  pause(queue: string, mode: PauseMode = 'all'): Promise<void> {
    return pauseQueue(this.node.ctx, queue, mode);
  }

  resume(queue: string): Promise<void> {
    return resumeQueue(this.node.ctx, queue);
  }

  /** Paused queues and how (shared by every node). */
  paused(): Promise<Record<string, PauseMode>> {
    return pausedQueues(this.node.ctx);
  }

  /**
   * Resolves once this node's subscribed queues are empty and nothing runs here (gocraft's Drain),
   * for tests and batch scripts. Scheduled and retrying jobs are not waited for.
   */
  async drain(pollMs = 20): Promise<void> {
    const { ctx } = this.node;
    if (ctx.config.mode !== 'default') throw new Error('drain needs a worker node; this one runs in enqueuer mode');
    const { keys, redis, config } = ctx;
    for (;;) {
      const queues = (await this.subscriptions()).map((q) => q.name);
      // A job is queued, or in this node's backup list from its fetch until it is settled.
      const lengths = await Promise.all(queues.flatMap((q) => [redis.llen(keys.queue(q)), redis.llen(keys.backup(config.nodeId, q))]));
      if (lengths.every((n) => n === 0) && ctx.workers!.workTable.totalBusy() === 0) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Starts serving `queue` on this node (Exq's subscribe). */
  async subscribe(queue: string, concurrency?: number): Promise<void> {
    // Checked here: a bad name thrown inside the manager's call would crash it and lose every
    // subscription made at run time. Throws ConfigError.
    resolveQueue({ name: queue, concurrency }, 1, 'queue');
    await this.managerCall({ type: 'subscribe', queue, concurrency });
  }

  /** Stops fetching from `queue`; its running jobs finish. */
  async unsubscribe(queue: string): Promise<void> {
    await this.managerCall({ type: 'unsubscribe', queue });
  }

  async unsubscribeAll(): Promise<void> {
    await this.managerCall({ type: 'unsubscribe_all' });
  }

  /** The queues this node serves and their concurrency. */
  subscriptions(): Promise<ResolvedQueue[]> {
    return this.managerCall({ type: 'subscriptions' }) as Promise<ResolvedQueue[]>;
  }

  /** Graceful stop; jobs still running after `shutdownTimeout` run again after the next boot. */
  stop(): Promise<void> {
    return this.node.stop();
  }

  private get enqueuer(): Enqueuer {
    return this.node.ctx.registry.lookup<Enqueuer>(ActorNames.enqueuer);
  }

  private managerCall(msg: ManagerCall): Promise<unknown> {
    if (this.node.ctx.config.mode !== 'default') {
      return Promise.reject(new Error('subscriptions need a worker node; this one runs in enqueuer mode'));
    }
    return this.node.ctx.registry.lookup<Manager>(ActorNames.manager).call(msg);
  }
}
