// Which queue gets how many of this poll's free slots. Without a node-wide cap every queue takes
// all its own free slots. With `totalConcurrency`, the slots left are handed out one at a time:
// in queue order (strict priority, the default), or — when any queue has a weight — to a queue
// drawn at random in proportion to its weight among those with room (gocraft's priority sampler),
// so a heavy queue gets most slots and a light one is never starved.
import type { ResolvedQueue } from '../../config/validate';

export function shareSlots(
  queues: ResolvedQueue[],
  free: (q: ResolvedQueue) => number,
  total: number,
  random: () => number = Math.random,
): Map<string, number> {
  const room = new Map(queues.map((q) => [q.name, free(q)]));
  if (!Number.isFinite(total)) return room;
  const shares = new Map<string, number>();
  const weighted = queues.some((q) => q.weight !== undefined);
  let left = Math.max(0, total);
  while (left > 0) {
    const candidates = queues.filter((q) => (room.get(q.name) ?? 0) > 0);
    if (candidates.length === 0) break;
    let pick = candidates[0];
    if (weighted) {
      const sum = candidates.reduce((acc, q) => acc + (q.weight ?? 1), 0);
      let r = random() * sum;
      for (const q of candidates) {
        r -= q.weight ?? 1;
        if (r < 0) {
          pick = q;
          break;
        }
      }
    }
    room.set(pick.name, room.get(pick.name)! - 1);
    shares.set(pick.name, (shares.get(pick.name) ?? 0) + 1);
    left--;
  }
  return shares;
}
