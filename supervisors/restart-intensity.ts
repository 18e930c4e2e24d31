// Restart intensity: a supervisor may restart at most `maxRestarts` times within `maxSeconds`.
// Past that, restarting is not helping (a dependency is down, or the bug is deterministic), so the
// supervisor gives up and lets its parent decide: OTP's rule, which stops crash loops spreading.
import { NexqError } from '../config/nexq-error';
import { describeReason, ExitReason } from '../src/runtime';

export class RestartIntensity {
  private restarts: number[] = [];

  constructor(
    readonly maxRestarts: number,
    readonly maxSeconds: number,
  ) {}

  /** Records a restart now; false when that restart would exceed the intensity. */
  allowRestart(now: number = Date.now()): boolean {
    const windowStart = now - this.maxSeconds * 1000;
    this.restarts = this.restarts.filter((t) => t > windowStart);
    this.restarts.push(now);
    return this.restarts.length <= this.maxRestarts;
  }
}

export class RestartIntensityError extends NexqError {
  static override readonly code = 'RESTART_INTENSITY';
  override readonly name = 'RestartIntensityError';
  constructor(
    readonly supervisor: string,
    readonly childId: string,
    readonly lastReason: ExitReason,
  ) {
    super(`${supervisor} reached its restart intensity; ${childId} last exited with ${describeReason(lastReason)}`);
  }
}
