// A handler's failure as the plain record a thread sends to the main thread (ThrownError).
import { inspect } from 'node:util';
import { handlerFrames } from './backtrace';
import { HandlerLoadError } from './handler-load-error';
import { ResultTooLargeError } from './job-result';
import type { ThrownError } from './protocol';

export function toThrownError(value: unknown): ThrownError {
  if (value instanceof Error) {
    return {
      class: value.name || (value.constructor as { name?: string } | undefined)?.name || 'Error',
      message: value.message,
      backtrace: handlerFrames(value.stack),
      // Its handler failed to load (HANDLER_LOAD), or its result was refused (RESULT_TOO_LARGE):
      // nexq's error, not one the handler threw.
      ...(value instanceof HandlerLoadError || value instanceof ResultTooLargeError ? { code: value.code } : {}),
    };
  }
  return { class: 'NonErrorThrown', message: `a non-Error was thrown: ${inspect(value, { depth: 2 })}` };
}
