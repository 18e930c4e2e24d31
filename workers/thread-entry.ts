// The piscina entry: runs one job's handler on this worker thread (workers/perform-task.ts) and
// answers with a plain record. Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`.
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { performTask } from './perform-task';
import type { PostToMain } from './job-batch';
import { BATCH, DONE, JobOutcome, JobTask, STARTED, ThreadData } from './protocol';
import { QueueSlots, readSlots } from './work-table-layout';

// The node's work table, shared with the main thread: read, never written, here.
const table = (workerData as Partial<ThreadData> | undefined)?.workTable;
const cells = table ? new Int32Array(table) : undefined;
const NO_ROW: QueueSlots = { concurrency: 0, busy: 0, free: 0 };
const post: PostToMain | undefined = parentPort
  ? (message, transfer) => parentPort?.postMessage(message, transfer)
  : undefined;
const slotsOf = (row: number | undefined): QueueSlots => (cells && row !== undefined ? readSlots(cells, row) : NO_ROW);

export default async function runJob(task: JobTask): Promise<JobOutcome> {
  if (task.id !== undefined) parentPort?.postMessage({ type: STARTED, id: task.id });
  return performTask(task, {}, slotsOf, post);
}

/**
 * A batch of jobs in one piscina task (handing jobs over one by one costs more than running
 * them): all run at once, and each answers with `{ type: DONE, id, outcome }` as it finishes, so
 * a slow job never holds back the others' acks. Resolves when all are done.
 */
export async function runBatch(tasks: Array<JobTask & { id: number }>): Promise<number> {
  // Piscina runs this on a worker thread, which always has a parent port.
  const port = parentPort;
  if (!port) throw new Error('runBatch runs on a worker thread only');
  port.postMessage({ type: BATCH, ids: tasks.map((t) => t.id), threadId });
  await Promise.all(
    tasks.map(async (task) => {
      const outcome = await performTask(task, {}, slotsOf, post);
      try {
        port.postMessage({ type: DONE, id: task.id, outcome });
      } catch {
        // An error whose fields cannot be cloned: answer with their text, never fail the batch.
        // (A success is `{ ok, nack? }`, always cloneable: it goes as it is, its nack kept.)
        // A handler's Error can hold any value in `name` and `message`, whatever ThrownError says.
        const thrown = outcome.ok ? undefined : (outcome.error as { class: unknown; message: unknown });
        const cloneable: JobOutcome = thrown
          ? { ok: false, error: { class: String(thrown.class), message: String(thrown.message) } }
          : outcome;
        port.postMessage({ type: DONE, id: task.id, outcome: cloneable });
      }
    }),
  );
  return tasks.length;
}
