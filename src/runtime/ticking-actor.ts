// An actor whose work is one round repeated on a timer: the scheduler, the heartbeat, the stats
// flush, the node reaper and the periodic enqueuer. A round that throws (Redis away, say) is logged
// and the next one comes anyway: these actors ride out an outage instead of crash-looping their
// supervisor, and only a bug elsewhere in them can crash them.
import type { Logger } from './logger';
import { Actor, ActorOptions, Down } from './actor';

export type Tick = { type: 'tick' };

export interface TickingActorOptions extends ActorOptions {
  logger: Logger;
  /** Names a failed round in the log: "`what` failed: <error>". */
  what: string;
}

export abstract class TickingActor extends Actor<never, never, Tick> {
  private tickTimer?: NodeJS.Timeout;
  private readonly logger: Logger;
  private readonly what: string;

  constructor(options: TickingActorOptions) {
    super(options);
    this.logger = options.logger;
    this.what = options.what;
  }

  /** One round of the actor's work. */
  protected abstract tick(): Promise<void>;

  /** Milliseconds to the next round; `failed` when this one threw. */
  protected abstract nextTickMs(failed: boolean): number;

  /** Milliseconds to the first round (default: at once). */
  protected firstTickMs(): number {
    return 0;
  }

  /** A subclass may do work before its first round (the Actor's init may be async). */
  protected override init(): Promise<void> | void {
    this.tickTimer = this.sendAfter({ type: 'tick' }, this.firstTickMs());
  }

  protected override async handleInfo(msg: Tick | Down): Promise<void> {
    if (msg.type !== 'tick') return;
    let failed = false;
    try {
      await this.tick();
    } catch (err) {
      failed = true;
      this.logger.warn(`${this.what} failed: ${(err as Error).message}`, { actor: this.name });
    }
    this.tickTimer = this.sendAfter({ type: 'tick' }, this.nextTickMs(failed));
  }

  protected override terminate(): void | Promise<void> {
    this.cancelTimer(this.tickTimer);
  }
}
