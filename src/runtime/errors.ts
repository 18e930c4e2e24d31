// Errors of the actor runtime. Each is its own class so callers can tell them apart with instanceof.
import { NexqError } from '../../config/nexq-error';

/** A `call` got no reply within its timeout. The message may still be handled later. */
export class CallTimeoutError extends NexqError {
  static override readonly code = 'CALL_TIMEOUT';
  override readonly name = 'CallTimeoutError';
  constructor(
    readonly actor: string,
    readonly timeoutMs: number,
  ) {
    super(`call to ${actor} timed out after ${timeoutMs} ms`);
  }
}

/** The actor exited (or was never started) before it could answer. */
export class ActorExitedError extends NexqError {
  static override readonly code = 'ACTOR_EXITED';
  override readonly name = 'ActorExitedError';
  constructor(
    readonly actor: string,
    readonly reason: unknown,
  ) {
    super(`${actor} exited: ${describeReason(reason)}`);
  }
}

/** Human-readable form of an exit reason, for logs and error messages. */
export function describeReason(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  if (typeof reason === 'string') return reason;
  try {
    return JSON.stringify(reason);
  } catch {
    return String(reason);
  }
}
