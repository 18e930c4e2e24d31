// Every Redis key nexq touches is listed here and built by Keys: a queue's keys in this file, the
// node-wide ones in src/redis/node-keys.ts, in the key space of src/redis/key-space.ts. Two layouts:
//
// 'shared' (the default): Exq's layout, which is Sidekiq's plus a prefix.
//   <ns>:queues                        set of known queue names
//   <ns>:queue:<q>                     list; producers LPUSH, consumers take from the right
//   <ns>:queue:backup::<node>::<q>     list of the jobs node <node> has taken from <q> and not finished
//   <ns>:schedule, :retry, :dead       sorted sets scored by epoch seconds (float)
//   <ns>:stat:processed[:YYYY-MM-DD]   counters, and :stat:failed[...] likewise
//   <ns>:processes                     set of live process identities
//   <ns>:<identity>                    hash: info, busy, beat, quiet (Sidekiq's process entry)
//   <ns>:<identity>:workers            hash: one field per running job (Sidekiq 6.4 and before)
//   <ns>:<identity>:work               the same hash, as Sidekiq 6.5, 7 and 8 read it
//   <ns>:nexq:nodes                    sorted set: node id -> last beat (nexq's own, for recovery)
//   <ns>:heartbeats                    sorted set: Exq node id -> last beat, Exq's own (heartbeat_enable);
//                                      nexq reads it to recover dead Exq nodes (src/redis/exq-recovery.ts)
//   <ns>:nexq:node-identities          hash: node id -> process identity (nexq's own)
//   <ns>:nexq:node-claim:<id>          string: the process holding default node id <id> (src/node/node-claim.ts)
//   <ns>:nexq:tree:<identity>          string: the node's supervision tree, JSON (nexq's own)
//   <ns>:nexq:periodic:<id>            string: epoch seconds of the last tick enqueued of a periodic job
//   <ns>:nexq:schedules                hash: name -> JSON of a schedule set at run time (nexq.schedules)
//   <ns>:nexq:jobs                     hash: jid -> deliveries and where the job is (src/redis/job-index.ts)
//   <ns>:nexq:paused                   hash: queue -> in | out | all
//   <ns>:nexq:unique:<key>             string: the jid holding a unique lock
//   <ns>:nexq:running:<q>              hash: node id -> jobs of queue <q> running there (global limits)
//   <ns>:nexq:running-class:<class>    hash: node id -> jobs of class <class> running there
//   <ns>:nexq:rate-starts:<q>          sorted set: queue <q>'s rate limit and pause, the starts in
//                                      its window by Redis ms (src/redis/lua/_prelude.lua; expires when idle)
//   <ns>:nexq:rate-starts-class:<class> sorted set: likewise for a class's rate limit
//   <ns>:nexq:fair:<q>                 sorted set: a fair queue's jobs by group, members <group>\0<seq>\0<job>
//   <ns>:nexq:fair-groups:<q>          hash: group -> its jobs waiting in nexq:fair:<q> ('' the default group)
//   <ns>:nexq:fair-ring:<q>            list: the fair queue's groups with jobs, in their turn (lua/_fair.lua)
//   <ns>:nexq:fair-seq:<q>             string: the last sequence number given to a job of the fair queue
//   <ns>:nexq:group-running:<q>:<g>    hash: node id -> jobs of group <g> of fair queue <q> running there
//   <ns>:nexq:rate-starts-group:<q>:<g> sorted set: group <g>'s rate limit (groupRateLimit), as a queue's
//   <ns>:nexq:fair-paused:<q>          set: the fair queue's paused groups (lua/fair-pause.lua)
//   <ns>:nexq:group-starts:<q>:<m>     hash: group -> jobs of fair queue <q> the fetch took in minute <m>
//                                      (Redis ms / 60000), expiring after an hour (recent throughput)
//   <ns>:nexq:fair-parked:<q>          list: its groups at their groupConcurrency, out of the ring (lua/_fair.lua)
//   <ns>:nexq:clearing:<key>           a queue or set being cleared, <key> its name without <ns>: (lua/clear-*.lua)
//   <ns>:nexq:cancel                   pub/sub channel: jids to cancel, heard by every node
//   <ns>:nexq:wake                     pub/sub channel: queue keys that just received jobs (idle nodes wake)
//   <ns>:nexq:result:<jid>             string: a job's kept result (JSON), with its TTL (keepResult)
//   <ns>:nexq:results                  pub/sub channel: jids whose result was just kept (waitFor)
//   <ns>:nexq:processed:<q>            string: jobs of <q> processed, failures included, counted by the
//                                      script that takes each off its backup list (`nexq drain`)
//   <ns>:nexq:metrics:<YYYY-MM-DDTHH:MM> hash: per-class counts and durations of one UTC minute
//                                      (src/redis/class-metrics.ts), expiring after a few hours
//   <ns>:nexq:queue-metrics:<YYYY-MM-DDTHH:MM> hash: queue -> its jobs processed in one UTC minute
//                                      (src/redis/queue-metrics.ts: a queue's recent rate), likewise
//   <ns>:nexq:batch:<bid>              hash: a batch's description, counts, callbacks (src/redis/batch-scripts.ts)
//   <ns>:nexq:batch:<bid>:pending      set: members (jids, `batch:<bid>` of children) not succeeded yet
//   <ns>:nexq:batch:<bid>:failed, :dead  sets: members that failed (not succeeded since), that died
//   <ns>:nexq:batches                  sorted set: bid -> created at, for listings
//   <ns>:nexq:batch-fired:<bid>:<ev>   string: callback <ev> of batch <bid> was pushed (once, across nodes)
// With an empty namespace there is no prefix at all: Sidekiq's exact key names. On a Redis Cluster
// a namespace that carries a hash tag ({exq}) puts every key in the one slot of that tag.
//
// 'per-queue' (Redis Cluster with an untagged namespace, issue #9): every key of one queue carries
// the queue's hash tag, so each queue lives in one slot and the queues spread over the masters:
//   <ns>:queue:{q}   <ns>:queue:backup::<node>::{q}   <ns>:schedule:{q}   <ns>:retry:{q}
//   <ns>:dead:{q}    <ns>:nexq:running:{q}   <ns>:nexq:jobs:{q}   <ns>:nexq:paused:{q} (hash, field q)
//   <ns>:nexq:processed:{q}   <ns>:nexq:rate-starts:{q}   <ns>:nexq:fair:{q} (and fair-groups, fair-ring,
//   fair-seq, fair-paused, fair-parked, group-running, rate-starts-group, group-starts: a fair queue's keys stay
//   in its slot)
//   <ns>:nexq:rate-starts-class:{q}:<class> (each queue counts a class's rate apart)
//   <ns>:nexq:unique:{q}:<key>   <ns>:nexq:periodic:{q}:<id>   <ns>:nexq:batch-fired:{q}:<bid>:<ev>
// a batch's keys carry its own tag, <ns>:nexq:batch:{<bid>}[:pending|:failed|:dead] (one slot per batch),
// and every other key is prefixed {<ns>}: (one slot for the node-wide keys: processes, stats, node
// beats). A script then touches the keys of one queue (or the node-wide ones) only. Sidekiq and Exq
// cannot read this layout (docs/compatibility.md).
import { KeyLayoutError } from './errors';
import { globEscape } from './key-space';
import { NodeKeys } from './node-keys';
export { KeyLayoutError };
export { statDay } from './node-keys';

import type { KeyLayout } from '../../config/defaults';

export type { KeyLayout };
export type JobSet = 'schedule' | 'retry' | 'dead';

export class Keys extends NodeKeys {
  queue(queue: string): string {
    return this.ofQueue('queue:', queue);
  }

  backup(nodeId: string, queue: string): string {
    return this.ofQueue(`queue:backup::${nodeId}::`, queue);
  }

  /**
   * Where a clear moves a queue or set (`key`, one of this namespace's) in one step, to forget its
   * jobs a stretch at a time (lua/clear-detach.lua): in its slot, as the hash tag stays.
   */
  clearing(key: string): string {
    return `${this.queuePrefix}nexq:clearing:${key.slice(this.queuePrefix.length)}`;
  }

  /** The glob that matches every backup list of `nodeId`. */
  backupPattern(nodeId: string): string {
    // The namespace is escaped too: one like `app[1]` would otherwise match nothing it should.
    return `${globEscape(this.queuePrefix)}queue:backup::${globEscape(nodeId)}::*`;
  }

  /** The glob that matches every backup list of every node. */
  get anyBackupPattern(): string {
    return `${globEscape(this.queuePrefix)}queue:backup::*`;
  }

  /**
   * The node and queue of a backup list's key (of `nodeId`'s lists only, when given: a node id
   * may itself hold '::'); undefined for a key that is not one.
   */
  parseBackup(key: string, nodeId?: string): { nodeId: string; queue: string } | undefined {
    const head = `${this.queuePrefix}queue:backup::${nodeId === undefined ? '' : `${nodeId}::`}`;
    if (!key.startsWith(head)) return undefined;
    const rest = key.slice(head.length);
    const at = nodeId !== undefined ? -2 : rest.lastIndexOf(this.perQueue ? '::{' : '::');
    if (at === 0 || at === -1) return undefined;
    let queue = rest.slice(at + 2);
    if (this.perQueue) {
      if (!queue.startsWith('{') || !queue.endsWith('}')) return undefined;
      queue = queue.slice(1, -1);
    }
    return queue === '' ? undefined : { nodeId: nodeId ?? rest.slice(0, at), queue };
  }

  /** The schedule, retry or dead set that holds `queue`'s jobs. */
  jobSet(set: JobSet, queue: string): string {
    return this.sharedOrOfQueue(set, queue);
  }

  schedule(queue: string): string {
    return this.jobSet('schedule', queue);
  }

  retry(queue: string): string {
    return this.jobSet('retry', queue);
  }

  dead(queue: string): string {
    return this.jobSet('dead', queue);
  }

  /** Every distinct key of `set` for these queues: one key in the shared layout, one per queue in the other. */
  jobSets(set: JobSet, queues: Iterable<string>): Array<{ key: string; queue?: string }> {
    if (!this.perQueue) return [{ key: this.key(set) }];
    return [...new Set(queues)].sort().map((queue) => ({ key: this.jobSet(set, queue), queue }));
  }

  /**
   * nexq's own: jobs of `queue` processed (failures included), added to by the same script that takes
   * each job off its backup list, so it never disagrees with the backup lists (`nexq drain`).
   */
  processed(queue: string): string {
    return this.ofQueue('nexq:processed:', queue);
  }

  /** nexq's own: hash queue -> in | out | all, for paused queues (one hash per queue in the per-queue layout). */
  paused(queue: string): string {
    return this.sharedOrOfQueue('nexq:paused', queue);
  }

  /** nexq's own: jobs of `queue` running per node (node id -> count), for a limit across nodes. */
  running(queue: string): string {
    return this.ofQueue('nexq:running:', queue);
  }

  /** nexq's own: jobs of class `className` running per node (node id -> count), for a limit across nodes. */
  classRunning(className: string): string {
    if (this.perQueue)
      throw new KeyLayoutError(
        'class limits across nodes need every queue in one slot: the per-queue key layout has none',
      );
    return this.key(`nexq:running-class:${className}`);
  }

  /** nexq's own: `queue`'s rate limit and pause (the starts in its window, src/redis/lua/_prelude.lua). */
  rate(queue: string): string {
    return this.ofQueue('nexq:rate-starts:', queue);
  }

  /**
   * nexq's own: the keys a fair queue (`fair: true`) keeps its waiting jobs in by group, all in the
   * queue's slot; its list (`queue`) stays the inbox producers push into (lua/_fair.lua).
   */
  fair(queue: string): FairKeys {
    return {
      jobs: this.ofQueue('nexq:fair:', queue),
      groups: this.ofQueue('nexq:fair-groups:', queue),
      ring: this.ofQueue('nexq:fair-ring:', queue),
      seq: this.ofQueue('nexq:fair-seq:', queue),
      running: this.ofQueue('nexq:group-running:', queue),
      rate: this.ofQueue('nexq:rate-starts-group:', queue),
      paused: this.ofQueue('nexq:fair-paused:', queue),
      starts: this.ofQueue('nexq:group-starts:', queue),
      parked: this.ofQueue('nexq:fair-parked:', queue),
    };
  }

  /**
   * nexq's own: jobs of `group` of fair queue `queue` running per node (node id -> count), for its
   * `groupConcurrency`: `<fair(queue).running>:<group>`, in the queue's slot ('' the default group).
   */
  groupRunning(queue: string, group: string): string {
    return this.ofQueue('nexq:group-running:', queue, `:${group}`);
  }

  /**
   * nexq's own: class `className`'s rate limit and pause as the fetch from `queue` checks it: one
   * for every queue in the shared layout; in the per-queue layout each queue's own (its slot).
   */
  classRate(className: string, queue: string): string {
    return this.perQueue
      ? this.ofQueue('nexq:rate-starts-class:', queue, `:${className}`)
      : this.key(`nexq:rate-starts-class:${className}`);
  }

  /**
   * nexq's own: jid -> how many times the job was handed to a handler (re-runs included) and where
   * it is now, kept in step by every script that moves a job (one index per queue in the per-queue layout).
   */
  jobIndex(queue: string): string {
    return this.sharedOrOfQueue('nexq:jobs', queue);
  }

  /** Every distinct job index for these queues. */
  jobIndexes(queues: Iterable<string>): Array<{ key: string; queue?: string }> {
    if (!this.perQueue) return [{ key: this.key('nexq:jobs') }];
    return [...new Set(queues)].sort().map((queue) => ({ key: this.jobIndex(queue), queue }));
  }

  /**
   * nexq's own: the pub/sub channel on which the scripts that push jobs into a queue name its key
   * (`nexq_wake` in lua/_prelude.lua, which derives it from the queue key by the same rule: the
   * text before the key's first `queue:`, then `nexq:wake`; `<ns>:nexq:wake` in both layouts).
   */
  get wakeChannel(): string {
    const queueKey = this.queue('q');
    return `${queueKey.slice(0, queueKey.indexOf('queue:'))}nexq:wake`;
  }

  /** nexq's own: a unique job's lock, holding its jid (unique within its queue in the per-queue layout). */
  uniqueLock(key: string, queue: string): string {
    return this.perQueue ? this.ofQueue('nexq:unique:', queue, `:${key}`) : this.key(`nexq:unique:${key}`);
  }

  /** nexq's own: the last tick (epoch seconds) enqueued for periodic entry `id` into `queue`. */
  periodic(id: string, queue: string): string {
    return this.perQueue ? this.ofQueue('nexq:periodic:', queue, `:${id}`) : this.key(`nexq:periodic:${id}`);
  }

  /**
   * nexq's own: batch `bid`'s hash (`part` absent) or its member sets, all in one slot (the batch's
   * own tag in the per-queue layout). Undefined for a bid that cannot be a hash tag there.
   */
  batch(bid: string, part?: 'pending' | 'failed' | 'dead'): string | undefined {
    const suffix = part ? `:${part}` : '';
    if (!this.perQueue) return this.key(`nexq:batch:${bid}${suffix}`);
    return bid === '' || /[{}]/.test(bid) ? undefined : `${this.queuePrefix}nexq:batch:{${bid}}${suffix}`;
  }

  /** nexq's own: set once callback `event` of batch `bid` was pushed into `queue` (in the queue's slot). */
  batchFired(queue: string, bid: string, event: string): string {
    return this.perQueue
      ? this.ofQueue('nexq:batch-fired:', queue, `:${bid}:${event}`)
      : this.key(`nexq:batch-fired:${bid}:${event}`);
  }
}

/** A fair queue's keys besides its list (Keys#fair). */
export interface FairKeys {
  /** Sorted set, every score 0: `<group>\0<seq>\0<job>`, so a group's oldest job comes first by lex range. */
  jobs: string;
  /** Hash: group -> jobs of it in `jobs`. */
  groups: string;
  /** List: the groups with jobs, in their turn. */
  ring: string;
  /** String: the last sequence number given. */
  seq: string;
  /** The prefix of its groups' running hashes (groupConcurrency): `<running>:<group>`, node -> count. */
  running: string;
  /** The prefix of its groups' rate keys (groupRateLimit): `<rate>:<group>`, as a queue's rate key. */
  rate: string;
  /** Set: its paused groups, whose jobs stay out of the ring. */
  paused: string;
  /**
   * The prefix of its per-minute start counts: `<starts>:<minute>` (Redis ms / 60000), a hash group ->
   * jobs the fetch took in that minute, expiring an hour after its first count (src/admin/groups.ts).
   */
  starts: string;
  /** List: groups a fetch found at their groupConcurrency, out of the ring until one finds room again. */
  parked: string;
}
