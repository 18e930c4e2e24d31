// The worker threads that run handlers (piscina). Any way a thread can die under a job — a
// timeout, process.exit, running out of memory, a cancel — comes back as a failed outcome, never
// a throw, and piscina replaces the thread. A job handed to a thread may wait there for a slot
// (workers/run-queue.ts): one that had not started when its thread died, or that the node
// withdraws (`withdraw`), comes back as withdrawn and goes back to its queue.
import path from 'node:path';
import { Piscina } from 'piscina';
import type { MessagePort } from 'node:worker_threads';
import {
  CONTROL,
  ControlMessage,
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
import type { JobError } from '../job/failure';
import {
  JobCancelledError,
  jobErrorOf,
  JobInterruptedError,
  JobTimeoutError,
  WorkerOutOfMemory,
  WorkerThreadExited,
} from '../job/run-errors';
import { capYoungGeneration, recheckYoungGeneration, sizeThreadYoungGeneration } from './young-generation-cap';

/** Filled in by `run` while the job is in the pool's hands: stops that job (its thread is terminated). */
export interface CancelHandle {
  cancel?: () => void;
  /** Set by the caller: told once when the job's handler starts on its thread (after any wait for a slot). */
  started?: () => void;
}

const CANCELLED: JobOutcome = { ok: false, stopped: 'cancelled', error: jobErrorOf(new JobCancelledError()) };
const INTERRUPTED: JobOutcome = { ok: false, stopped: 'interrupted', error: jobErrorOf(new JobInterruptedError()) };
const WITHDRAWN: JobOutcome = {
  ok: false,
  stopped: 'withdrawn',
  error: { class: 'JobWithdrawnError', message: 'its thread ended before it started' },
};

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
/** Async handlers share a thread; this bounds how many run on one thread at once. */
const TASKS_PER_THREAD = 1000;
/** Most jobs handed to a thread in one piscina task. */
const MAX_BATCH = 64;

export class ThreadPool {
  private readonly pool: Piscina;
  /** Jobs with a timeout, by task id, waiting for their thread to say they started. */
  private readonly starting = new Map<number, () => void>();
  /** Jobs handed over in a batch, by task id, waiting for their outcome. */
  private readonly running = new Map<number, (outcome: JobOutcome) => void>();
  /** Jobs collected since the last flush, to go to the threads together. */
  private pending: Array<JobTask & { id: number }> = [];
  private flushScheduled = false;
  private nextId = 1;
  /** The thread each batched job runs on, once the thread said it started the batch. */
  private readonly threadOf = new Map<number, number>();
  /** Batched jobs to cancel as soon as their thread is known. */
  private readonly cancelWhenStarted = new Set<number>();
  /** Threads this pool terminated to cancel a job; a batch lost with one was interrupted, not failed. */
  private readonly killed = new Set<number>();
  /**
   * How many of `killed` have exited. Until its thread exits piscina may still hand it a batch,
   * so a batch flushed after a kill but before that exit can be lost with the killed thread too.
   */
  private killsExited = 0;
  private readonly uncapYoungGeneration: () => void;
  /** Each live thread's control port, by threadId (workers/protocol.ts, CONTROL). */
  private readonly controls = new Map<number, MessagePort>();
  /** Jobs whose handler started on a thread, by task id, until they are settled. */
  private readonly started = new Set<number>();
  /** The started callbacks of jobs still in the pool's hands. */
  private readonly onStart = new Map<number, () => void>();
  /** Batched jobs whose cancel was asked while they waited on their thread. */
  private readonly cancelAsked = new Set<number>();
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
      // A thread waits for its next task blocked in Atomics.wait by default, its event loop stopped:
      // a threadSetup module usually starts background work (a span exporter), which must go on
      // between jobs, so with one the threads wait with Atomics.waitAsync instead.
      ...(options.data.setup ? { atomics: 'async' as const } : {}),
      resourceLimits: options.maxHeapMb > 0 ? { maxOldGenerationSizeMb: options.maxHeapMb } : undefined,
    });
    // Setting up a thread's heap undoes the cap's V8 flag: apply it again once each first thread is
    // online, and once piscina reports a replacement (ready by then).
    this.uncapYoungGeneration = capYoungGeneration(options.mainYoungGenerationMb);
    for (const thread of this.pool.threads) thread.once('online', recheckYoungGeneration);
    this.pool.on('workerCreate', recheckYoungGeneration);
    // A thread that ended held running slots only for jobs that failed or went back: once it has
    // exited (not before: until then it may still give one back itself), they are free again.
    this.pool.on('workerCreate', ({ id }: { id: number }) => {
      const worker = this.pool.threads.find((w) => w.threadId === id);
      if (!worker) {
        this.threadGone(id);
        return;
      }
      worker.once('exit', () => this.threadGone(id));
    });
    // A handler's own postMessage arrives here too, whatever it posted: only nexq's records are read.
    this.pool.on('message', (posted: unknown) => {
      const msg = posted as Partial<ThreadMessage> | null | undefined;
      if (msg?.type === TURN && msg.threadId !== undefined)
        this.turn(msg as Extract<ThreadMessage, { type: 'nexq:turn' }>);
      else if (msg?.type === DONE && msg.id !== undefined && msg.outcome) this.settle(msg.id, msg.outcome);
      else if (msg?.type === CONTROL && msg.threadId !== undefined && msg.port)
        this.controls.set(msg.threadId, msg.port);
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
    if (timeoutMs <= 0) return this.runBatched(task, handle);
    const id = this.nextId++;
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
   * each comes back as withdrawn, never having started. For quiet, stop, unsubscribe and a lost lease.
   */
  withdraw(rows?: number[]): void {
    const request: ControlMessage = { type: 'withdraw', rows };
    for (const port of this.controls.values()) port.postMessage(request);
  }

  /**
   * Jobs without a timeout are collected and handed to the threads in batches, split evenly across
   * them: one piscina task per batch instead of per job. The batch closes on `process.nextTick`:
   * a fetch's jobs all reach here within the microtasks that follow its reply, and a tick queued
   * from a microtask runs once those are all done, so it collects the whole fetch without waiting
   * for the event loop's next check phase (setImmediate), which would first poll for I/O.
   */
  private runBatched(task: JobTask, handle?: CancelHandle): Promise<JobOutcome> {
    const id = this.nextId++;
    if (handle) handle.cancel = () => this.cancelBatched(id);
    if (handle?.started) this.onStart.set(id, handle.started);
    return new Promise((resolve) => {
      this.running.set(id, resolve);
      this.pending.push({ ...task, id });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        process.nextTick(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const jobs = this.pending;
    this.pending = [];
    const size = Math.min(MAX_BATCH, Math.ceil(jobs.length / Math.max(1, this.pool.threads.length)));
    // Only threads that had exited by now cannot have taken these batches.
    const exitedKills = this.killsExited;
    for (let i = 0; i < jobs.length; i += size) {
      const batch = jobs.slice(i, i + size);
      this.pool.run(batch, { name: 'runBatch' }).catch((err: unknown) => {
        // The thread died (process.exit, out of memory, pool destroyed): every job of the batch
        // that had not answered yet failed with it — unless it had not started (it goes back), or
        // this pool stopped a thread for a cancel (exiting after this flush, or since) and the
        // job's thread is not known to be another one.
        for (const job of batch) {
          // Its TURN says a job started before its handler is called: one not said to have started never ran.
          if (!this.started.has(job.id)) {
            this.settle(job.id, WITHDRAWN);
            continue;
          }
          const on = this.threadOf.get(job.id);
          const interrupted = on === undefined ? this.killed.size > exitedKills : this.killed.has(on);
          this.settle(job.id, interrupted ? INTERRUPTED : { ok: false, error: threadFailure(err) });
        }
      });
    }
  }

  /** A thread's TURN: the batch it took, the jobs it starts now, the outcomes of those that ended. */
  private turn(msg: Extract<ThreadMessage, { type: 'nexq:turn' }>): void {
    if (msg.accepted) this.batchAccepted(msg.accepted, msg.threadId);
    if (msg.started)
      for (const id of msg.started) {
        this.starting.get(id)?.(); // a job with a timeout: its clock starts
        if (!this.running.has(id)) continue;
        this.started.add(id);
        const started = this.onStart.get(id);
        this.onStart.delete(id);
        started?.();
        if (this.cancelAsked.has(id)) this.cancelBatched(id);
      }
    const { ids, outcomes } = msg;
    if (ids && outcomes) ids.forEach((id, i) => this.settle(id, outcomes[i]));
  }

  private batchAccepted(ids: number[], threadId: number): void {
    // A batch taken by a thread terminated since (its message came late) never started there.
    if (this.killed.has(threadId)) {
      ids.forEach((id) => this.settle(id, WITHDRAWN));
      return;
    }
    for (const id of ids) if (this.running.has(id)) this.threadOf.set(id, threadId);
    for (const id of ids) if (this.cancelWhenStarted.has(id)) this.cancelBatched(id);
  }

  /**
   * Cancels a batched job: one not handed over yet never starts; one waiting on its thread for a
   * slot is withdrawn from it (or, if it started meanwhile, cancelled as a running one); a running
   * one has its thread terminated, and the other jobs on that thread that had not answered by its
   * exit are interrupted (they run again elsewhere) or, not started yet, go back to their queue.
   */
  private cancelBatched(id: number): void {
    if (!this.running.has(id)) return;
    const waiting = this.pending.findIndex((job) => job.id === id);
    if (waiting >= 0) {
      this.pending.splice(waiting, 1);
      this.settle(id, CANCELLED);
      return;
    }
    const thread = this.threadOf.get(id);
    if (thread === undefined) {
      this.cancelWhenStarted.add(id);
      return;
    }
    if (!this.started.has(id)) {
      // Withdrawn, it answers as such (settled as cancelled); started meanwhile, its TURN says so.
      this.cancelAsked.add(id);
      this.controls.get(thread)?.postMessage({ type: 'withdraw', ids: [id] } satisfies ControlMessage);
      return;
    }
    this.settle(id, CANCELLED);
    this.killed.add(thread);
    // The others on that thread are settled once it has exited: what it said before it stopped
    // (an outcome on its way) is heard first, so a job that finished is not run again.
    const exited = () => {
      this.killsExited++;
      for (const [other, on] of [...this.threadOf])
        if (on === thread) this.settle(other, this.started.has(other) ? INTERRUPTED : WITHDRAWN);
    };
    const worker = this.pool.threads.find((w) => w.threadId === thread);
    if (!worker) exited();
    else worker.terminate().then(exited, exited);
  }

  private threadGone(threadId: number): void {
    this.controls.get(threadId)?.close();
    this.controls.delete(threadId);
    this.claims.threadGone(threadId);
  }

  private settle(id: number, outcome: JobOutcome): void {
    const resolve = this.running.get(id);
    if (!resolve) return;
    const cancelled = this.cancelAsked.delete(id);
    this.running.delete(id);
    this.threadOf.delete(id);
    this.cancelWhenStarted.delete(id);
    this.started.delete(id);
    this.onStart.delete(id);
    resolve(cancelled && !outcome.ok && outcome.stopped === 'withdrawn' ? CANCELLED : outcome);
  }

  async destroy(): Promise<void> {
    this.uncapYoungGeneration();
    await this.pool.destroy();
  }
}

function threadFailure(err: unknown): JobError {
  if (!(err instanceof Error)) return jobErrorOf(new WorkerThreadExited(String(err)));
  if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return jobErrorOf(new WorkerOutOfMemory(err.message));
  return jobErrorOf(new WorkerThreadExited(err.message));
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
