// The piscina entry: runs one job's handler on this worker thread (workers/perform-task.ts) and
// answers with a plain record. Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`.
import { MessagePort, parentPort, threadId, workerData } from 'node:worker_threads';
import { describeLoadFailure, HandlerLoadError } from './handler-loader';
import { PerformObserver, performTask, toThrownError } from './perform-task';
import { DEFAULT_RETRY_SETTINGS } from './retry-on-thread';
import { importModule } from './typescript-loader';
import type { PostToMain } from './job-batch';
import { BATCH, DONE, DONE_MANY, JobOutcome, JobTask, PROGRESS, STARTED, ThreadData } from './protocol';
import { QueueSlots, readSlots } from './work-table-layout';

// The node's work table, shared with the main thread: read, never written, here.
const data = workerData as Partial<ThreadData> | undefined;
const table = data?.workTable;
const retry = data?.retry ?? DEFAULT_RETRY_SETTINGS;
const cells = table ? new Int32Array(table) : undefined;
const NO_ROW: QueueSlots = { concurrency: 0, busy: 0, free: 0 };
const post: PostToMain | undefined = parentPort
  ? (message, transfer) => parentPort?.postMessage(message, transfer)
  : undefined;
const slotsOf = (row: number | undefined): QueueSlots => (cells && row !== undefined ? readSlots(cells, row) : NO_ROW);

/** The `threadSetup` module (e.g. an OpenTelemetry tracer provider), imported once before the first job. */
const setupFile = (workerData as Partial<ThreadData> | undefined)?.setup;
let setup: Promise<unknown> | undefined;

/** Imports the setup module once; a failure fails the jobs (HANDLER_LOAD) until a later import succeeds. */
async function setUp(file: string): Promise<JobOutcome | undefined> {
  try {
    await (setup ??= importModule(file));
    return undefined;
  } catch (err) {
    setup = undefined;
    return { ok: false, error: toThrownError(new HandlerLoadError(`threadSetup ${describeLoadFailure(file, err)}`)) };
  }
}

/** A handler's `this.progress(value)` goes to the main thread, which records it and emits job:progress. */
const observer: PerformObserver = {
  progress: (jid, value) => parentPort?.postMessage({ type: PROGRESS, jid, value }),
};

export default async function runJob(task: JobTask): Promise<JobOutcome> {
  if (task.id !== undefined) parentPort?.postMessage({ type: STARTED, id: task.id });
  return (setupFile && (await setUp(setupFile))) || performTask(task, observer, slotsOf, post, retry);
}

/**
 * A batch of jobs in one piscina task (handing jobs over one by one costs more than running
 * them): all run at once, and each answers as it finishes, so a slow job never holds back the
 * others' acks. The outcomes of one turn go together (`answerFinished`). Resolves when all are done.
 */
export async function runBatch(tasks: Array<JobTask & { id: number }>): Promise<number> {
  // Piscina runs this on a worker thread, which always has a parent port.
  const port = parentPort;
  if (!port) throw new Error('runBatch runs on a worker thread only');
  port.postMessage({ type: BATCH, ids: tasks.map((t) => t.id), threadId });
  await Promise.all(
    tasks.map(async (task) => {
      const outcome =
        (setupFile && (await setUp(setupFile))) ||
        (await performTask(task, observer, slotsOf, post, retry).catch(unreadableFailure));
      finished(port, task.id, outcome);
    }),
  );
  // Every outcome is posted before the batch resolves: a thread terminated after that loses none.
  answerFinished(port);
  return tasks.length;
}

/**
 * performTask answers every failure of a job, unless reading the error itself throws (a `name`
 * V8 cannot turn into its stack's first line): that job fails, its batch-mates are untouched
 * (a rejection here would fail the whole batch, and run again the jobs of it that succeeded).
 */
function unreadableFailure(err: unknown): JobOutcome {
  const why = err instanceof Error ? `${err.name}: ${err.message}` : 'unknown';
  return { ok: false, error: { class: 'UnreadableError', message: `the job's error could not be read (${why})` } };
}

/** Jobs finished on this thread and not answered yet: answered together once the turn's microtasks ran. */
let finishedIds: number[] = [];
let finishedOutcomes: JobOutcome[] = [];

function finished(port: MessagePort, id: number, outcome: JobOutcome): void {
  finishedIds.push(id);
  finishedOutcomes.push(outcome);
  // A tick queued from a microtask runs once the microtasks queued so far ran: the jobs that end
  // together (every job of a batch of quick ones) go in one message.
  if (finishedIds.length === 1) process.nextTick(() => answerFinished(port));
}

function answerFinished(port: MessagePort): void {
  if (finishedIds.length === 0) return;
  const ids = finishedIds;
  const outcomes = finishedOutcomes;
  finishedIds = [];
  finishedOutcomes = [];
  try {
    port.postMessage({ type: DONE_MANY, ids, outcomes });
  } catch {
    // An outcome that cannot be cloned: each goes on its own, that one as text.
    ids.forEach((id, i) => answerOne(port, id, outcomes[i]));
  }
}

function answerOne(port: MessagePort, id: number, outcome: JobOutcome): void {
  try {
    port.postMessage({ type: DONE, id, outcome });
  } catch {
    // An error whose fields cannot be cloned: answer with their text, never fail the batch.
    // (A success is `{ ok, nack? }`, always cloneable: it goes as it is, its nack kept.)
    // A handler's Error can hold any value in `name` and `message`, whatever ThrownError says.
    const thrown = outcome.ok ? undefined : (outcome.error as { class: unknown; message: unknown });
    const cloneable: JobOutcome =
      thrown && !outcome.ok
        ? { ...outcome, error: { class: String(thrown.class), message: String(thrown.message) } }
        : outcome;
    port.postMessage({ type: DONE, id, outcome: cloneable });
  }
}
