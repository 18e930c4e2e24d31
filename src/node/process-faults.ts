// What a node says when its process meets an error that nothing handled: an exception no code
// caught, or a promise rejected with no handler, which Node (20) turns into one.
//
// A node started by `Nexq.start` lives in its application's process and does not own it, so it
// installs no 'uncaughtException' or 'unhandledRejection' listener: either would change what the
// whole application does on every such error (Node exits on both; a listener keeps the process
// going). It only watches, through 'uncaughtExceptionMonitor', which changes nothing, and logs the
// error with its stack and, when the process is about to exit, what becomes of this node's jobs: so
// a node never vanishes without a word in its own log. nexq's own code leaves no promise unhandled
// (the lint rule no-floating-promises, and a test-wide hook that fails any test that leaves one).
// `nexq start`, which owns its process, decides what to do (src/cli/process-faults.ts).
import type { ResolvedConfig } from '../../config/validate';
import { errorFields, Logger } from '../runtime/logger';

/** When the jobs a node left in its backup list run again. */
export function whenBackupRunsAgain(config: Pick<ResolvedConfig, 'fixedNodeId' | 'nodeTimeout'>): string {
  // A generated node id never starts again: a survivor's reaper re-runs them.
  return config.fixedNodeId
    ? `they run again on this node's next start or within nodeTimeout (${config.nodeTimeout} s) on another`
    : `another node runs them again within nodeTimeout (${config.nodeTimeout} s)`;
}

export interface FaultWatch {
  logger: Logger;
  config: Pick<ResolvedConfig, 'fixedNodeId' | 'nodeTimeout'>;
  /** Jobs running on this node now. */
  running(): number;
}

/** Logs every uncaught exception and unhandled rejection of the process; returns the unwatch. */
export function watchProcessFaults(watch: FaultWatch): () => void {
  const monitor = (err: unknown, origin: NodeJS.UncaughtExceptionOrigin) => {
    const error = errorFields(err);
    const what = origin === 'unhandledRejection' ? 'a promise rejected with no handler' : 'an uncaught exception';
    // No listener: Node exits the process right after this (its default, which this node keeps).
    const exiting = process.listenerCount('uncaughtException') === 0;
    const running = watch.running();
    const aftermath = exiting
      ? `; the process exits now, leaving ${running} running job${running === 1 ? '' : 's'} of this node in its ` +
        `backup list: ${whenBackupRunsAgain(watch.config)}`
      : '';
    watch.logger.error(`process fault, ${what}: ${error.message}${aftermath}`, { actor: 'node', error });
  };
  process.on('uncaughtExceptionMonitor', monitor);
  return () => process.off('uncaughtExceptionMonitor', monitor);
}
