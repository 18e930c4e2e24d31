// At start, on the main thread: loads every registered handler module once and checks that it
// exports a perform function, by the very code a worker thread uses (workers/handler-loader.ts).
// A wrong path, a module without `perform` or a syntax error then stops the start, naming the
// file, instead of failing every job of that class later. The registry learns each module's
// retry policy here (its max and named backoff apply on the main thread too, when a thread timed
// out or died), whether it has an `exhausted` hook, whether its jobs' args are encrypted
// (`encrypt`) and, for a `performMany` module, its `chunk` settings. TypeScript modules load once
// more on a worker thread of their own (workers/load-check.ts): a loader the main thread has may
// not reach the threads.
import { NexqError } from '../../config/nexq-error';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadHandler, LoadedHandler } from '../../workers/handler-loader';
import type { LoadCheckAnswer, LoadCheckData } from '../../workers/load-check';
import { isTypeScriptFile } from '../../workers/typescript-loader';
import type { HandlerRegistry } from './registry';

const LOAD_CHECK = path.join(__dirname, '..', '..', 'workers', 'load-check.js');

/** A registered handler that does not load or has no perform function. */
export class HandlerCheckError extends NexqError {
  static override readonly code = 'HANDLER_CHECK';
  override readonly name = 'HandlerCheckError';
}

/**
 * Loads every module of `registry`; resolves to a one-line summary, or throws HandlerCheckError for
 * the first bad one.
 */
export async function checkHandlers(registry: HandlerRegistry): Promise<string> {
  const modules = registry.modules;
  // Called from a callback, outside any async function: otherwise the stack of a module that is not
  // found runs on into the application's `await Nexq.start()`, which the loader would name as the place.
  const outcomes = await new Promise<Array<PromiseSettledResult<LoadedHandler>>>((resolve) => {
    setImmediate(() => resolve(Promise.allSettled(modules.map(({ file }) => loadHandler(file)))));
  });
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected')
      throw new HandlerCheckError(`handler ${modules[i].className}: ${whyNot(modules[i].file, outcome.reason)}`);
    registry.learn(modules[i].file, {
      retry: outcome.value.retry,
      exhausted: outcome.value.exhausted !== undefined,
      encrypt: outcome.value.encrypt === true,
      ...(outcome.value.chunk ? { chunk: outcome.value.chunk } : {}),
    });
  });
  const typescript = modules.filter(({ file }) => isTypeScriptFile(file));
  if (typescript.length > 0) {
    const reasons = await loadOnAThread(typescript.map(({ file }) => file));
    reasons.forEach((reason, i) => {
      if (reason !== undefined)
        throw new HandlerCheckError(`handler ${typescript[i].className}: on a worker thread, ${reason}`);
    });
  }
  const list = modules.map(({ className, file }) => `${className} (${shortPath(file)})`);
  const skipped = registry.skipped.map(shortPath);
  // A module whose name is no class name is not a handler: said, as a misnamed handler looks like one.
  const notHandlers = skipped.length ? `; not handlers, their names being no class names: ${skipped.join(', ')}` : '';
  return `handlers: ${list.join(', ') || 'none'}${notHandlers}`;
}

/**
 * Loads `files` on a new worker thread, which inherits what piscina's threads inherit (the
 * process's execArgv and environment); per file, undefined or why it failed there.
 */
function loadOnAThread(files: string[]): Promise<LoadCheckAnswer> {
  return new Promise((resolve, reject) => {
    const data: LoadCheckData = { files };
    const thread = new Worker(LOAD_CHECK, { workerData: data });
    thread.once('message', (answer: LoadCheckAnswer) => {
      resolve(answer);
      thread.terminate().catch(() => undefined); // the answer is in: how it ends does not matter
    });
    thread.once('error', (err) => reject(new HandlerCheckError(`handlers on a worker thread: ${err.message}`)));
    thread.once('exit', (code) =>
      reject(new HandlerCheckError(`handlers on a worker thread: the thread exited (${code}) before it answered`)),
    );
  });
}

/** The loader's reason on one line; it names the file (and where V8 says it, the line). */
function whyNot(file: string, err: unknown): string {
  // "Cannot find module '/x/nope.js' imported from /.../handler-loader.js": the importer is nexq's.
  const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0].replace(/ imported from \S+/, '');
  return reason.includes(file) ? reason : `${file}: ${reason}`;
}

/** A path relative to the working directory when it lies inside it; absolute otherwise. */
function shortPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
