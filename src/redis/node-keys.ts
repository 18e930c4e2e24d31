// The node-wide keys (one slot, `{<ns>}:`, in the per-queue layout): processes and their beats,
// stats and per-minute metrics, the pub/sub channels, kept results, the run-time schedules, and the
// sets of every queue and every batch.
import { KeySpace } from './key-space';

export class NodeKeys extends KeySpace {
  get queues(): string {
    return this.key('queues');
  }

  /** nexq's own: every batch by when it was created (node-wide), for `nexq batches`. */
  get batches(): string {
    return this.key('nexq:batches');
  }

  /** Per-class metrics of one UTC minute (`YYYY-MM-DDTHH:MM`), a node-wide key. */
  classMetrics(minute: string): string {
    return this.key(`nexq:metrics:${minute}`);
  }

  /** Per-queue jobs processed in one UTC minute (`YYYY-MM-DDTHH:MM`), a node-wide key. */
  queueMetrics(minute: string): string {
    return this.key(`nexq:queue-metrics:${minute}`);
  }

  stat(name: 'processed' | 'failed', day?: string): string {
    return this.key(day ? `stat:${name}:${day}` : `stat:${name}`);
  }

  /** nexq's own: node id -> epoch seconds of its last beat, for dead-node recovery. */
  get nodes(): string {
    return this.key('nexq:nodes');
  }

  /**
   * Exq's: node id -> epoch seconds of its last beat (Exq.Redis.Heartbeat); nexq writes nothing
   * there. Exq names it `"#{namespace}:heartbeats"` whatever the namespace: `:heartbeats` for ''.
   */
  get exqHeartbeats(): string {
    return `${this.namespace}:heartbeats`;
  }

  /** nexq's own: the process that holds the default node id `nodeId`, with a time to live. */
  nodeClaim(nodeId: string): string {
    return this.key(`nexq:node-claim:${nodeId}`);
  }

  /** nexq's own: node id -> process identity, so a dead node's process entry can be removed. */
  get nodeIdentities(): string {
    return this.key('nexq:node-identities');
  }

  /** nexq's own: the pub/sub channel that carries cancel requests to every node. */
  get cancelChannel(): string {
    return this.key('nexq:cancel');
  }

  /** nexq's own: the result a job kept (its handler's return value as JSON), expiring after its keepResult. */
  result(jid: string): string {
    return this.key(`nexq:result:${jid}`);
  }

  /** nexq's own: the pub/sub channel that says which job just kept a result (waitFor listens). */
  get resultChannel(): string {
    return this.key('nexq:results');
  }

  /** nexq's own: the schedules set at run time, name -> JSON (src/redis/schedule-store.ts). */
  get schedules(): string {
    return this.key('nexq:schedules');
  }

  get processes(): string {
    return this.key('processes');
  }

  process(identity: string): string {
    return this.key(identity);
  }

  processWorkers(identity: string): string {
    return this.key(`${identity}:workers`);
  }

  /** nexq's own: the node's supervision tree (JSON), written with its heartbeat. */
  processTree(identity: string): string {
    return this.key(`nexq:tree:${identity}`);
  }

  /** The same running-jobs hash as Sidekiq 6.5 and later name it (they read this one). */
  processWork(identity: string): string {
    return this.key(`${identity}:work`);
  }

  processSignals(identity: string): string {
    return this.key(`${identity}-signals`);
  }
}

/** UTC day as Sidekiq writes it in per-day stat keys. */
export function statDay(date: Date = new Date()): string {
  return date.toISOString().slice(0, 10);
}
