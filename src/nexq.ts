// The public API, Exq's in camelCase: start a node, enqueue jobs, manage subscriptions, stop.
import { resolveQueue, ResolvedQueue } from '../config/validate';
import type { Enqueuer, EnqueueRequest } from './actors/enqueuer';
import type { Manager, ManagerCall } from './actors/manager';
import type { JobOptions } from './job/job';
import { ActorNames } from './node-context';
import { NexqNode, NodeStartOptions } from './node';

export type NexqStartOptions = NodeStartOptions;

/** One job for `enqueueAll`: at most one of `at` and `in`. */
export interface BulkJob {
  queue: string;
  class: string;
  args: unknown[];
  at?: Date;
  in?: number;
  options?: JobOptions;
}

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
    return this.enqueuer.enqueueAll(jobs as EnqueueRequest[]);
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
