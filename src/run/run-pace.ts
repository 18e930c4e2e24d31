// How long each queue's jobs have lately run on this node: from the start the main thread hears of
// to the end it hears of. Both come in a thread's TURN messages (workers/run-queue.ts), so a job
// that starts and ends within one of the thread's turns counts as 0 ms: the figure is what the
// main thread sees, which is what deciding how many jobs to hand over ahead needs
// (src/fetch/served-queues.ts keeps more of a queue's jobs ahead of its slots while they run
// shorter than a refill takes).

/** Weight of the newest run in the moving average: the last few dozen runs count. */
const WEIGHT = 1 / 16;

export class RunPace {
  private readonly mean = new Map<string, number>();

  /** A job of `queue` ran `ms` (its start to its end, as heard here). */
  record(queue: string, ms: number): void {
    const mean = this.mean.get(queue);
    this.mean.set(queue, mean === undefined ? ms : mean + (ms - mean) * WEIGHT);
  }

  /** The moving average of `queue`'s runs in ms; undefined before one of its jobs ended here. */
  of(queue: string): number | undefined {
    return this.mean.get(queue);
  }
}
