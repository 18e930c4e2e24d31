// TestNexq: Nexq's enqueue API without Redis or threads, for the tests of nexq's users.
//  - fake mode records every job in memory, as the exact JSON the enqueuer would write; `drain`
//    runs them (and the jobs they enqueue) in-process; `jobs()` and the assertions read them.
//  - inline mode runs each job's handler in-process as it is enqueued, and rejects if it fails.
// Both check and encode jobs with the enqueuer's own code (src/job/new-jobs.ts), pick handlers with
// the node's HandlerRegistry and run them with the worker's performTask.
import type { TimestampFormat } from '../../config/defaults';
import { ConfigError, ResolvedConfig, resolveConfig } from '../../config/validate';
import { HandlerRegistry } from '../handlers/registry';
import { fateOf, okOutcome, Outcome } from '../run/outcome';
import { decodeJob, hasExpired, JobOptions } from '../job/job';
import { rewriteMembers } from '../job/json-members';
import { EnqueueRequest, prepareJobs } from '../job/new-jobs';
import { IN_MEMORY } from '../job/encryption';
import { jsonTimestamp, nowSeconds } from '../job/time';
import type { BulkJob, Nexq } from '../nexq';
import { allMatching, assertEnqueued, JobMatch, refuteEnqueued } from './assertions';
import { JobFailedError } from './errors';
import { performJob, PerformJobOptions, PerformOutcome } from './perform-job';
import { performMany } from './perform-many';
import type { JobOutcome } from '../../workers/protocol';
import { runPayload } from './run-job';
import { scopeOwner } from './scope';
import { JobStore, RecordedJob } from './store';

export type TestMode = 'fake' | 'inline';

/** What code that only enqueues needs: a Nexq and a TestNexq both have it. */
export type NexqEnqueuer = Pick<Nexq, 'enqueue' | 'enqueueAt' | 'enqueueIn' | 'enqueueAll' | 'stop'>;

export interface TestNexqOptions {
  /** `fake` (the default) records jobs; `inline` runs each one as it is enqueued. */
  mode?: TestMode;
  /** As for Nexq.start: handlers by class name, and a folder of handlers. */
  jobs?: Record<string, string>;
  jobsDir?: string;
  /** As for Nexq.start: how payload timestamps are written. */
  timestamps?: TimestampFormat;
}

export interface DrainOptions {
  /** Gives up (rejecting) after this many jobs, for jobs that keep enqueueing jobs. Default 10,000. */
  maxJobs?: number;
}

const OPTION_KEYS = new Set(['mode', 'jobs', 'jobsDir', 'timestamps']);

export function createTestNexq(options: TestNexqOptions = {}): TestNexq {
  return new TestNexq(options);
}

export class TestNexq implements NexqEnqueuer {
  readonly mode: TestMode;
  private readonly registry: HandlerRegistry;
  private readonly timestamps: TimestampFormat;
  private readonly config: ResolvedConfig;
  private readonly store = new JobStore();
  private stopped = false;

  constructor(options: TestNexqOptions = {}) {
    const { mode = 'fake', ...config } = options;
    const given: unknown = mode; // JavaScript callers can pass anything
    if (given !== 'fake' && given !== 'inline') throw new ConfigError('mode', 'fake or inline', mode);
    for (const key of Object.keys(config)) {
      if (!OPTION_KEYS.has(key))
        throw new ConfigError(
          key,
          'one of mode, jobs, jobsDir, timestamps (a test nexq has no Redis, queues or threads)',
          key,
        );
    }
    // The node's own checks and defaults, then the node's registry.
    const resolved = resolveConfig(config);
    this.mode = mode;
    this.registry = new HandlerRegistry(resolved.jobs, resolved.jobsDir);
    this.timestamps = resolved.timestamps;
    this.config = resolved;
  }

  /** Enqueues a job now; resolves to its jid (in inline mode, once its handler succeeded). */
  enqueue(queue: string, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.submit([{ queue, class: className, args, options }]).then(([jid]) => jid);
  }

  enqueueAt(queue: string, date: Date, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.submit([{ queue, class: className, args, at: date, options }]).then(([jid]) => jid);
  }

  enqueueIn(
    queue: string,
    seconds: number,
    className: string,
    args: unknown[] = [],
    options?: JobOptions,
  ): Promise<string> {
    return this.submit([{ queue, class: className, args, in: seconds, options }]).then(([jid]) => jid);
  }

  /** Every job or none: invalid input records (or runs) nothing. */
  enqueueAll(jobs: BulkJob[]): Promise<string[]> {
    return this.submit(jobs);
  }

  /** Later enqueues reject, as on a stopped node; recorded jobs stay readable. */
  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }

  /** Fake mode: the recorded jobs of `queue` (all queues when omitted), in the order enqueued. */
  jobs(queue?: string): RecordedJob[] {
    this.requireFake('jobs()');
    return this.store.list(queue);
  }

  /** Fake mode: forgets the recorded jobs of `queue` (all queues when omitted). */
  clear(queue?: string): void {
    this.requireFake('clear()');
    this.store.clear(queue);
  }

  /**
   * Fake mode: runs the recorded jobs of `queue` (all queues when omitted) one at a time, in the
   * order a node would (earliest due first: scheduled jobs run too, whatever their time), including
   * the jobs they enqueue into those queues, until none is left. Resolves to how many ran. A job
   * past its ttl is dropped without running, as a node files it in dead (a scheduled job's ttl runs
   * from its time, so running it early never expires it). A failed job rejects with JobFailedError;
   * it is gone (no retries), the other jobs stay recorded.
   */
  async drain(queue?: string, options: DrainOptions = {}): Promise<number> {
    this.requireFake('drain()');
    const maxJobs = options.maxJobs ?? 10_000;
    if (!Number.isInteger(maxJobs) || maxJobs < 1) throw new TypeError('drain: maxJobs must be an integer >= 1');
    let ran = 0;
    while (this.store.size(queue) > 0) {
      if (ran >= maxJobs) {
        throw new Error(
          `drain gave up after ${maxJobs} jobs: jobs keep enqueueing jobs (${this.store.size(queue)} left, next: ${this.store.list(queue)[0].class})`,
        );
      }
      const job = this.store.takeNext(queue);
      if (!job) break; // cannot happen: the store holds one
      if (await this.run(job.raw, job.queue, job.at !== undefined)) ran++;
    }
    return ran;
  }

  /**
   * Runs one job's handler now, as a node would: handler lookup by class name, args through JSON,
   * the job context as `this`. Rejects on an unknown class (UnknownJobClassError) or args JSON
   * would change (JobArgsError); otherwise resolves to the outcome.
   */
  performJob(className: string, args: unknown[] = [], options?: PerformJobOptions): Promise<PerformOutcome> {
    return performJob(this, this.registry, this.timestamps, className, args, options);
  }

  /**
   * Runs one chunk of a `performMany` handler now, with one job per entry of `argsList`, as a node
   * would run that chunk; answers each job's outcome, in order. (`performJob` and `drain` run such a
   * handler too, one job per call.)
   */
  performMany(
    className: string,
    argsList: unknown[][],
    options?: Omit<PerformJobOptions, 'retryCount'>,
  ): Promise<JobOutcome[]> {
    return performMany(this, this.registry, this.timestamps, className, argsList, options);
  }

  /** Fake mode: throws an AssertionError listing what was enqueued unless a job matches; returns the matches. */
  assertEnqueued(match: JobMatch = {}): RecordedJob[] {
    return assertEnqueued(this.jobs(), match);
  }

  /** Fake mode: throws an AssertionError listing the matches if any job matches. */
  refuteEnqueued(match: JobMatch = {}): void {
    refuteEnqueued(this.jobs(), match);
  }

  /** Fake mode: the recorded jobs that match, in the order enqueued. */
  allEnqueued(match: JobMatch = {}): RecordedJob[] {
    return allMatching(this.jobs(), match);
  }

  private async submit(requests: EnqueueRequest[]): Promise<string[]> {
    if (this.stopped) throw new Error('this test nexq is stopped');
    const prepared = prepareJobs(requests, this.timestamps, undefined, undefined, IN_MEMORY);
    if (this.mode === 'fake') {
      for (const job of prepared) this.store.add(job);
    } else {
      for (const job of prepared) await this.run(job.json, job.queue, job.runAt !== undefined);
    }
    return prepared.map((job) => job.jid);
  }

  /**
   * Runs one payload and applies its fate the way a node's settle path decides it
   * (src/run/outcome.ts): an expired job is not started (false), a nacked one goes back behind the
   * others (fake mode), a failure rejects with JobFailedError at once (no retries in a test). A
   * scheduled job gets its enqueued_at now, as the scheduler stamps it.
   */
  private async run(raw: string, queue: string, scheduled: boolean): Promise<boolean> {
    const payload = scheduled
      ? rewriteMembers(raw, { enqueued_at: jsonTimestamp(nowSeconds(), this.timestamps) })
      : raw;
    const fetched = { raw: payload, job: decodeJob(payload), queue };
    let outcome: Outcome = { kind: 'expired' };
    let thrown: unknown;
    if (!hasExpired(fetched.job)) {
      const started = Date.now();
      const result = await runPayload(this, this.registry, payload);
      thrown = result.thrown;
      const durationMs = Date.now() - started;
      outcome = result.outcome.ok
        ? okOutcome(result.outcome, durationMs)
        : { kind: 'failure', error: result.outcome.error, durationMs };
    }
    if (outcome.kind === 'failure') throw new JobFailedError(fetched.job, outcome.error, thrown);
    const fate = fateOf(outcome, fetched, this.config, nowSeconds());
    if (fate.to === 'queue' && this.mode === 'fake') this.store.putBack(queue, fate.json, fate.end);
    return outcome.kind !== 'expired';
  }

  private requireFake(what: string): void {
    if (this.mode !== 'fake')
      throw new Error(`${what} needs fake mode: in inline mode jobs run as they are enqueued and none is recorded`);
  }
}

/**
 * The test nexq that is running the calling handler, or `undefined` outside such a run (in a real
 * node, for instance). A handler enqueues follow-up jobs with `currentTestNexq() ?? yourRealNexq`.
 */
export function currentTestNexq(): TestNexq | undefined {
  // Only a TestNexq starts a run (drain, inline enqueue, performJob): the owner is one.
  return scopeOwner() as TestNexq | undefined;
}
