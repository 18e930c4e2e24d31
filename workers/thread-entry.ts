// The piscina entry: runs jobs' handlers on this worker thread (workers/perform-task.ts) and
// answers with plain records. Every failure of a job, thrown or rejected, becomes `{ ok: false, error }`.
//
// Jobs come on this thread's own control port (the main thread's end is src/pool/thread-channels.ts),
// or, a job with a timeout, as a piscina task of its own. A job waits in the thread's run queue
// (workers/run-queue.ts) until it holds one of its queue's running slots in the shared work
// table; when a job ends, its slot goes to the next job waiting here on the same tick. What
// happened in a turn goes to the main thread in one TURN message, posted before the handlers it
// names as started are called. A chunk of a `performMany` handler's jobs (`runChunk`) waits there
// as one entry until it holds a slot per job, then runs as one call (workers/perform-chunk.ts)
// and answers one outcome per job.
import { MessageChannel, MessagePort, parentPort, threadId, workerData } from 'node:worker_threads';
import { describeLoadFailure, HandlerLoadError } from './handler-loader';
import { PerformObserver, performTask, toThrownError } from './perform-task';
import { performChunk } from './perform-chunk';
import { DEFAULT_RETRY_SETTINGS } from './retry-on-thread';
import { importModule } from './typescript-loader';
import type { PostToMain } from './job-batch';
import { CONTROL, ControlMessage, DONE, JobOutcome, JobTask, PROGRESS, ThreadData, TURN } from './protocol';
import { FIELDS, MAX_QUEUES, QueueSlots, readSlots, recordPace } from './work-table-layout';
import { claimsViews } from './claims-layout';
import { LocalJob, RunQueue, SlotClaims } from './run-queue';

const data = workerData as Partial<ThreadData> | undefined;
const retry = data?.retry ?? DEFAULT_RETRY_SETTINGS;
const cells = new Int32Array(data?.workTable ?? new SharedArrayBuffer(MAX_QUEUES * FIELDS * 4));
const claims = new SlotClaims(cells, data?.claims ? claimsViews(data.claims) : undefined, threadId);
const runQueue = new RunQueue(claims, () => flushSoon());
const post: PostToMain | undefined = parentPort
  ? (message, transfer) => parentPort?.postMessage(message, transfer)
  : undefined;
const slotsOf = (row: number | undefined): QueueSlots =>
  row !== undefined ? readSlots(cells, row) : { concurrency: 0, busy: 0, free: 0 };

const WITHDRAWN: JobOutcome = {
  ok: false,
  stopped: 'withdrawn',
  error: { class: 'JobWithdrawnError', message: 'withdrawn from its thread before it started' },
};

/** The `threadSetup` module (e.g. an OpenTelemetry tracer provider), imported once before the first job. */
const setupFile = data?.setup;
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

/** Runs one job's handler (after the setup module); never rejects. */
async function perform(task: JobTask): Promise<JobOutcome> {
  return (
    (setupFile && (await setUp(setupFile))) ||
    (await performTask(task, observer, slotsOf, post, retry).catch(unreadableFailure))
  );
}

/** One job through the run queue: resolves with its outcome once it ran, or was withdrawn unstarted. */
function runQueued(task: JobTask & { id: number }, onEnd: (outcome: JobOutcome) => void): void {
  // An exhausted hook runs in the slot its job still holds: it claims none.
  const row = task.exhausted ? undefined : task.slotsRow;
  const job: LocalJob = {
    id: task.id,
    row,
    generation: task.generation,
    run: () => {
      const startedAt = performance.now();
      const end = (outcome: JobOutcome) => {
        if (row !== undefined) recordPace(cells, row, (performance.now() - startedAt) * 1000);
        runQueue.ended(row);
        onEnd(outcome);
      };
      perform(task).then(end, (err: unknown) => end(unreadableFailure(err)));
    },
    withdraw: () => onEnd(WITHDRAWN),
  };
  runQueue.admit(job);
}

/** A chunk of jobs of one performMany handler and queue: one call, once it holds one slot per job. */
function runChunk(tasks: Array<JobTask & { id: number }>): void {
  const row = tasks[0].slotsRow;
  const ids = tasks.map((task) => task.id);
  const answer = (outcomes: JobOutcome[]) => ids.forEach((id, i) => finished(id, outcomes[i]));
  const job: LocalJob = {
    id: ids[0],
    ids,
    row,
    generation: tasks[0].generation,
    run: () => {
      const end = (outcomes: JobOutcome[]) => {
        runQueue.ended(row, ids.length);
        answer(outcomes);
      };
      performChunkOnce(tasks).then(end, (err: unknown) => end(tasks.map(() => unreadableFailure(err))));
    },
    withdraw: () => answer(tasks.map(() => WITHDRAWN)),
  };
  runQueue.admit(job);
}

/** Runs one chunk (after the setup module); never rejects. */
async function performChunkOnce(tasks: JobTask[]): Promise<JobOutcome[]> {
  const failed = setupFile && (await setUp(setupFile));
  if (failed) return tasks.map(() => failed);
  return performChunk(tasks, observer, slotsOf, post, retry);
}

/** A job with a timeout: a piscina task of its own (its thread is terminated when it runs over). */
export default function runJob(task: JobTask): Promise<JobOutcome> {
  return new Promise((resolve) => runQueued({ ...task, id: task.id ?? 0 }, resolve));
}

/**
 * Jobs handed over on the control port: each starts when it holds a slot, and each answers as it
 * finishes, so a slow job never holds back the others' acks.
 */
function runTasks(tasks: Array<JobTask & { id: number }>): void {
  for (const task of tasks) runQueued(task, (outcome) => finished(task.id, outcome));
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

// What this turn has to say: answered together once its microtasks ran.
let finishedIds: number[] = [];
let finishedOutcomes: JobOutcome[] = [];
let flushQueued = false;

function finished(id: number, outcome: JobOutcome): void {
  finishedIds.push(id);
  finishedOutcomes.push(outcome);
  flushSoon();
}

/**
 * A tick queued from a microtask runs once the microtasks queued so far ran: the jobs that end
 * together (every job of a batch of quick ones), and the jobs their slots go to, go in one message.
 */
function flushSoon(): void {
  if (flushQueued) return;
  flushQueued = true;
  process.nextTick(flush);
}

/** Posts what this turn has to say, then starts the jobs it says started (never the other way round). */
function flush(): void {
  flushQueued = false;
  const starts = runQueue.takeStarts();
  const port = parentPort;
  // Off a worker thread (a test running the entry in-process) there is nobody to tell.
  if (port && (starts.length > 0 || finishedIds.length > 0)) postTurn(port, starts);
  for (const job of starts) job.run();
}

function postTurn(port: MessagePort, starts: LocalJob[]): void {
  const message = {
    type: TURN,
    threadId,
    started: starts.length > 0 ? starts.flatMap((job) => job.ids ?? [job.id]) : undefined,
    ids: finishedIds,
    outcomes: finishedOutcomes,
  };
  const ids = finishedIds;
  const outcomes = finishedOutcomes;
  finishedIds = [];
  finishedOutcomes = [];
  try {
    port.postMessage(message);
  } catch {
    // An outcome that cannot be cloned: the turn goes without them, then each on its own, that one as text.
    port.postMessage({ ...message, ids: [], outcomes: [] });
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

/** The main thread's requests come on a port of this thread's own, sent to it as the thread starts. */
function openControlPort(): void {
  if (!parentPort) return;
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (msg: ControlMessage) => {
    if (msg.type === 'run') {
      runTasks(msg.tasks);
      return;
    }
    if (msg.type === 'runChunk') {
      runChunk(msg.tasks);
      return;
    }
    const ids = msg.ids ? new Set(msg.ids) : undefined;
    const rows = msg.rows ? new Set(msg.rows) : undefined;
    runQueue.withdraw(
      ids || rows
        ? (job) =>
            (job.ids ?? [job.id]).some((id) => ids?.has(id) ?? false) ||
            (job.row !== undefined && (rows?.has(job.row) ?? false))
        : undefined,
    );
  });
  parentPort.postMessage({ type: CONTROL, threadId, port: port2 }, [port2]);
}

openControlPort();
