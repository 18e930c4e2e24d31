// A second SIGINT (Ctrl-C) or SIGTERM while `nexq start` stops gracefully: exit at once, saying on
// the terminal how many jobs stay in this node's backup lists and when they run again.
import type { NexqNode } from '../node/node';
import { whenBackupRunsAgain } from '../node/process-faults';
import { backupQueuesOf } from '../redis/backups';

/** How long the count may take: the user asked to stop now. */
const COUNT_WAIT_MS = 1000;

/** Jobs in this node's backup lists; undefined when Redis does not say in time. */
async function jobsInBackup(node: NexqNode): Promise<number | undefined> {
  const { redis, keys, config } = node.ctx;
  const count = (async () => {
    const lengths = await Promise.all(
      (await backupQueuesOf(redis, keys, config.nodeId)).map((q) => redis.llen(keys.backup(config.nodeId, q))),
    );
    return lengths.reduce((sum, n) => sum + n, 0);
  })();
  const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), COUNT_WAIT_MS).unref());
  return Promise.race([count.catch(() => undefined), late]);
}

/** The one line a forced stop prints, e.g. `forced stop: 3 jobs left in backup, they run again ...`. */
export async function forcedStopLine(node: NexqNode): Promise<string> {
  const when = whenBackupRunsAgain(node.ctx.config);
  const count = await jobsInBackup(node);
  if (count === 0) return 'forced stop: no job left in backup';
  if (count === undefined)
    return `forced stop: jobs may be left in backup (Redis did not answer to count them); ${when}`;
  return `forced stop: ${count} job${count === 1 ? '' : 's'} left in backup, ${when}`;
}

let forcing = false;

/** Exits with `code` (130 after SIGINT, 143 after SIGTERM) after printing the line; a third signal exits at once. */
export function forceStop(node: NexqNode, code: number): void {
  if (forcing) process.exit(code);
  forcing = true;
  forcedStopLine(node).then(
    (line) => {
      process.stderr.write(`nexq: ${line}\n`);
      process.exit(code);
    },
    () => process.exit(code), // the line is a courtesy: the user asked to stop now
  );
}
