// The node's typed job events, for users' own hooks (and nexq's Prometheus metrics): a job started,
// succeeded, failed, and where a failed one went (retry or dead). Emitted by the JobRunner once the
// outcome is settled in Redis. Listeners are observers: one that throws or rejects is logged and
// never reaches the job or the actor. The JobRunner asks `has` before building a payload, so a node
// nobody listens to pays nothing per job.
import type { NexqErrorCode } from '../../config/nexq-error';
import type { Logger } from '../runtime/logger';

export interface JobEventBase {
  jid: string;
  queue: string;
  class: string;
  args: unknown[];
  nodeId: string;
  /** Failures so far, as the job's `retry_count` says (0 for a first run). */
  retryCount: number;
}

export interface JobErrorInfo {
  class: string;
  message: string;
  /** Set when nexq ended the run: JOB_TIMEOUT, JOB_EXPIRED, HANDLER_MISSING, ... (docs/errors.md). */
  code?: NexqErrorCode;
}

export interface JobEventMap {
  'job:start': JobEventBase;
  'job:success': JobEventBase & { durationMs: number };
  /** Every failed run, before its fate: followed by `job:retry` or `job:dead` unless the job is dropped. */
  'job:failure': JobEventBase & { durationMs: number; error: JobErrorInfo };
  /** Filed in `retry`; `retryCount` is the new count, `nextRetryAt` when it runs again. */
  'job:retry': JobEventBase & { error: JobErrorInfo; nextRetryAt: Date };
  /** Filed in `dead`: out of retries, or expired before it started (`error.class` JobExpiredError). */
  'job:dead': JobEventBase & { error: JobErrorInfo };
  /** Its handler called `this.progress(value)` (as the main thread heard it). */
  'job:progress': JobEventBase & { progress: unknown };
}

export type JobEventName = keyof JobEventMap;
export type JobEventListener<E extends JobEventName> = (payload: JobEventMap[E]) => unknown;

export class JobEvents {
  private readonly listeners = new Map<JobEventName, Set<JobEventListener<never>>>();
  /** The listener each `once` wrapper calls, so `off` finds it by the listener given. */
  private readonly onceOf = new WeakMap<JobEventListener<never>, JobEventListener<never>>();

  constructor(private readonly logger?: Logger) {}

  on<E extends JobEventName>(event: E, listener: JobEventListener<E>): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  /** Removes `listener`, whether it was added with `on` or `once`. */
  off<E extends JobEventName>(event: E, listener: JobEventListener<E>): this {
    const set = this.listeners.get(event);
    if (!set) return this;
    for (const entry of set) {
      if (entry === listener || this.onceOf.get(entry) === listener) {
        set.delete(entry);
        break;
      }
    }
    if (set.size === 0) this.listeners.delete(event);
    return this;
  }

  /** Calls `listener` for the next `event` only. */
  once<E extends JobEventName>(event: E, listener: JobEventListener<E>): this {
    const wrapper: JobEventListener<E> = (payload) => {
      this.off(event, wrapper);
      return listener(payload);
    };
    this.onceOf.set(wrapper, listener);
    return this.on(event, wrapper);
  }

  /** Whether anyone listens to `event`: checked before a payload is built. */
  has(event: JobEventName): boolean {
    return this.listeners.has(event);
  }

  listenerCount(event: JobEventName): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  /** Calls each listener in order; a throw or a rejection is logged, never passed on. */
  emit<E extends JobEventName>(event: E, payload: JobEventMap[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        const result = (listener as JobEventListener<E>)(payload);
        if (result instanceof Promise) result.catch((err: unknown) => this.report(event, err));
      } catch (err) {
        this.report(event, err);
      }
    }
  }

  private report(event: JobEventName, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.logger?.error(`a ${event} listener failed: ${message}`, { actor: 'events' });
  }
}
