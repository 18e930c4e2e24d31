// Typed jobs for TypeScript users: one definition names a job's class, queue and argument types,
// and both its producers (`enqueue`, `enqueueIn`, `enqueueAt`, `job`) and its handler (`handler`)
// are checked against it by the compiler, also when a batch (or a handler's `this.batch`) takes its
// jobs. At run time it is a thin layer over Nexq's untyped API, which plain JavaScript keeps using;
// the wire format is the same. Imports Nexq as a type only, so a handler module on a worker thread
// that imports its definition loads nothing else.
import type { BatchCallback } from './admin/batch';
import type { JobOptions } from './job/job';
import type { Batch, BulkJob, Nexq, WaitForOptions } from './nexq';
import type { ChunkContext, JobContext } from '../workers/handler-loader';
import type { BatchJobRequest, JobBatch } from '../workers/job-batch';

/**
 * What JSON keeps as it is, which is all a job's arguments may be (nexq refuses the rest at run time,
 * naming where: `args[0].when is a Date`): strings, finite numbers, booleans, null, arrays and plain
 * objects of them. `JsonSafe<T>` is `T` where it is such a type, and `never` where a part is not (a
 * Date, a bigint, undefined, a function, a symbol, a Map or Set), so `defineJob<[Date, bigint]>`
 * does not compile. Interfaces work (`defineJob<[User]>`), unlike with an index-signature JSON type.
 */
export type JsonSafe<T> = T extends string | number | boolean | null
  ? T
  : T extends bigint | symbol | undefined | Date | RegExp | ((...args: never[]) => unknown)
    ? never
    : T extends ReadonlyMap<unknown, unknown> | ReadonlySet<unknown> | Promise<unknown>
      ? never
      : T extends object
        ? { [K in keyof T]: JsonSafe<T[K]> }
        : never;

/** What a batch appends to a callback job's arguments (Sidekiq Pro's status): `{ bid, event }`. */
export interface BatchCallbackArg {
  bid: string;
  event: 'complete' | 'success' | 'death';
}

/**
 * `string` when the arguments `A` are JSON-safe; otherwise a message, which is then what the compiler
 * says the class name should be: `defineJob<[Date]>('X')` does not compile, and says why.
 */
export type ClassNameFor<A extends unknown[]> = [A] extends [JsonSafe<A>]
  ? string
  : 'defineJob: every argument type must be JSON-safe (no Date, bigint, undefined, function, Map or Set): pass date.toISOString(), String(big), plain objects';

/** A callback job's own arguments: a definition's arguments without the last, which must be a BatchCallbackArg. */
export type CallbackArgs<A extends unknown[]> = A extends [...infer Own, infer Last]
  ? Last extends BatchCallbackArg
    ? Own
    : never
  : never;

/**
 * Where a typed job is enqueued: a node, or anything that enqueues as one does (nexq/testing's
 * `createTestNexq()`, a `NexqEnqueuer`), a batch (`nexq.batch()`), or a handler's `this.batch`.
 */
export type EnqueueTarget = Pick<Nexq, 'enqueue' | 'enqueueIn' | 'enqueueAt'> | Batch | JobBatch;

/** One job of a definition, as `enqueueAll` takes it (of a Nexq, a batch or `this.batch`). */
export interface TypedJob<A extends unknown[]> extends BulkJob {
  args: A;
}

/** What `defineJob` takes besides the class name: the queue (default `default`) and default job options. */
export interface JobDefinitionOptions extends JobOptions {
  queue?: string;
}

/** A handler's `perform` for the arguments `A`, returning `R` (or a promise of it). */
export type TypedPerform<A extends unknown[], R> = (this: JobContext, ...args: A) => R | Promise<R>;

/**
 * A handler's `performMany` for the arguments `A`: one entry per job of `argsList`, in order, each
 * a result `R` or an Error failing that job alone (docs/jobs.md#many-jobs-per-call-performmany).
 */
export type TypedPerformMany<A extends unknown[], R> = (
  this: ChunkContext,
  argsList: A[],
) => Array<R | Error> | Promise<Array<R | Error>>;

export interface JobDefinition<A extends unknown[], R = unknown> {
  /** The job's `class` field: the handler registered under this name runs it. */
  readonly className: string;
  readonly queue: string;
  /** Options every enqueue of it starts from; an enqueue's own options win. */
  readonly options: Readonly<JobOptions>;
  /** Enqueues the job now (into `target`'s batch when it is one); resolves to its jid. */
  enqueue(target: EnqueueTarget, args: A, options?: JobOptions): Promise<string>;
  /** Enqueues the job to run `seconds` from now. */
  enqueueIn(target: EnqueueTarget, seconds: number, args: A, options?: JobOptions): Promise<string>;
  /** Enqueues the job to run at `date`. */
  enqueueAt(target: EnqueueTarget, date: Date, args: A, options?: JobOptions): Promise<string>;
  /** The job as `enqueueAll` takes it: `batch.enqueueAll(users.map((u) => SendEmail.job([u.email, u.id])))`. */
  job(args: A, options?: JobOptions): TypedJob<A>;
  /** The result a run of it kept (see `keepResult`), typed `R`; undefined when none is kept. */
  result(nexq: Nexq, jid: string): Promise<R | undefined>;
  /** Waits for the result of a run of it (see `Nexq#waitFor`). */
  waitFor(nexq: Nexq, jid: string, options?: WaitForOptions): Promise<R>;
  /**
   * Types a handler by this definition and gives it back:
   * `export const perform = SendEmail.handler(async function (to, id) {...})`.
   */
  handler(perform: TypedPerform<A, R>): TypedPerform<A, R>;
  /**
   * Types a `performMany` handler by this definition and gives it back:
   * `export const performMany = SendEmail.handlerMany(async function (argsList) {...})`.
   */
  handlerMany(performMany: TypedPerformMany<A, R>): TypedPerformMany<A, R>;
  /**
   * This job as a batch's callback (`onComplete`, `onSuccess`, `onDeath`), for a definition whose last
   * argument is the batch's `BatchCallbackArg`: `nexq.batch({ onComplete: ImportDone.callback(['eu']) })`
   * with `defineJob<[region: string, batch: BatchCallbackArg]>('ImportDone')`.
   */
  callback(args: CallbackArgs<A>): BatchCallback;
}

/**
 * Defines a typed job: `const SendEmail = defineJob<[to: string, userId: number]>('SendEmail', { queue: 'mail' })`.
 * `A` must be JSON-safe (`JsonSafe`); `R` types what its handler returns (what `keepResult` stores).
 */
export function defineJob<A extends unknown[], R = unknown>(
  className: ClassNameFor<A>,
  definition: JobDefinitionOptions = {},
): JobDefinition<A, R> {
  const { queue = 'default', ...defaults } = definition;
  const merged = (options?: JobOptions): JobOptions | undefined =>
    options ? { ...defaults, ...options } : Object.keys(defaults).length ? defaults : undefined;
  const job = (args: A, options?: JobOptions, when: { at?: Date; in?: number } = {}): TypedJob<A> => {
    const opts = merged(options);
    return { queue, class: className, args, ...when, ...(opts ? { options: opts } : {}) };
  };
  // A batch (or `this.batch`) takes scheduled jobs through enqueueAll only; a Nexq keeps its own calls.
  const inBatch = async (target: Batch | JobBatch, typed: TypedJob<A>): Promise<string> =>
    (await target.enqueueAll([typed as BatchJobRequest & TypedJob<A>]))[0];
  const isBatch = (target: EnqueueTarget): target is Batch | JobBatch => 'bid' in target;
  return Object.freeze({
    className,
    queue,
    options: Object.freeze({ ...defaults }),
    enqueue: (target: EnqueueTarget, args: A, options?: JobOptions) =>
      isBatch(target) ? inBatch(target, job(args, options)) : target.enqueue(queue, className, args, merged(options)),
    enqueueIn: (target: EnqueueTarget, seconds: number, args: A, options?: JobOptions) =>
      isBatch(target)
        ? inBatch(target, job(args, options, { in: seconds }))
        : target.enqueueIn(queue, seconds, className, args, merged(options)),
    enqueueAt: (target: EnqueueTarget, date: Date, args: A, options?: JobOptions) =>
      isBatch(target)
        ? inBatch(target, job(args, options, { at: date }))
        : target.enqueueAt(queue, date, className, args, merged(options)),
    job: (args: A, options?: JobOptions) => job(args, options),
    result: (nexq: Nexq, jid: string) => nexq.result(jid) as Promise<R | undefined>,
    waitFor: (nexq: Nexq, jid: string, options?: WaitForOptions) => nexq.waitFor(jid, options) as Promise<R>,
    handler: (perform: TypedPerform<A, R>) => perform,
    handlerMany: (performMany: TypedPerformMany<A, R>) => performMany,
    callback: (args: CallbackArgs<A>) => ({
      queue,
      class: className,
      args,
      ...(defaults.encrypt ? { encrypt: true } : {}),
    }),
  });
}
