// The piscina entry: runs one job's handler on this worker thread (workers/perform-task.ts) and
// answers with a plain record. Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`.
import { parentPort } from 'node:worker_threads';
import { performTask } from './perform-task';
import { JobOutcome, JobTask, STARTED } from './protocol';

export default async function runJob(task: JobTask): Promise<JobOutcome> {
  if (task.id !== undefined) parentPort?.postMessage({ type: STARTED, id: task.id });
  return performTask(task);
}
