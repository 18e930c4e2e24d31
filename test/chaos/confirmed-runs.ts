// For the failover chaos tests: every jid whose enqueue was confirmed must show up in the list a
// recording fixture (Tally) fills; how many ran more than once is reported, not hidden.
import type Redis from 'ioredis';
import { waitFor } from '../support/node';

/**
 * Waits until each of `confirmed` ran (is in the list `done`); resolves with the duplicate runs.
 * On a timeout, `explain` says where the first missing jobs are.
 */
export async function everyConfirmedJobRan(
  redis: Redis,
  done: string,
  confirmed: Set<string>,
  timeoutMs: number,
  explain: (missing: string[]) => Promise<string> = () => Promise.resolve(''),
): Promise<{ duplicates: number }> {
  const lost = async () => {
    const ran = new Set(await redis.lrange(done, 0, -1));
    return [...confirmed].filter((jid) => !ran.has(jid));
  };
  await waitFor(async () => (await lost()).length === 0, timeoutMs, 'every confirmed job to run').catch(
    async (err: unknown) => {
      const missing = await lost();
      throw new Error(
        `${(err as Error).message}: ${missing.length} of ${confirmed.size} missing ${await explain(missing.slice(0, 10))}`,
      );
    },
  );
  const runs = await redis.lrange(done, 0, -1);
  return { duplicates: runs.length - new Set(runs).size };
}
