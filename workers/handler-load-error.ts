// The error of a handler module that does not load, kept apart from the loader so the modules it
// uses (workers/typescript-loader.ts) can throw it too.
import { NexqError } from '../config/nexq-error';

/** A handler module that does not load or exports no perform function (on a thread: the job fails). */
export class HandlerLoadError extends NexqError {
  static override readonly code = 'HANDLER_LOAD';
  override readonly name = 'HandlerLoadError';
}
