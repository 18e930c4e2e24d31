// The check that a queue named on the command line exists: a typo should fail, not print "(none)".
import { UnknownQueueError } from '../errors';
import type { Session } from './common';
import { waitingJobs } from '../../redis/fair-queue';

/** Throws UnknownQueueError when `queue` is not in `<ns>:queues` and holds no job. */
export async function knownQueue({ redis, keys }: Session, queue: string): Promise<void> {
  if ((await redis.sismember(keys.queues, queue)) === 1) return;
  if ((await waitingJobs(redis, keys, queue)) > 0) return;
  const known = (await redis.smembers(keys.queues)).sort();
  throw new UnknownQueueError(
    `unknown queue ${JSON.stringify(queue)} (known: ${known.join(', ') || 'none'}; see nexq queues)`,
  );
}
