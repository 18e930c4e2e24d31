// The order in which one poll fetches from the queues. Without a node-wide cap every queue takes
// all its own free slots and the order does not matter. With `totalConcurrency`, the fetch script
// takes from the queues in this order until the cap is reached, so a queue that is empty gives its
// turn to the next one: queue order (strict priority, the default), or — when any queue has a
// weight — an order drawn at random by weight (gocraft's priority sampler: a queue of weight w
// comes first w times in W, so a heavy queue gets most slots and a light one is never starved).
import type { ResolvedQueue } from '../../config/queue-options';

export function fetchOrder<Q extends Pick<ResolvedQueue, 'name' | 'weight'>>(
  queues: Q[],
  random: () => number = Math.random,
): Q[] {
  if (!queues.some((q) => q.weight !== undefined)) return queues;
  const left = [...queues];
  const order: Q[] = [];
  while (left.length > 0) {
    const sum = left.reduce((acc, q) => acc + (q.weight ?? 1), 0);
    let r = random() * sum;
    let pick = left.length - 1;
    for (let i = 0; i < left.length; i++) {
      r -= left[i].weight ?? 1;
      if (r < 0) {
        pick = i;
        break;
      }
    }
    order.push(left.splice(pick, 1)[0]);
  }
  return order;
}
