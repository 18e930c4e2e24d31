// Loads handler modules inside a worker thread and finds their `perform`. The module path always
// comes from the main thread's registry; a class name never becomes a path here.
import { NexqError } from '../config/nexq-error';
import { pathToFileURL } from 'node:url';
import { firstLocation, handlerFrames } from './backtrace';

import type { QueueSlots } from './work-table-layout';
import type { JobBatch } from './job-batch';

export type Perform = (this: JobContext, ...args: unknown[]) => unknown;

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
   * This node's slots of the job's queue now, read lock-free from the shared work table: e.g. to
   * size a batch by how busy the node is. In nexq/testing a job runs alone: 1 slot, 1 busy.
   */
  slots(): QueueSlots;
  /** The job's batch, when it belongs to one: jobs added with it join that batch. */
  batch?: JobBatch;
}

const loaded = new Map<string, Promise<Perform>>();

export class HandlerLoadError extends NexqError {
  static override readonly code = 'HANDLER_LOAD';
  override readonly name = 'HandlerLoadError';
}

function findPerform(mod: Record<string, unknown>, file: string): Perform {
  const fallback = mod.default;
  const candidates = [mod.perform, (fallback as { perform?: unknown } | null | undefined)?.perform, fallback];
  for (const candidate of candidates) if (typeof candidate === 'function') return candidate as Perform;
  throw new HandlerLoadError(`${file} exports no perform function (named, default, or default.perform)`);
}

/**
 * One line naming the handler file, what went wrong and, where V8 says it, the file and line:
 * `/app/jobs/Foo.js failed to load: SyntaxError: Unexpected end of input at /app/jobs/Foo.js:4`.
 * A syntax error names the file it is in (perhaps one the handler requires); an error thrown while
 * the module runs names its first frame outside Node's and nexq's own code. For ES modules Node 20
 * keeps the place of a syntax error to itself: `node --check <file>` shows it.
 */
export function describeLoadFailure(file: string, err: unknown): string {
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

export function loadPerform(file: string): Promise<Perform> {
  let perform = loaded.get(file);
  if (!perform) {
    perform = import(pathToFileURL(file).href).then(
      (mod: Record<string, unknown>) => findPerform(mod, file),
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
    perform.catch(() => loaded.delete(file));
    loaded.set(file, perform);
  }
  return perform;
}
