// A worker thread of its own at start, for TypeScript handlers: loads them as a job's thread will
// (workers/handler-loader.ts), since the main thread may run TypeScript by a loader a worker thread
// does not have (see workers/typescript-loader.ts). Answers, per module, undefined or why it failed.
import { parentPort, workerData } from 'node:worker_threads';
import { describeLoadFailure, loadHandler } from './handler-loader';

/** What the thread is given: the modules to load. */
export interface LoadCheckData {
  files: string[];
}

/** Per module, in order: undefined when it loaded, else the one-line reason. */
export type LoadCheckAnswer = Array<string | undefined>;

async function check({ files }: LoadCheckData): Promise<LoadCheckAnswer> {
  const outcomes = await Promise.allSettled(files.map((file) => loadHandler(file)));
  return outcomes.map((outcome, i) =>
    outcome.status === 'fulfilled' ? undefined : describeLoadFailure(files[i], outcome.reason).split('\n')[0],
  );
}

if (parentPort && (workerData as Partial<LoadCheckData> | undefined)?.files) {
  const port = parentPort;
  const data = workerData as LoadCheckData;
  // check answers each module's failure itself; should describing one throw, each module fails with that.
  check(data).then(
    (answer) => port.postMessage(answer),
    (err: unknown) => port.postMessage(data.files.map(() => `the load check failed: ${String(err)}`)),
  );
}
