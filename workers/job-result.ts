// What a handler hands back besides success: its return value, kept as the job's result when the
// job or its class asks (`keep_result` in the job, `keepResult` exported by the handler), and the
// progress it reports with `this.progress(value)`. Both become JSON here, on the thread, and are
// refused above their size limits with an error naming the limit.
import { NexqError } from '../config/nexq-error';

/** The largest result kept, in bytes of its JSON. */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** The largest progress value, in bytes of its JSON: a number or a small object. */
export const MAX_PROGRESS_BYTES = 4096;

export class ResultTooLargeError extends NexqError {
  static override readonly code = 'RESULT_TOO_LARGE';
  override readonly name = 'ResultTooLargeError';
}

export class InvalidProgressError extends NexqError {
  static override readonly code = 'PROGRESS_INVALID';
  override readonly name = 'InvalidProgressError';
}

/** A result to store: its JSON and how many seconds Redis keeps it. */
export interface KeptResult {
  json: string;
  ttl: number;
}

const positiveSeconds = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/** Seconds to keep the result: the job's own `keep_result` wins over the handler's `keepResult`; 0: not kept. */
export function keepSecondsOf(jobField: unknown, handlerExport: unknown): number {
  if (positiveSeconds(jobField)) return Math.ceil(jobField);
  if (positiveSeconds(handlerExport)) return Math.ceil(handlerExport);
  return 0;
}

/** JSON.stringify, typed as it behaves: undefined for undefined, a function or a symbol. */
function jsonOf(value: unknown): string | undefined {
  const json: string | undefined = JSON.stringify(value);
  return json;
}

/** The result of `className` as JSON (undefined is kept as null); throws ResultTooLargeError above the limit. */
export function resultJson(value: unknown, className: string): string {
  let json: string | undefined;
  try {
    json = jsonOf(value === undefined ? null : value);
  } catch (err) {
    throw new ResultTooLargeError(`the result of ${className} cannot be written as JSON: ${(err as Error).message}`);
  }
  json ??= 'null'; // a function or symbol returned
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_RESULT_BYTES)
    throw new ResultTooLargeError(
      `the result of ${className} is ${bytes} bytes of JSON, above the ${MAX_RESULT_BYTES} kept: return less, or store it elsewhere and return its key`,
    );
  return json;
}

/** A progress value checked: a finite number, or JSON of at most MAX_PROGRESS_BYTES. */
export function checkedProgress(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidProgressError(`progress must be a finite number (got ${value})`);
    return value;
  }
  let json: string | undefined;
  try {
    json = jsonOf(value);
  } catch (err) {
    throw new InvalidProgressError(`progress must be a number or JSON: ${(err as Error).message}`);
  }
  if (json === undefined) throw new InvalidProgressError(`progress must be a number or JSON (got ${typeof value})`);
  if (Buffer.byteLength(json) > MAX_PROGRESS_BYTES)
    throw new InvalidProgressError(`progress must be at most ${MAX_PROGRESS_BYTES} bytes of JSON: report a summary`);
  return JSON.parse(json) as unknown;
}
