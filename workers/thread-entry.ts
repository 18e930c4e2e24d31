// The piscina entry: runs one job's handler on this worker thread (workers/perform-task.ts) and
// answers with a plain record. Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`.
import { parentPort, threadId } from 'node:worker_threads';
import { performTask } from './perform-task';
import { BATCH, DONE, JobOutcome, JobTask, STARTED } from './protocol';

export default async function runJob(task: JobTask): Promise<JobOutcome> {
  if (task.id !== undefined) parentPort?.postMessage({ type: STARTED, id: task.id });
  return performTask(task);
}

/**
 * A batch of jobs in one piscina task (handing jobs over one by one costs more than running
 * them): all run at once, and their outcomes go back as they finish, those that finish in the same
 * turn of this thread's event loop in one `{ type: DONE, done: [[id, outcome], ...] }` message, so a
 * slow job never holds back the others' acks. Resolves when all are done, their outcomes posted.
 */
export async function runBatch(tasks: Array<JobTask & { id: number }>): Promise<number> {
  parentPort!.postMessage({ type: BATCH, ids: tasks.map((t) => t.id), threadId });
  await Promise.all(
    tasks.map(async (task) => {
      report(task.id, await performTask(task));
    }),
  );
  // Now, not on a later turn: with no task left, piscina blocks this thread until the next one.
  postFinished();
  return tasks.length;
}

/** Outcomes finished this turn, to go to the main thread together. */
let finished: Array<[number, JobOutcome]> = [];

function report(id: number, outcome: JobOutcome): void {
  finished.push([id, outcome]);
  if (finished.length === 1) setImmediate(postFinished);
}

function postFinished(): void {
  if (finished.length === 0) return;
  const done = finished;
  finished = [];
  try {
    parentPort!.postMessage({ type: DONE, done });
  } catch {
    // An error whose fields cannot be cloned: those outcomes go with their text, never failing the others.
    parentPort!.postMessage({ type: DONE, done: done.map(([id, outcome]) => [id, cloneable(outcome)]) });
  }
}

function cloneable(outcome: JobOutcome): JobOutcome {
  return outcome.ok ? { ok: true, ...(outcome.nack ? { nack: true } : {}) } : { ok: false, error: { class: String(outcome.error.class), message: String(outcome.error.message) } };
}
