// Typed jobs for TypeScript users: one definition names a job's class, queue and argument types,
// and both its producers (`enqueue`, `enqueueIn`, `enqueueAt`) and its handler (`handler`) are
// checked against it by the compiler. At run time it is a thin layer over Nexq's untyped API, which
// plain JavaScript keeps using; the wire format is the same. Imports Nexq as a type only, so a
// handler module on a worker thread that imports its definition loads nothing else.
import type { JobOptions } from './job/job';
import type { Nexq, WaitForOptions } from './nexq';
import type { JobContext } from '../workers/handler-loader';

/** What `defineJob` takes besides the class name: the queue (default `default`) and default job options. */
export interface JobDefinitionOptions extends JobOptions {
  queue?: string;
}

/** A handler's `perform` for the arguments `A`, returning `R` (or a promise of it). */
export type TypedPerform<A extends unknown[], R> = (this: JobContext, ...args: A) => R | Promise<R>;

export interface JobDefinition<A extends unknown[], R = unknown> {
  /** The job's `class` field: the handler registered under this name runs it. */
  readonly className: string;
  readonly queue: string;
  /** Options every enqueue of it starts from; an enqueue's own options win. */
  readonly options: Readonly<JobOptions>;
  /** Enqueues the job now; resolves to its jid. */
  enqueue(nexq: Nexq, args: A, options?: JobOptions): Promise<string>;
  /** Enqueues the job to run `seconds` from now. */
  enqueueIn(nexq: Nexq, seconds: number, args: A, options?: JobOptions): Promise<string>;
  /** Enqueues the job to run at `date`. */
  enqueueAt(nexq: Nexq, date: Date, args: A, options?: JobOptions): Promise<string>;
  /** The result a run of it kept (see `keepResult`), typed `R`; undefined when none is kept. */
  result(nexq: Nexq, jid: string): Promise<R | undefined>;
  /** Waits for the result of a run of it (see `Nexq#waitFor`). */
  waitFor(nexq: Nexq, jid: string, options?: WaitForOptions): Promise<R>;
  /**
   * Types a handler by this definition and gives it back:
   * `export const perform = SendEmail.handler(async function (to, id) {...})`.
   */
  handler(perform: TypedPerform<A, R>): TypedPerform<A, R>;
}

/**
 * Defines a typed job: `const SendEmail = defineJob<[to: string, userId: number]>('SendEmail', { queue: 'mail' })`.
 * `R` types what its handler returns (what `keepResult` stores).
 */
export function defineJob<A extends unknown[], R = unknown>(
  className: string,
  definition: JobDefinitionOptions = {},
): JobDefinition<A, R> {
  const { queue = 'default', ...defaults } = definition;
  const merged = (options?: JobOptions): JobOptions | undefined =>
    options ? { ...defaults, ...options } : Object.keys(defaults).length ? defaults : undefined;
  return Object.freeze({
    className,
    queue,
    options: Object.freeze({ ...defaults }),
    enqueue: (nexq: Nexq, args: A, options?: JobOptions) => nexq.enqueue(queue, className, args, merged(options)),
    enqueueIn: (nexq: Nexq, seconds: number, args: A, options?: JobOptions) =>
      nexq.enqueueIn(queue, seconds, className, args, merged(options)),
    enqueueAt: (nexq: Nexq, date: Date, args: A, options?: JobOptions) =>
      nexq.enqueueAt(queue, date, className, args, merged(options)),
    result: (nexq: Nexq, jid: string) => nexq.result(jid) as Promise<R | undefined>,
    waitFor: (nexq: Nexq, jid: string, options?: WaitForOptions) => nexq.waitFor(jid, options) as Promise<R>,
    handler: (perform: TypedPerform<A, R>) => perform,
  });
}
