// Every Redis key nexq touches is built here, in Exq's layout (which is Sidekiq's plus a prefix).
//   <ns>:queues                        set of known queue names
//   <ns>:queue:<q>                     list; producers LPUSH, consumers take from the right
//   <ns>:queue:backup::<node>::<q>     list of the jobs node <node> has taken from <q> and not finished
//   <ns>:schedule, :retry, :dead       sorted sets scored by epoch seconds (float)
//   <ns>:stat:processed[:YYYY-MM-DD]   counters, and :stat:failed[...] likewise
//   <ns>:processes                     set of live process identities
//   <ns>:<identity>                    hash: info, busy, beat, quiet (Sidekiq's process entry)
//   <ns>:<identity>:workers            hash: one field per running job
//   <ns>:nexq:nodes                    sorted set: node id -> last beat (nexq's own, for recovery)
//   <ns>:nexq:node-identities          hash: node id -> process identity (nexq's own)
//   <ns>:nexq:periodic:<id>            string: epoch seconds of the last tick enqueued of a periodic job
//   <ns>:nexq:jobs                     hash: jid -> deliveries and where the job is (src/redis/job-index.ts)
//   <ns>:nexq:running:<q>              hash: node id -> jobs of queue <q> running there (global limits)
//   <ns>:nexq:running-class:<class>    hash: node id -> jobs of class <class> running there
//   <ns>:nexq:cancel                   pub/sub channel: jids to cancel, heard by every node
// With an empty namespace there is no prefix at all: Sidekiq's exact key names. On a Redis Cluster
// the namespace carries a hash tag ({exq}), so every key here hashes to the one slot of that tag.

export class Keys {
  private readonly prefix: string;

  constructor(readonly namespace: string) {
    this.prefix = namespace === '' ? '' : `${namespace}:`;
  }

  key(name: string): string {
    return this.prefix + name;
  }

  get queues(): string {
    return this.key('queues');
  }

  queue(queue: string): string {
    return this.key(`queue:${queue}`);
  }

  backup(nodeId: string, queue: string): string {
    return this.key(`queue:backup::${nodeId}::${queue}`);
  }

  /** The glob that matches every backup list of `nodeId`. */
  backupPattern(nodeId: string): string {
    // The namespace is escaped too: one like `app[1]` would otherwise match nothing it should.
    return `${globEscape(this.prefix)}queue:backup::${globEscape(nodeId)}::*`;
  }

  get schedule(): string {
    return this.key('schedule');
  }

  get retry(): string {
    return this.key('retry');
  }

  get dead(): string {
    return this.key('dead');
  }

  stat(name: 'processed' | 'failed', day?: string): string {
    return this.key(day ? `stat:${name}:${day}` : `stat:${name}`);
  }

  /** nexq's own: node id -> epoch seconds of its last beat, for dead-node recovery. */
  get nodes(): string {
    return this.key('nexq:nodes');
  }

  /** nexq's own: node id -> process identity, so a dead node's process entry can be removed. */
  get nodeIdentities(): string {
    return this.key('nexq:node-identities');
  }

  /** nexq's own: queue -> in | out | all, for paused queues. */
  get paused(): string {
    return this.key('nexq:paused');
  }

  /** nexq's own: jobs of `queue` running per node (node id -> count), for a limit across nodes. */
  running(queue: string): string {
    return this.key(`nexq:running:${queue}`);
  }

  /** nexq's own: jobs of class `className` running per node (node id -> count), for a limit across nodes. */
  classRunning(className: string): string {
    return this.key(`nexq:running-class:${className}`);
  }

  /**
   * nexq's own: jid -> how many times the job was handed to a handler (re-runs included) and where
   * it is now, kept in step by every script that moves a job.
   */
  get jobIndex(): string {
    return this.key('nexq:jobs');
  }

  /** nexq's own: the pub/sub channel that carries cancel requests to every node. */
  get cancelChannel(): string {
    return this.key('nexq:cancel');
  }

  /** nexq's own: a unique job's lock, holding its jid. */
  uniqueLock(key: string): string {
    return this.key(`nexq:unique:${key}`);
  }

  /** nexq's own: the last tick (epoch seconds) enqueued for periodic entry `id`. */
  periodic(id: string): string {
    return this.key(`nexq:periodic:${id}`);
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

  processSignals(identity: string): string {
    return this.key(`${identity}-signals`);
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** UTC day as Sidekiq writes it in per-day stat keys. */
export function statDay(date: Date = new Date()): string {
  return date.toISOString().slice(0, 10);
}
