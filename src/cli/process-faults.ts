// What `nexq start` does with an error nothing in its process handled. The command owns its
// process, so it decides (a node inside an application only logs them: src/node/process-faults.ts,
// whose watch logs an uncaught exception with its stack before this runs):
//  - a promise rejected with no handler: logged with its stack, and the node goes on. Such a
//    rejection is an answer nobody was waiting for any more (a failover's "the command may or may
//    not have run" for a caller that had moved on): no actor's state depends on it, and exiting,
//    Node's default, abandons every running job to the reaper, to run again after nodeTimeout.
//    Sidekiq likewise logs an error no job owns and carries on.
//  - an exception nothing caught: the node stops gracefully (fetching stops, running jobs get
//    shutdownTimeout, a generated id's backup goes back to its queues) and the process exits 1, so
//    its supervisor (systemd, Kubernetes) starts it again. After one, Node cannot tell what state
//    the program is in, and its docs say not to resume; stopping cleanly loses nothing.
import { errorFields, Logger } from '../runtime/logger';

export interface FaultPolicy {
  logger: Logger;
  /** Stops the node gracefully and exits with `code` (a second call: at once). */
  stop(code: number): void;
}

/** Installs the policy for the life of the command; returns the uninstall. */
export function handleProcessFaults(policy: FaultPolicy): () => void {
  const onRejection = (reason: unknown) => {
    const error = errorFields(reason);
    policy.logger.error(`a promise was rejected with no handler (nexq start goes on): ${error.message}`, {
      actor: 'process',
      error,
    });
  };
  const onException = (err: unknown) => {
    policy.logger.error(`stopping after an uncaught exception (${errorFields(err).message}); exit code 1`, {
      actor: 'process',
    });
    policy.stop(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
