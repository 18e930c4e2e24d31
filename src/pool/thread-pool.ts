// The worker threads that run handlers (piscina starts them, and replaces one that dies). A job
// without a timeout goes over its thread's own port (src/pool/thread-channels.ts); one with a
// timeout is a piscina task of its own, so its thread can be stopped. Any way a thread can die
// under a job — a timeout, process.exit, running out of memory, a cancel — comes back as a failed
// outcome, never a throw. A job handed to a thread may wait there for a slot (workers/run-queue.ts):
// one that had not started when its thread died, or that the node withdraws (`withdraw`), comes
// back as withdrawn and goes back to its queue.
import path from 'node:path';
import { Piscina } from 'piscina';
import type { MessagePort } from 'node:worker_threads';
import {
  CONTROL,
  DONE,
  ENQUEUE,
  EnqueueReply,
  JobOutcome,
  JobTask,
  PROGRESS,
  ThreadData,
  ThreadMessage,
  TURN,
} from '../../workers/protocol';
import { ThreadClaims } from './thread-claims';
import { readSlots } from '../../workers/work-table-layout';
import { CANCELLED, ThreadChannels, threadFailure, WITHDRAWN } from './thread-channels';
import { jobErrorOf, JobTimeoutError } from '../job/run-errors';
import { capYoungGeneration, recheckYoungGeneration, sizeThreadYoungGeneration } from './young-generation-cap';

/** Filled in by `run` while the job is in the pool's hands: stops that job (its thread is terminated). */
export interface CancelHandle {
  cancel?: () => void;
  /** Set by the caller: told once when the job's handler starts on its thread (after any wait for a slot). */
  started?: () => void;
}

export interface ThreadPoolOptions {
  threads: number;
  /** Per-thread heap limit in MB (0: Node's default). */
  maxHeapMb: number;
  /** Cap of the main thread's young generation while the pool runs, MB (0: none). */
  mainYoungGenerationMb: number;
  /** Young generation each thread starts with, MB (0: V8's default). */
  threadYoungGenerationMb: number;
  /** What every thread gets at start (the claims buffer is the pool's own). */
  data: Omit<ThreadData, 'claims'>;
  /** A handler's `this.progress(value)`, with its job's jid. */
  onProgress?: (jid: string, value: unknown) => void;
  /** Enqueues jobs a handler adds to its batch (`this.batch`); resolves to their jids. */
  enqueueInBatch?: (bid: string, jobs: unknown[]) => Promise<string[]>;
}

const ENTRY = path.join(__dirname, '..', '..', 'workers', 'thread-entry.js');
/** Async handlers share a thread; this bounds how many piscina tasks (jobs with a timeout) run on one at once. */
const TASKS_PER_THREAD = 1000;

export class ThreadPool {
  private readonly pool: Piscina;
  /** Jobs with a timeout, by task id, waiting for their thread to say they started. */
  private readonly starting = new Map<number, () => void>();
  private readonly channels: ThreadChannels;
  private nextId = 1;
  private readonly uncapYoungGeneration: () => void;
  readonly claims: ThreadClaims;

  constructor(options: ThreadPoolOptions) {
    sizeThreadYoungGeneration(options.threadYoungGenerationMb);
    this.claims = new ThreadClaims(options.data.workTable);
    this.pool = new Piscina({
      filename: ENTRY,
      minThreads: options.threads,
      maxThreads: options.threads,
      concurrentTasksPerWorker: TASKS_PER_THREAD,
      idleTimeout: Infinity,
      workerData: { ...options.data, claims: this.claims.buffer },
      // A thread waits for its next piscina task with its event loop running (by default it would
      // block in Atomics.wait): its jobs come on its control port, and a threadSetup module
      // usually starts background work (a span exporter) that must go on between jobs.
      atomics: 'disabled',
      resourceLimits: options.maxHeapMb > 0 ? { maxOldGenerationSizeMb: options.maxHeapMb } : undefined,
    });
    const workTable = new Int32Array(options.data.workTable);
    this.channels = new ThreadChannels(
      async (threadId) => {
        await this.pool.threads.find((w) => w.threadId === threadId)?.terminate();
      },
      (row) => (row === undefined ? Number.MAX_SAFE_INTEGER : readSlots(workTable, row).concurrency),
    );
    // Setting up a thread's heap undoes the cap's V8 flag: apply it again once each first thread is
    // online, and once piscina reports a replacement (ready by then).
    this.uncapYoungGeneration = capYoungGeneration(options.mainYoungGenerationMb);
    for (const thread of this.pool.threads) thread.once('online', recheckYoungGeneration);
    this.pool.on('workerCreate', recheckYoungGeneration);
    // Once a thread has exited (not before: until then it may still give a slot back itself, and
    // what it said before it stopped is heard first), its slots are free and its jobs settled.
    this.pool.on('workerCreate', ({ id }: { id: number }) => {
      const worker = this.pool.threads.find((w) => w.threadId === id);
      if (!worker) return;
      worker.on('error', (err: Error) => this.channels.failed(id, err));
      worker.once('exit', (code: number) => {
        this.claims.threadGone(id);
        this.channels.exited(id, code);
      });
    });
    // A thread that fails with no piscina task in hand (its jobs came on its port) is reported here
    // too; its jobs hear of it from its exit, with the error its 'error' event gave.
    this.pool.on('error', () => undefined);
    // A handler's own postMessage arrives here too, whatever it posted: only nexq's records are read.
    this.pool.on('message', (posted: unknown) => {
      const msg = posted as Partial<ThreadMessage> | null | undefined;
      if (msg?.type === TURN && msg.threadId !== undefined)
        this.turn(msg as Extract<ThreadMessage, { type: 'nexq:turn' }>);
      else if (msg?.type === DONE && msg.id !== undefined && msg.outcome) this.channels.settle(msg.id, msg.outcome);
      else if (msg?.type === CONTROL && msg.threadId !== undefined && msg.port)
        this.channels.opened(msg.threadId, msg.port);
      else if (msg?.type === PROGRESS && typeof msg.jid === 'string') options.onProgress?.(msg.jid, msg.value);
      else if (msg?.type === ENQUEUE && msg.port && typeof msg.bid === 'string' && Array.isArray(msg.jobs))
        answerEnqueue(msg.port, () => enqueueInBatch(msg.bid as string, msg.jobs as unknown[]));
    });
    const enqueueInBatch =
      options.enqueueInBatch ?? (() => Promise.reject(new Error('this node cannot enqueue into batches')));
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /**
   * Runs one job; `timeoutMs` > 0 terminates its thread when the job runs longer. The clock starts
   * when the thread starts the job: piscina gives a job that can be aborted a thread of its own, so
   * it may first wait for one, and that wait is not the job's (nor is its wait for a slot).
   */
  async run(task: JobTask, timeoutMs: number, handle?: CancelHandle): Promise<JobOutcome> {
    const id = this.nextId++;
    // A chunk's job goes over the ports even with a timeout: the whole call's, kept by the channels.
    if (timeoutMs <= 0 || task.chunk) {
      if (handle) handle.cancel = () => this.channels.cancel(id);
      return this.channels.run(task, id, handle?.started, timeoutMs);
    }
    const controller = new AbortController();
    let cancelled = false as boolean; // set by handle.cancel while the pool runs the job
    if (handle) {
      handle.cancel = () => {
        cancelled = true;
        controller.abort();
      };
    }
    let timer: NodeJS.Timeout | undefined;
    let started = false as boolean;
    this.starting.set(id, () => {
      this.starting.delete(id);
      started = true;
      handle?.started?.();
      timer = setTimeout(() => controller.abort(), timeoutMs);
    });
    try {
      return (await this.pool.run({ ...task, id }, { signal: controller.signal })) as JobOutcome;
    } catch (err) {
      if (cancelled) return CANCELLED;
      if (controller.signal.aborted) return { ok: false, error: jobErrorOf(new JobTimeoutError(timeoutMs)) };
      // Its thread died before it started (another job's process.exit): it goes back to its queue.
      if (!started) return WITHDRAWN;
      return { ok: false, error: threadFailure(err) };
    } finally {
      this.starting.delete(id);
      clearTimeout(timer);
      if (handle) handle.cancel = undefined;
    }
  }

  /**
   * Withdraws the jobs waiting on threads for a slot (of the queues in work-table `rows`, or all):
   * each comes back as withdrawn, never having started. For quiet, stop, unsubscribe and a lost claim.
   */
  withdraw(rows?: number[]): void {
    this.channels.withdraw(rows);
  }

  /** A thread's TURN: a job with a timeout starts its clock; the batched path hears the rest. */
  private turn(msg: Extract<ThreadMessage, { type: 'nexq:turn' }>): void {
    for (const id of msg.started ?? []) this.starting.get(id)?.();
    this.channels.turn(msg);
  }

  async destroy(): Promise<void> {
    this.uncapYoungGeneration();
    await this.pool.destroy();
  }
}

/** Answers a thread's `this.batch` enqueue on the port it sent, with the jids or the error; never throws. */
function answerEnqueue(port: MessagePort, enqueue: () => Promise<string[]>): void {
  const answer = (reply: EnqueueReply) => {
    try {
      port.postMessage(reply);
    } catch {
      // The thread is gone: nobody is left to answer.
    } finally {
      port.close();
    }
  };
  Promise.resolve()
    .then(enqueue)
    .then(
      (jids) => answer({ ok: true, jids }),
      (err: unknown) =>
        answer({
          ok: false,
          error:
            err instanceof Error ? { class: err.name, message: err.message } : { class: 'Error', message: String(err) },
        }),
    );
}
