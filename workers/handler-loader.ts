// Loads handler modules inside a worker thread and finds their `perform`. The module path always
// comes from the main thread's registry; a class name never becomes a path here.
import { firstLocation, handlerFrames } from './backtrace';
import { HandlerLoadError } from './handler-load-error';
import { importModule } from './typescript-loader';
import { readRetryPolicy, RetryPolicy } from '../src/job/retry-policy';
import { ChunkSettings, readChunkSettings } from './chunk-settings';

import type { QueueSlots } from './work-table-layout';
import type { JobBatch } from './job-batch';

export type Perform = (this: JobContext, ...args: unknown[]) => unknown;
/** `performMany(argsList)`: one call for a chunk of jobs, one result (or Error) per job, in order. */
export type PerformMany = (this: ChunkContext, argsList: unknown[][]) => unknown;
export type Exhausted = (this: JobContext, args: unknown[], error: Error) => unknown;

/**
 * What a handler module exports: `perform` (or `performMany` with its `chunk` settings), and
 * optionally a `retry` policy and an `exhausted` hook.
 */
export interface LoadedHandler {
  /** Its `perform`; none for a module with only `performMany` (a lone job of it is a chunk of one). */
  perform?: Perform;
  /** Its `performMany`: its jobs run in chunks (workers/perform-chunk.ts). */
  performMany?: PerformMany;
  chunk?: ChunkSettings;
  retry?: RetryPolicy;
  exhausted?: Exhausted;
  /** Its `keepResult` export: seconds to keep its return value as the job's result. */
  keepResult?: unknown;
  /** Its `encrypt` export: the args of its jobs are stored encrypted (docs/encryption.md). */
  encrypt?: boolean;
}

/** What a handler can read through `this`. */
export interface JobContext {
  jid: string;
  queue: string;
  className: string;
  /** Failures so far as the payload counts them: 0 on the first run. */
  retryCount: number;
  /** Epoch seconds (read from float seconds or Sidekiq 8's integer milliseconds). */
  enqueuedAt: number | undefined;
  /** Times a handler asked to run this job again later (see `nack`). */
  nacks: number;
  /** Asks for the job to go back to its queue and run again later, once `perform` returns (Disque's NACK). */
  nack(): void;
  /**
   * Says the remote side throttles this job (e.g. an HTTP 429), for `seconds` (> 0): once `perform`
   * returns, the job goes back to the head of its queue, no failure nor retry counted, and no job of
   * its queue (of its class, when `classRateLimits` names it) starts on any node for that long.
   */
  rateLimited(seconds: number): void;
  /**
   * This node's slots of the job's queue now, read lock-free from the shared work table: e.g. to
   * size a batch by how busy the node is. In nexq/testing a job runs alone: 1 slot, 1 busy.
   */
  slots(): QueueSlots;
  /**
   * Reports how far the job is: a number or small JSON (at most 4 KB), shown by `show(jid)`, the
   * dashboard's running jobs and the `job:progress` event. The latest value wins.
   */
  progress(value: unknown): void;
  /** The job's batch, when it belongs to one: jobs added with it join that batch. */
  batch?: JobBatch;
}

/** What `performMany` reads through `this`: the chunk's jobs, each as a single job's context. */
export interface ChunkContext {
  queue: string;
  className: string;
  /** One context per job, in the order of `argsList` (their `nack`, `rateLimited` and `progress` work per job). */
  jobs: JobContext[];
  /** This node's slots of the queue now (each job of the chunk holds one). */
  slots(): QueueSlots;
}

const loaded = new Map<string, Promise<LoadedHandler>>();

export { HandlerLoadError };

function findPerform(mod: Record<string, unknown>, file: string, many: PerformMany | undefined): Perform | undefined {
  const fallback = mod.default;
  const candidates = [mod.perform, (fallback as { perform?: unknown } | null | undefined)?.perform];
  // A bare default function is `perform` only for a module without performMany.
  if (!many) candidates.push(fallback);
  for (const candidate of candidates) if (typeof candidate === 'function') return candidate as Perform;
  if (many) return undefined;
  throw new HandlerLoadError(`${file} exports no perform function (named, default, or default.perform)`);
}

/** The module's `performMany` and `chunk` exports, checked (a `chunk` without `performMany` is a mistake). */
function findMany(mod: Record<string, unknown>, file: string): Pick<LoadedHandler, 'performMany' | 'chunk'> {
  const many = exportOf(mod, 'performMany');
  const chunk = exportOf(mod, 'chunk');
  if (many === undefined) {
    if (chunk !== undefined) throw new HandlerLoadError(`${file}: chunk is exported without performMany`);
    return {};
  }
  if (typeof many !== 'function')
    throw new HandlerLoadError(`${file}: performMany must be a function (argsList), not ${typeof many}`);
  const settings = readChunkSettings(chunk);
  if (typeof settings === 'string') throw new HandlerLoadError(`${file}: ${settings}`);
  return { performMany: many as PerformMany, chunk: settings };
}

/** The module's export `name`, named or on its default export. */
function exportOf(mod: Record<string, unknown>, name: string): unknown {
  return mod[name] ?? (mod.default as Record<string, unknown> | null | undefined)?.[name];
}

function findHandler(mod: Record<string, unknown>, file: string): LoadedHandler {
  const many = findMany(mod, file);
  const handler: LoadedHandler = { perform: findPerform(mod, file, many.performMany), ...many };
  const retry = exportOf(mod, 'retry');
  if (retry !== undefined) {
    const policy = readRetryPolicy(retry);
    if (typeof policy === 'string') throw new HandlerLoadError(`${file}: ${policy}`);
    handler.retry = policy;
  }
  const exhausted = exportOf(mod, 'exhausted');
  if (exhausted !== undefined && typeof exhausted !== 'function')
    throw new HandlerLoadError(`${file}: exhausted must be a function (args, error), not ${typeof exhausted}`);
  if (exhausted) handler.exhausted = exhausted as Exhausted;
  const keepResult = exportOf(mod, 'keepResult');
  if (keepResult !== undefined) handler.keepResult = keepResult;
  const encrypt = exportOf(mod, 'encrypt');
  if (encrypt !== undefined && typeof encrypt !== 'boolean')
    throw new HandlerLoadError(`${file}: encrypt must be true or false, not ${typeof encrypt}`);
  if (encrypt) handler.encrypt = true;
  return handler;
}

/**
 * One line naming the handler file, what went wrong and, where V8 says it, the file and line:
 * `/app/jobs/Foo.js failed to load: SyntaxError: Unexpected end of input at /app/jobs/Foo.js:4`.
 * A syntax error names the file it is in (perhaps one the handler requires); an error thrown while
 * the module runs names its first frame outside Node's and nexq's own code. For ES modules Node 20
 * keeps the place of a syntax error to itself: `node --check <file>` shows it.
 */
export function describeLoadFailure(file: string, err: unknown): string {
  // Already one line naming the file (a TypeScript module with no loader for it).
  if (err instanceof HandlerLoadError) return err.message;
  if (!(err instanceof Error)) return `${file} failed to load: ${String(err)}`;
  const what = `${err.name}: ${err.message}`;
  const stack = err.stack ?? '';
  // CommonJS syntax errors: V8 puts `path:line` on the stack's first line, above the source line.
  const header = /^(.+:\d+)\n/.exec(stack);
  const where = header && !header[1].startsWith(err.name) ? header[1] : firstLocation(handlerFrames(stack));
  if (where) return `${file} failed to load: ${what} at ${where}`;
  if (err instanceof SyntaxError)
    return `${file} failed to load: ${what} (Node gives no line for ES modules: run node --check ${file})`;
  return `${file} failed to load: ${what}`;
}

export function loadHandler(file: string): Promise<LoadedHandler> {
  let handler = loaded.get(file);
  if (!handler) {
    handler = importModule(file).then(
      (mod) => findHandler(mod, file),
      (err: unknown) => {
        const failure = new HandlerLoadError(describeLoadFailure(file, err), { cause: err });
        // Its stack is the module's: the frame that threw while the module ran, if any.
        if (err instanceof Error && err.stack)
          failure.stack = `${failure.name}: ${failure.message}\n${handlerFrames(err.stack)
            .map((f) => `    ${f}`)
            .join('\n')}`;
        throw failure;
      },
    );
    // A module that failed to load may be fixed on disk; do not cache the failure.
    handler.catch(() => loaded.delete(file));
    loaded.set(file, handler);
  }
  return handler;
}
