// Fills a queue with no-op jobs (or W6's CPU jobs) through the public API (enqueueAll, CHUNK jobs
// per round trip).
import type { Nexq } from '../src/nexq';

export const CHUNK = 1000;
export const NOOP = 'Noop';

/**
 * Enqueues `count` jobs of `className` (Noop unless given) into `queue`, each with its index and
 * then `moreArgs` as args; resolves to the seconds it took.
 */
export async function fillQueue(
  nexq: Nexq,
  queue: string,
  count: number,
  chunk = CHUNK,
  className = NOOP,
  moreArgs: unknown[] = [],
): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    await nexq.enqueueAll(
      Array.from({ length: n }, (_, i) => ({ queue, class: className, args: [done + i, ...moreArgs] })),
    );
  }
  return (performance.now() - started) / 1000;
}
