// Fetch calls a poll stopped waiting for. In the per-queue key layout a fetch is one call per
// queue, and on a Redis Cluster a call whose slot is migrating waits until the move ends (TRYAGAIN
// until then: src/redis/connection.ts), seconds maybe. A poll waits for its calls LATE_AFTER_MS at
// most, hands over what answered, and lets each late call answer as a message; until it is
// handled its queues' free slots are spoken for and its backup list may hold jobs not dispatched
// yet, so the queue is left out of fetches and reclaims. One moving queue holds back no other.
import type { Fetched, FetchCall } from '../redis/fetch-script';

/** How long a poll waits for its fetch calls before it hands over the answers it has. */
export const LATE_AFTER_MS = 250;

/** A call's answer: what it fetched, or why it failed. */
export interface FetchAnswer {
  call: FetchCall;
  fetched?: Fetched;
  error?: Error;
}

export class LateFetches {
  private readonly out = new Map<string, FetchCall>();

  /** `late` hears each late call's answer (the manager's mailbox). */
  constructor(private readonly late: (answer: FetchAnswer) => void) {}

  /** The queues with a late fetch out, or answered and not handled yet. */
  queues(): string[] {
    return [...this.out.keys()];
  }

  /** A late fetch of `queue` is out. */
  has(queue: string): boolean {
    return this.out.has(queue);
  }

  /**
   * Waits up to LATE_AFTER_MS for `calls` to answer and resolves to the answers that came; each
   * call still out goes on, its queues marked, and its answer goes to `late`.
   */
  async collect(calls: FetchCall[]): Promise<FetchAnswer[]> {
    const answers = new Map<FetchCall, FetchAnswer>();
    const settle = (call: FetchCall) =>
      call.answer.then(
        (fetched) => void answers.set(call, { call, fetched }),
        (error: unknown) => void answers.set(call, { call, error: error as Error }),
      );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(calls.map(settle)),
      new Promise((resolve) => (timer = setTimeout(resolve, LATE_AFTER_MS))),
    ]);
    clearTimeout(timer);
    for (const call of calls) if (!answers.has(call)) this.expect(call);
    return calls.flatMap((call) => answers.get(call) ?? []);
  }

  /** `call` is out, its queues marked, and its answer goes to `late` (a waiting fetch's: ./waiting-fetch.ts). */
  expect(call: FetchCall): void {
    for (const q of call.queues) this.out.set(q.name, call);
    call.answer.then(
      (fetched) => this.late({ call, fetched }),
      (error: unknown) => this.late({ call, error: error as Error }),
    );
  }

  /** A late call's answer is being handled: its queues are no longer out. */
  answered(call: FetchCall): void {
    for (const q of call.queues) if (this.out.get(q.name) === call) this.out.delete(q.name);
  }
}
