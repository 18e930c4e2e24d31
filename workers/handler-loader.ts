// Loads handler modules inside a worker thread and finds their `perform`. The module path always
// comes from the main thread's registry; a class name never becomes a path here.
import { pathToFileURL } from 'node:url';

export type Perform = (this: JobContext, ...args: unknown[]) => unknown;

/** What a handler can read through `this`. */
export interface JobContext {
  jid: string;
  queue: string;
  className: string;
  /** Failures so far as the payload counts them (absent before the first failure). */
  retryCount: number | undefined;
  /** Epoch seconds (read from float seconds or Sidekiq 8's integer milliseconds). */
  enqueuedAt: number | undefined;
  /** Times a handler asked to run this job again later (see `nack`). */
  nacks: number;
  /** Asks for the job to go back to its queue and run again later, once `perform` returns (Disque's NACK). */
  nack(): void;
}

const loaded = new Map<string, Promise<Perform>>();

export class HandlerLoadError extends Error {
  override readonly name = 'HandlerLoadError';
}

function findPerform(mod: Record<string, any>, file: string): Perform {
  const candidates = [mod.perform, mod.default?.perform, mod.default];
  for (const candidate of candidates) if (typeof candidate === 'function') return candidate as Perform;
  throw new HandlerLoadError(`${file} exports no perform function (named, default, or default.perform)`);
}

export function loadPerform(file: string): Promise<Perform> {
  let perform = loaded.get(file);
  if (!perform) {
    perform = import(pathToFileURL(file).href).then((mod) => findPerform(mod, file));
    // A module that failed to load may be fixed on disk; do not cache the failure.
    perform.catch(() => loaded.delete(file));
    loaded.set(file, perform);
  }
  return perform;
}
