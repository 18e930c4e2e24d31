// A batch of jobs with callbacks (Sidekiq Pro's Batch): `nexq.batch({ onComplete, onSuccess,
// onDeath })`, then jobs added to it. Its members are registered before they are enqueued
// (src/redis/batch-scripts.ts), and while a producer adds them the batch is held open, so it cannot
// complete half-built even when its first jobs finish before the last are added. The node counts
// each job as it settles (src/run/batch-step.ts) and pushes each callback once.
import { v4 as uuidv4 } from 'uuid';
import type { EnqueueRequest } from '../job/new-jobs';
import { encodeNewJob, InvalidJobError, JobOptions } from '../job/job';
import { isQueueName } from '../../config/queue-options';
import { addToBatch, BATCH_TTL_SECONDS, BatchEvent, childMember } from '../redis/batch-scripts';
import type { Enqueuer, EnqueueResult } from '../actors/enqueuer';
import { ActorNames, NodeContext } from '../run/node-context';
import { BatchContext, settleInBatch } from '../run/batch-step';
import { Encryption, KeyRing, wantsEncryption } from '../job/encryption';
import { batchStatus, BatchStatus } from './batch-status';
import { activeTrace, tracedEnqueue } from '../tracing/enqueue-span';

/** A callback: a normal job, enqueued once when its event happens; it gets `{ bid, event }` as its last arg. */
export interface BatchCallback {
  queue: string;
  class: string;
  args?: unknown[];
  /** Store the callback job's args encrypted (as its queue's or class's `encrypt` would: docs/encryption.md). */
  encrypt?: boolean;
}

export interface BatchOptions {
  description?: string;
  /** Every job ran once (those that failed may still be waiting for a retry). */
  onComplete?: BatchCallback;
  /** Every job succeeded (after retries, if any). */
  onSuccess?: BatchCallback;
  /** The first job of the batch died (dead set, or a failure not retried). */
  onDeath?: BatchCallback;
  /** Seconds the batch's data lives after its last step (default 30 days). */
  expiresIn?: number;
}

/** A job of `enqueueAll`: at most one of `at` and `in`. */
export type BatchJob = Omit<EnqueueRequest, 'bid'>;

const RELEASE_ATTEMPTS = 5;

type Enqueue = (requests: EnqueueRequest[]) => Promise<EnqueueResult[]>;

const EVENTS: Array<[BatchEvent, keyof BatchOptions]> = [
  ['complete', 'onComplete'],
  ['success', 'onSuccess'],
  ['death', 'onDeath'],
];

/** A new batch on the node of `ctx`, its jobs written by the node's Enqueuer. */
export function newBatch(ctx: NodeContext, options: BatchOptions = {}): Batch {
  return new Batch(ctx, enqueuerOf(ctx), options);
}

/** Batch `bid`, which exists already: what a handler's `this.batch` adds to. */
export function joinBatch(ctx: NodeContext, bid: string): Batch {
  return new Batch(ctx, enqueuerOf(ctx), {}, undefined, bid, true);
}

/** Writes through the node's Enqueuer in a producer span, as `Nexq#enqueue` does. */
function enqueuerOf(ctx: NodeContext): Enqueue {
  return (requests) =>
    tracedEnqueue(requests, (traced) => ctx.registry.lookup<Enqueuer>(ActorNames.enqueuer).enqueueAllResults(traced));
}

export class Batch {
  private readonly createdAt: number;

  constructor(
    private readonly ctx: BatchContext,
    private readonly write: Enqueue,
    private readonly options: BatchOptions = {},
    /** The bid of the batch this one is a child of. */
    readonly parent?: string,
    readonly bid: string = uuidv4(),
    /** Set once the batch exists in Redis (and its parent holds it). */
    private created = false,
  ) {
    this.createdAt = ctx.clock.now();
    // Refuses bad options now, not at the first enqueue.
    fieldsOf(this.bid, options, parent, this.createdAt, ctx.encryption);
  }

  /** Adds one job; resolves to its jid. */
  async enqueue(queue: string, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    const [jid] = await this.enqueueAll([{ queue, class: className, args, options }]);
    return jid;
  }

  /**
   * Adds jobs, registered in the batch before they are written; resolves to their jids. A job a
   * `unique` lock sent to an existing job is not a member (its jid is the holder's).
   */
  enqueueAll(jobs: BatchJob[]): Promise<string[]> {
    return this.jobs(() => this.add(jobs));
  }

  /**
   * Holds the batch open while `fill` adds jobs (and child batches) one call at a time: it cannot
   * complete before `fill` ends, however quickly its first jobs run (Sidekiq Pro's `batch.jobs`).
   */
  async jobs<T>(fill: () => Promise<T>): Promise<T> {
    const hold = uuidv4();
    await this.create({ hold });
    try {
      return await fill();
    } finally {
      await this.release(hold);
    }
  }

  /** Lets go of a hold, retried a few times: a hold never released keeps the batch open for ever. */
  private async release(hold: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await settleInBatch(this.ctx, this.bid, hold, 'release');
        return;
      } catch (err) {
        if (attempt >= RELEASE_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /** A child batch: its parent completes only after it does (and succeeds only if it does). */
  child(options: BatchOptions = {}): Batch {
    return new Batch(this.ctx, this.write, options, this.bid);
  }

  /** Counts and failures; undefined once the batch expired. */
  status(): Promise<BatchStatus | undefined> {
    return batchStatus(this.ctx, this.bid);
  }

  private async add(jobs: BatchJob[]): Promise<string[]> {
    if (!Array.isArray(jobs)) throw new InvalidJobError('enqueueAll takes an array of jobs');
    const requests: EnqueueRequest[] = jobs.map((job) => ({
      ...checkedJob(job),
      options: { ...job.options, jid: job.options?.jid ?? uuidv4() },
      bid: this.bid,
    }));
    const jids = requests.map((r) => r.options?.jid as string);
    await addToBatch(this.ctx.redis, this.ctx.keys, this.bid, { members: jids });
    let results: EnqueueResult[];
    try {
      results = await this.write(requests);
    } catch (err) {
      // None written (or, per-queue, maybe some: those stay members and run): forget the rest.
      const written = new Set(
        ((err as { written?: Array<{ jid: string } | undefined> }).written ?? []).map((w) => w?.jid),
      );
      for (const jid of jids) if (!written.has(jid)) await settleInBatch(this.ctx, this.bid, jid, 'forget');
      throw err;
    }
    for (const [i, result] of results.entries())
      if (result.conflict) await settleInBatch(this.ctx, this.bid, jids[i], 'forget');
    return results.map((r) => r.jid);
  }

  private async create(add: { hold: string }): Promise<void> {
    if (!this.created && this.parent !== undefined)
      await addToBatch(this.ctx.redis, this.ctx.keys, this.parent, { members: [childMember(this.bid)] });
    // The callbacks continue the trace of the code that creates the batch (its first enqueue).
    const fields = this.created
      ? undefined
      : fieldsOf(this.bid, this.options, this.parent, this.createdAt, this.ctx.encryption, activeTrace());
    await addToBatch(this.ctx.redis, this.ctx.keys, this.bid, { ...add, fields });
    if (!this.created) await this.ctx.redis.zadd(this.ctx.keys.batches, this.createdAt, this.bid);
    this.created = true;
  }
}

/** A job of enqueueAll as JavaScript callers may pass it: an object, or InvalidJobError. */
function checkedJob(job: BatchJob): BatchJob {
  const given: unknown = job;
  if (typeof given !== 'object' || given === null)
    throw new InvalidJobError('each job must be an object { queue, class, args }');
  return job;
}

/** The ring to encrypt a callback job with, when it, its queue or its class asks; InvalidJobError without keys. */
function callbackSeal(encryption: Encryption | undefined, callback: BatchCallback): KeyRing | undefined {
  if (!wantsEncryption(encryption, callback.queue, callback.class, callback)) return undefined;
  if (!encryption?.ring)
    throw new InvalidJobError(
      `batch callback ${callback.class} asks for encrypted args, but no encryptionKeys are configured`,
    );
  return encryption.ring;
}

/** The hash fields a batch is created with: description, parent, ttl and each callback's job (with `trace`). */
function fieldsOf(
  bid: string,
  options: BatchOptions,
  parent: string | undefined,
  now: number,
  encryption: Encryption | undefined,
  trace?: Record<string, string>,
): Record<string, string> {
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) throw new InvalidJobError('batch options must be an object');
  const ttl = options.expiresIn ?? BATCH_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl <= 0)
    throw new InvalidJobError('batch expiresIn must be a whole number of seconds > 0');
  const fields: Record<string, string> = {
    created_at: String(now),
    description: options.description ?? '',
    ttl: String(ttl),
    parent: parent ?? '',
  };
  for (const [event, option] of EVENTS) {
    const callback = options[option] as unknown as BatchCallback | null | undefined;
    if (callback === undefined) continue;
    if (typeof callback !== 'object' || callback === null || !isQueueName(callback.queue))
      throw new InvalidJobError(`batch ${option} needs { queue, class, args? } with a valid queue name`);
    fields[`cb:${event}`] = encodeNewJob(
      callback.queue,
      callback.class,
      [...(callback.args ?? []), { bid, event }],
      {},
      { now, trace, seal: callbackSeal(encryption, callback) },
    ).json;
  }
  return fields;
}
