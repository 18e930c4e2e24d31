// What a caller that inspects a run (nexq/testing) hears of it; a node passes nothing.
import type { JobContext } from './handler-loader';

/** Optional hooks for callers that inspect a run (nexq/testing); a node passes none. */
export interface PerformObserver {
  /** Just before `perform` is called, with the very args array and context it gets. */
  starting?(args: unknown[], context: JobContext): void;
  /** What `perform` returned (awaited), when it did not throw. */
  returned?(value: unknown): void;
  /** What was thrown or rejected, before it becomes a ThrownError. */
  failed?(err: unknown): void;
  /** A progress value the handler reported (checked: a number or small JSON). */
  progress?(jid: string, value: unknown): void;
}
