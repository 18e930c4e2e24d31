// The settle scripts' wrappers: what a fetched job holds until it is settled, and the one script
// call that files each fate (ack, ack-batch, requeue-job, release, fail; throttle for a rateLimited
// run), each taking the job off its backup list in the same step (docs/internals.md, step 7).
//
// AckBatcher: acks of plain jobs (no unique lock, no running slot) collected for one turn of the
// event loop and sent as one ack-batch.lua call: one command and one reply for many acks instead of
// one each. Each ack still resolves on its own, true when its job was taken off its backup list. In
// the per-queue key layout each queue's acks are a call of their own and resolve with it: a queue
// whose cluster slot is moving (its call waits for the move to end) holds back no other's.
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { fromReply } from './errors';
import { formatScore, groupIndexes, runScript } from './scripts';

/** What a fetched job holds until it is settled, besides its backup entry. */
export interface Held {
  /** Running hashes it holds a slot in (its queue's, its class's), and this node's id. */
  slots: string[];
  nodeId: string;
  /** Its unique lock and jid, when the lock is to be released with this step. */
  lock?: { lockKey: string; jid: string };
}

export interface PlainAck {
  queue: string;
  backup: string;
  raw: string;
  jid: string;
}

/**
 * Acks many plain jobs in one call (one per queue in the per-queue key layout, sent together); per
 * job 1 (acked), 0 (gone) or the message of a broken backup key.
 */
export async function ackBatch(client: RedisClient, keys: Keys, acks: PlainAck[]): Promise<Array<number | string>> {
  const results: Array<number | string> = [];
  const groups = groupIndexes(acks, (a) => keys.group(a.queue));
  const call = (part: PlainAck[]) =>
    runScript(
      client,
      'ack-batch',
      [keys.jobIndex(part[0].queue), ...part.map((a) => a.backup), ...part.map((a) => keys.processed(a.queue))],
      part.flatMap((a) => [a.raw, a.jid]),
    ) as Promise<Array<number | string>>;
  if (groups.size === 1) return call(acks);
  await Promise.all(
    [...groups.values()].map(async (members) => {
      // A call that fails (its master away) fails its own acks only: their job runners try them again.
      const acked = await call(members.map((i) => acks[i])).catch((err: unknown) =>
        members.map(() => fromReply(err).message),
      );
      acked.forEach((result, k) => (results[members[k]] = result));
    }),
  );
  return results;
}

/** Most acks in one script call (bounds the call's size and how long it holds Redis). */
const MAX_BATCH = 500;

interface PendingAck {
  queue: string;
  backup: string;
  raw: string;
  jid: string;
  resolve: (acked: boolean) => void;
  reject: (err: Error) => void;
}

export class AckBatcher {
  private pending: PendingAck[] = [];
  private flushScheduled = false;

  /** `redis` is asked at each call: the node replaces a client ioredis ended (src/redis/ended.ts). */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly keys: Keys,
  ) {}

  ack(queue: string, backup: string, raw: string, jid: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ queue, backup, raw, jid, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const acks = this.pending;
    this.pending = [];
    for (const members of groupIndexes(acks, (ack) => this.keys.group(ack.queue)).values()) {
      const group = members.length === acks.length ? acks : members.map((i) => acks[i]);
      for (let i = 0; i < group.length; i += MAX_BATCH) this.send(group.slice(i, i + MAX_BATCH));
    }
  }

  private send(batch: PendingAck[]): void {
    Promise.resolve()
      .then(() => ackBatch(this.redis(), this.keys, batch))
      .then(
        (results) =>
          batch.forEach((ack, i) => {
            const result = results[i];
            if (typeof result === 'number') ack.resolve(result === 1);
            else ack.reject(new Error(result));
          }),
        // The call itself failed (Redis away, a timeout): each JobRunner retries its own ack.
        (err: unknown) => {
          for (const ack of batch) ack.reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
  }
}

/**
 * Pauses starting jobs of the queue or class whose rate key is `rateKey` on every node for `ms`
 * (throttle.lua); the ms until the pause ends.
 */
export async function throttle(client: RedisClient, rateKey: string, ms: number): Promise<number> {
  return (await runScript(client, 'throttle', [rateKey], [Math.ceil(ms)])) as number;
}

/**
 * Acks a job: LREM, unindex and release in one step. False when it was gone. `keepIndex`: it runs on.
 * `processed`: its queue's processed counter, when the job counts as processed (keys.processed).
 */
export async function ackJob(
  client: RedisClient,
  jobIndex: string,
  backup: string,
  raw: string,
  jid: string,
  held: Held,
  keepIndex = false,
  processed?: string,
): Promise<boolean> {
  const keys = [backup, jobIndex, held.lock?.lockKey ?? backup, processed ?? backup, ...held.slots];
  return (
    (await runScript(client, 'ack', keys, [raw, jid, held.lock?.jid ?? '', held.nodeId, keepIndex ? 'keep' : ''])) === 1
  );
}

export interface Requeue {
  backup: string;
  queueKey: string;
  queue: string;
  raw: string;
  /** The job as it goes back (nacks raised); `raw` when absent. */
  rewritten?: string;
  /** 'back': behind the waiting jobs (nack); 'front': next in line (a job no worker ran). */
  end: 'back' | 'front';
  jid: string;
  /** Its queue's processed counter, when the job counts as processed (a nack). */
  processed?: string;
}

/** Moves one job from a backup list back into its queue, giving back its slots. */
export async function requeueJob(
  client: RedisClient,
  jobIndex: string,
  r: Requeue,
  held: Pick<Held, 'slots' | 'nodeId'>,
): Promise<boolean> {
  const keys = [r.backup, r.queueKey, jobIndex, r.processed ?? r.backup, ...held.slots];
  return (
    (await runScript(client, 'requeue-job', keys, [
      r.raw,
      r.rewritten ?? r.raw,
      r.end,
      held.nodeId,
      r.jid,
      r.queue,
    ])) === 1
  );
}

/**
 * Lets go of a unique lock if `lock.jid` still holds it, forgets `doneJid` in the index, and gives
 * back the running slots in `held` (an at-most-once job's, kept while it ran). `processed`: the
 * queue's processed counter, when the job done (taken, at most once) counts as processed.
 */
export async function releaseJob(
  client: RedisClient,
  jobIndex: string,
  lock: { lockKey: string; jid: string } | undefined,
  doneJid = '',
  held: Pick<Held, 'slots' | 'nodeId'> = { slots: [], nodeId: '' },
  processed?: string,
): Promise<boolean> {
  const keys = [lock?.lockKey ?? jobIndex, jobIndex, processed ?? jobIndex, ...held.slots];
  return (
    (await runScript(client, 'release', keys, [lock?.jid ?? '', doneJid, held.slots.length > 0 ? held.nodeId : ''])) ===
    1
  );
}

export interface FailEntry {
  backup: string;
  target: string;
  /** 'retry' or 'dead': where the index says the job is. */
  place: 'retry' | 'dead';
  raw: string;
  rewritten: string;
  /** The jid of the rewritten job. */
  jid: string;
  score: number;
  /** Dead set only: entries scored below this are dropped. */
  trimBelow?: number;
  /** Dead set only: keep at most this many entries. */
  maxEntries?: number;
  /** The slots the job holds, released with it. */
  held?: Pick<Held, 'slots' | 'nodeId'>;
  /** The job left the backup list already (at-most-once): file it regardless. */
  taken?: boolean;
  /** Its queue's processed counter, when the job counts as processed (it failed). */
  processed?: string;
}

/** Files a failed job in `target`; false when it was no longer in its backup list. */
export async function failJob(client: RedisClient, jobIndex: string, e: FailEntry): Promise<boolean> {
  const keys = [e.backup, e.target, jobIndex, e.processed ?? e.backup, ...(e.held?.slots ?? [])];
  const argv = [
    e.raw,
    e.rewritten,
    formatScore(e.score),
    e.trimBelow === undefined ? '' : formatScore(e.trimBelow),
    e.maxEntries ?? '',
    e.held?.nodeId ?? '',
    e.jid,
    e.place,
    e.taken ? 'taken' : '',
  ];
  return (await runScript(client, 'fail', keys, argv)) === 1;
}
