// The worker threads that run handlers (piscina). Any way a thread can die under a job — a
// timeout, process.exit, running out of memory — comes back as a failed outcome, never a throw,
// and piscina replaces the thread.
import path from 'node:path';
import { Piscina } from 'piscina';
import { DONE, JobOutcome, JobTask, STARTED, ThreadData } from '../workers/protocol';

export interface ThreadPoolOptions {
  threads: number;
  /** Per-thread heap limit in MB (0: Node's default). */
  maxHeapMb: number;
  data: ThreadData;
}

const ENTRY = path.join(__dirname, '..', 'workers', 'thread-entry.js');
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
  /** Jobs collected this turn of the event loop, to go to the threads together. */
  private pending: Array<JobTask & { id: number }> = [];
  private flushScheduled = false;
  private nextId = 1;

  constructor(options: ThreadPoolOptions) {
    this.pool = new Piscina({
      filename: ENTRY,
      minThreads: options.threads,
      maxThreads: options.threads,
      concurrentTasksPerWorker: TASKS_PER_THREAD,
      idleTimeout: Infinity,
      workerData: options.data,
      resourceLimits: options.maxHeapMb > 0 ? { maxOldGenerationSizeMb: options.maxHeapMb } : undefined,
    });
    this.pool.on('message', (msg: { type?: string; id?: number; outcome?: JobOutcome }) => {
      if (msg?.type === DONE && msg.id !== undefined) this.settle(msg.id, msg.outcome!);
      else if (msg?.type === STARTED && msg.id !== undefined) this.starting.get(msg.id)?.();
    });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /**
   * Runs one job; `timeoutMs` > 0 terminates its thread when the job runs longer. The clock starts
   * when the thread starts the job: piscina gives a job that can be aborted a thread of its own, so
   * it may first wait for one, and that wait is not the job's.
   */
  async run(task: JobTask, timeoutMs: number): Promise<JobOutcome> {
    if (timeoutMs <= 0) return this.runBatched(task);
    const id = this.nextId++;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    this.starting.set(id, () => {
      this.starting.delete(id);
      timer = setTimeout(() => controller.abort(), timeoutMs);
    });
    try {
      return (await this.pool.run({ ...task, id }, { signal: controller.signal })) as JobOutcome;
    } catch (err) {
      if (controller.signal.aborted) {
        return { ok: false, error: { class: 'JobTimeoutError', message: `job ran longer than ${timeoutMs} ms; its thread was terminated` } };
      }
      return { ok: false, error: threadFailure(err) };
    } finally {
      this.starting.delete(id);
      clearTimeout(timer);
    }
  }

  /**
   * Jobs without a timeout are collected for one turn of the event loop and handed to the threads
   * in batches, split evenly across them: one piscina task per batch instead of per job.
   */
  private runBatched(task: JobTask): Promise<JobOutcome> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.running.set(id, resolve);
      this.pending.push({ ...task, id });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const jobs = this.pending;
    this.pending = [];
    const size = Math.min(MAX_BATCH, Math.ceil(jobs.length / Math.max(1, this.pool.threads.length)));
    for (let i = 0; i < jobs.length; i += size) {
      const batch = jobs.slice(i, i + size);
      this.pool.run(batch, { name: 'runBatch' }).catch((err) => {
        // The thread died (process.exit, out of memory, pool destroyed): every job of the batch
        // that had not answered yet failed with it.
        for (const job of batch) this.settle(job.id, { ok: false, error: threadFailure(err) });
      });
    }
  }

  private settle(id: number, outcome: JobOutcome): void {
    const resolve = this.running.get(id);
    if (!resolve) return;
    this.running.delete(id);
    resolve(outcome);
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

function threadFailure(err: unknown): { class: string; message: string } {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') return { class: 'WorkerOutOfMemory', message: `the job's thread ran out of memory: ${e.message}` };
  const message = e instanceof Error ? e.message : String(err);
  return { class: 'WorkerThreadExited', message: `the job's thread died: ${message}` };
}
