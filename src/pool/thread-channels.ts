// The batched path: jobs without a timeout go to a thread over that thread's own control port
// (workers/protocol.ts, CONTROL), not as piscina tasks. The main thread picks the thread (the one
// with the fewest jobs in hand), hears in each TURN message which of them started and which
// ended, withdraws the ones still waiting for a slot when asked, and settles whatever a thread
// held when it exits: a job that had started fails with the thread (or, when this pool stopped the
// thread for another job's cancel, is interrupted), one that had not never ran and is withdrawn.
// Jobs of a `performMany` handler are gathered into chunks first (src/pool/chunk-former.ts); a
// chunk goes whole to one thread, starts there as one, and its timeout, if any, is the whole
// call's: it runs from the chunk's start, and when it runs out the thread is stopped (each job of
// the chunk fails with JobTimeoutError; the thread's other jobs are interrupted).
import type { MessagePort } from 'node:worker_threads';
import type { ControlMessage, JobOutcome, JobTask, ThreadMessage } from '../../workers/protocol';
import type { JobError } from '../job/failure';
import {
  JobCancelledError,
  jobErrorOf,
  JobInterruptedError,
  JobTimeoutError,
  WorkerOutOfMemory,
  WorkerThreadExited,
} from '../job/run-errors';
import { ChunkFormer, ChunkTask } from './chunk-former';

export const CANCELLED: JobOutcome = { ok: false, stopped: 'cancelled', error: jobErrorOf(new JobCancelledError()) };
const INTERRUPTED: JobOutcome = { ok: false, stopped: 'interrupted', error: jobErrorOf(new JobInterruptedError()) };
export const WITHDRAWN: JobOutcome = {
  ok: false,
  stopped: 'withdrawn',
  error: { class: 'JobWithdrawnError', message: 'its thread ended before it started' },
};

/** Most jobs handed to a thread in one message. */
const MAX_BATCH = 64;

type Turn = Extract<ThreadMessage, { type: 'nexq:turn' }>;

interface Handed {
  resolve: (outcome: JobOutcome) => void;
  thread?: number;
  started?: boolean;
  onStart?: () => void;
  /** Its cancel was asked: withdrawn, it is cancelled; started, its thread is stopped. */
  cancelAsked?: boolean;
  /** A chunk's job: its jobTimeout (0: none), for the whole call. */
  timeoutMs?: number;
  /** A chunk's job handed to a thread: the chunk, shared by its jobs. */
  chunk?: Chunk;
}

interface Chunk {
  ids: number[];
  timeoutMs: number;
  timer?: NodeJS.Timeout;
}

export class ThreadChannels {
  /** Each live thread's control port, by threadId. */
  private readonly ports = new Map<number, MessagePort>();
  /** Jobs in the pool's hands, by id, until settled. */
  private readonly jobs = new Map<number, Handed>();
  /** How many jobs each thread holds. */
  private readonly inHand = new Map<number, number>();
  /** Threads this pool stopped for a cancel: the jobs lost with them were interrupted, not failed. */
  private readonly killed = new Set<number>();
  /** Why a thread ended, when it said so (an uncaught error, out of memory). */
  private readonly errors = new Map<number, Error>();
  private pending: Array<JobTask & { id: number }> = [];
  /** Chunks closed and not yet handed to a thread. */
  private pendingChunks: ChunkTask[][] = [];
  private readonly chunks: ChunkFormer;
  private flushScheduled = false;
  /** Keeps the process up while jobs are in hand (a piscina task did; a port without listeners does not). */
  private keepAlive?: NodeJS.Timeout;

  /** `terminate`: stops a thread (resolves once it has exited); `concurrencyOf`: a work-table row's concurrency. */
  constructor(
    private readonly terminate: (threadId: number) => Promise<unknown>,
    concurrencyOf: (row: number | undefined) => number = () => Number.MAX_SAFE_INTEGER,
  ) {
    this.chunks = new ChunkFormer(concurrencyOf, (tasks) => {
      this.pendingChunks.push(tasks);
      this.scheduleFlush();
    });
  }

  /** A thread started and sent its control port. */
  opened(threadId: number, port: MessagePort): void {
    this.ports.set(threadId, port);
    this.inHand.set(threadId, 0);
    if (this.pending.length > 0 || this.pendingChunks.length > 0) this.scheduleFlush();
  }

  /** A thread said why it is ending. */
  failed(threadId: number, err: Error): void {
    this.errors.set(threadId, err);
  }

  /**
   * Runs one job on a thread. The jobs of one event-loop turn go together: a fetch's jobs all
   * reach here within the microtasks that follow its reply, and a tick queued from a microtask
   * runs once those are all done, so the batch holds the whole fetch without waiting for the
   * event loop's next check phase (setImmediate), which would first poll for I/O. The first job
   * to reach an idle pool (no thread holds one) goes at once: batching saves nothing there, and
   * the tick would wait behind whatever the main thread does next (the manager's next decision).
   */
  run(task: JobTask, id: number, onStart?: () => void, timeoutMs = 0): Promise<JobOutcome> {
    this.keepAlive ??= setInterval(() => undefined, 1 << 30);
    return new Promise((resolve) => {
      this.jobs.set(id, { resolve, onStart, timeoutMs });
      if (task.chunk) {
        this.chunks.add({ ...task, id }, task.chunk);
        return;
      }
      this.pending.push({ ...task, id });
      if (!this.flushScheduled && this.poolIdle()) this.flush();
      else this.scheduleFlush();
    });
  }

  /** Withdraws the jobs waiting on threads for a slot (and in chunks not handed over), of work-table `rows` or all. */
  withdraw(rows?: number[]): void {
    const request: ControlMessage = { type: 'withdraw', rows };
    for (const port of this.ports.values()) port.postMessage(request);
    const unsent = this.chunks.take(rows);
    this.pendingChunks = this.pendingChunks.filter((tasks) => {
      const row = tasks[0].slotsRow;
      if (rows && (row === undefined || !rows.includes(row))) return true;
      unsent.push(...tasks.map((task) => task.id));
      return false;
    });
    for (const id of unsent) this.settle(id, WITHDRAWN);
  }

  /** A thread's TURN: the jobs it starts now and the outcomes of those that ended. */
  turn(msg: Turn): void {
    for (const id of msg.started ?? []) {
      const job = this.jobs.get(id);
      if (!job) continue;
      job.started = true;
      job.onStart?.();
      const chunk = job.chunk;
      if (chunk && chunk.timeoutMs > 0 && !chunk.timer)
        chunk.timer = setTimeout(() => this.timedOut(chunk, msg.threadId), chunk.timeoutMs);
      if (job.cancelAsked) this.cancel(id);
    }
    const { ids, outcomes } = msg;
    if (ids && outcomes) ids.forEach((id, i) => this.settle(id, outcomes[i]));
  }

  /**
   * Cancels a job: one not handed over yet never starts; one waiting on its thread for a slot is
   * withdrawn from it (or, if it started meanwhile, cancelled as a running one); a running one has
   * its thread terminated, and the other jobs that thread held when it exited are interrupted
   * (they run again elsewhere) or, not started, go back to their queue.
   */
  cancel(id: number): void {
    const job = this.jobs.get(id);
    if (!job) return;
    const waiting = this.pending.findIndex((task) => task.id === id);
    if (waiting >= 0 || this.chunks.remove(id) || this.unsend(id)) {
      if (waiting >= 0) this.pending.splice(waiting, 1);
      this.settle(id, CANCELLED);
      return;
    }
    const thread = job.thread;
    if (thread === undefined) return;
    if (!job.started) {
      job.cancelAsked = true;
      this.ports.get(thread)?.postMessage({ type: 'withdraw', ids: [id] } satisfies ControlMessage);
      return;
    }
    this.settle(id, CANCELLED);
    this.stopThread(thread);
  }

  /** A thread exited: what it held and did not answer is settled by whether it had started. */
  exited(threadId: number, code: number): void {
    this.ports.get(threadId)?.close();
    this.ports.delete(threadId);
    this.inHand.delete(threadId);
    const killed = this.killed.delete(threadId);
    const error = this.errors.get(threadId);
    this.errors.delete(threadId);
    for (const [id, job] of [...this.jobs]) {
      if (job.thread !== threadId) continue;
      if (!job.started) this.settle(id, WITHDRAWN);
      else this.settle(id, killed ? INTERRUPTED : { ok: false, error: threadFailure(error, code) });
    }
    if (this.pending.length > 0 || this.pendingChunks.length > 0) this.scheduleFlush();
  }

  /** Takes job `id` out of a closed chunk not handed over yet; false when none holds it. */
  private unsend(id: number): boolean {
    for (const [i, tasks] of this.pendingChunks.entries()) {
      const at = tasks.findIndex((task) => task.id === id);
      if (at < 0) continue;
      tasks.splice(at, 1);
      if (tasks.length === 0) this.pendingChunks.splice(i, 1);
      return true;
    }
    return false;
  }

  /** A chunk's call ran over its timeout: its jobs fail with it, and its thread is stopped. */
  private timedOut(chunk: Chunk, thread: number): void {
    const timeout: JobOutcome = { ok: false, error: jobErrorOf(new JobTimeoutError(chunk.timeoutMs)) };
    for (const id of chunk.ids) this.settle(id, timeout);
    this.stopThread(thread);
  }

  /** Stops `thread`: what it still holds is interrupted, or withdrawn if it had not started. */
  private stopThread(thread: number): void {
    this.killed.add(thread);
    this.ports.delete(thread); // nothing more goes to it
    this.terminate(thread).catch(() => undefined);
  }

  private poolIdle(): boolean {
    if (this.ports.size === 0) return false; // the jobs go when a thread opens its port
    for (const thread of this.ports.keys()) if ((this.inHand.get(thread) ?? 0) > 0) return false;
    return true;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    process.nextTick(() => this.flush());
  }

  /** Hands the jobs collected to the threads, split evenly, the most to those holding the fewest. */
  private flush(): void {
    this.flushScheduled = false;
    const threads = [...this.ports.keys()];
    if (threads.length === 0) return; // sent when a thread opens its port
    for (const tasks of this.pendingChunks) this.handChunk(tasks, threads);
    this.pendingChunks = [];
    const jobs = this.pending;
    this.pending = [];
    const size = Math.min(MAX_BATCH, Math.ceil(jobs.length / threads.length));
    for (let i = 0; i < jobs.length; i += size) {
      const batch = jobs.slice(i, i + size);
      const thread = threads.reduce((a, b) => ((this.inHand.get(b) ?? 0) < (this.inHand.get(a) ?? 0) ? b : a));
      for (const task of batch) {
        const job = this.jobs.get(task.id);
        if (job) job.thread = thread;
      }
      this.inHand.set(thread, (this.inHand.get(thread) ?? 0) + batch.length);
      this.ports.get(thread)?.postMessage({ type: 'run', tasks: batch } satisfies ControlMessage);
    }
  }

  /** Hands a chunk whole to the thread holding the fewest jobs. */
  private handChunk(tasks: ChunkTask[], threads: number[]): void {
    const thread = threads.reduce((a, b) => ((this.inHand.get(b) ?? 0) < (this.inHand.get(a) ?? 0) ? b : a));
    const ids = tasks.map((task) => task.id);
    const chunk: Chunk = { ids, timeoutMs: this.jobs.get(ids[0])?.timeoutMs ?? 0 };
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job) continue;
      job.thread = thread;
      job.chunk = chunk;
    }
    this.inHand.set(thread, (this.inHand.get(thread) ?? 0) + tasks.length);
    this.ports.get(thread)?.postMessage({ type: 'runChunk', tasks } satisfies ControlMessage);
  }

  settle(id: number, outcome: JobOutcome): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    if (job.chunk?.timer) clearTimeout(job.chunk.timer);
    if (job.thread !== undefined && this.inHand.has(job.thread))
      this.inHand.set(job.thread, (this.inHand.get(job.thread) ?? 1) - 1);
    job.resolve(job.cancelAsked && !outcome.ok && outcome.stopped === 'withdrawn' ? CANCELLED : outcome);
    if (this.jobs.size === 0 && this.keepAlive) {
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
  }
}

export function threadFailure(err: unknown, code?: number): JobError {
  if (err === undefined) return jobErrorOf(new WorkerThreadExited(`the worker thread exited with code ${code ?? '?'}`));
  if (!(err instanceof Error))
    return jobErrorOf(new WorkerThreadExited(typeof err === 'string' ? err : 'the worker thread ended'));
  if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return jobErrorOf(new WorkerOutOfMemory(err.message));
  return jobErrorOf(new WorkerThreadExited(err.message));
}
