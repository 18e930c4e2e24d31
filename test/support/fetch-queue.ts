// What a test of the fetch script hands `fetchJobs` for one queue: its keys for node n1, the way
// the manager's ServedQueues builds them, with the test's own settings on top.
import type { Keys } from '../../src/redis/keys';
import type { FetchQueue } from '../../src/redis/fetch-script';

export function fetchQueueOf(keys: Keys, settings: Partial<FetchQueue> = {}, name = 'q'): FetchQueue {
  return {
    name,
    queueKey: keys.queue(name),
    backupKey: keys.backup('n1', name),
    runningKey: keys.running(name),
    rateKey: keys.rate(name),
    count: 1,
    ...settings,
  };
}
