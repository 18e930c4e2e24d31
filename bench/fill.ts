// Fills a queue with no-op jobs through the public API (enqueueAll, CHUNK jobs per round trip).
import type { Nexq } from '../src/nexq';

export const CHUNK = 1000;
export const NOOP = 'Noop';

/** Enqueues `count` Noop jobs into `queue`; resolves to the seconds it took. */
export async function fillQueue(nexq: Nexq, queue: string, count: number, chunk = CHUNK): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    await nexq.enqueueAll(Array.from({ length: n }, (_, i) => ({ queue, class: NOOP, args: [done + i] })));
  }
  return (performance.now() - started) / 1000;
}
