// The stop's one deadline for Redis. Every Redis step of a node's stop (the jobs' acks, the actors'
// last writes, removing the process entry, leaving the node list, giving the node id back, QUIT)
// is over by `shutdownTimeout` + STOP_REDIS_MARGIN_MS after the stop began, whether Redis answers
// or not. Without it each step waited out its own 10 s command timeout, one after another: a stop
// with Redis down took 45 s, past Kubernetes' 30 s grace period.
//
// Past the deadline the main client is closed: every command still waiting on it fails at once,
// so the actors still stopping finish, and the steps not yet taken are skipped. The node says so
// once, at warn, with what it left in Redis to expire and where its unfinished jobs wait. Nothing
// is lost by it: a job the stop could not put back stays in this node's backup list, recovered by
// another node's reaper after `nodeTimeout`, or (a fixed node id) at this node's next boot.
import type { NodeContext } from '../run/node-context';
import { whenBackupRunsAgain } from './process-faults';
import { PROCESS_TTL_SECONDS } from '../actors/heartbeat';
import { closeNow } from '../redis/close-now';

/** What the stop's Redis work may take beyond `shutdownTimeout`: the acks and the clean-up after the jobs. */
export const STOP_REDIS_MARGIN_MS = 3000;

/** The clean-up after the tree always gets this long, however long the jobs took. */
export const CLEANUP_FLOOR_MS = 1000;

export class StopDeadline {
  private at: number;
  private timer?: NodeJS.Timeout;
  private reached = false;
  private readonly onReached: Array<() => void> = [];

  constructor(private readonly ctx: NodeContext) {
    this.at = Date.now() + ctx.config.shutdownTimeout + STOP_REDIS_MARGIN_MS;
    this.arm();
  }

  /** True once the deadline passed: the main client is closed, the steps left are skipped. */
  get passed(): boolean {
    return this.reached;
  }

  /** Moves the deadline so that `ms` are left from now, when fewer are (never earlier). */
  leaveAtLeast(ms: number): void {
    if (this.reached || this.at - Date.now() >= ms) return;
    this.at = Date.now() + ms;
    this.arm();
  }

  /** Waits for `step` until the deadline; resolves either way (a step catches its own errors). */
  async within(step: Promise<unknown>): Promise<void> {
    if (this.reached) return;
    await new Promise<void>((resolve) => {
      this.onReached.push(resolve);
      step.then(
        () => resolve(),
        () => resolve(),
      );
    });
  }

  /** The stop is done with Redis: no cut-off comes any more. */
  end(): void {
    clearTimeout(this.timer);
    this.onReached.length = 0;
  }

  private arm(): void {
    clearTimeout(this.timer);
    // unref: a stop that ends early (or a caller that forgot end()) is never held up by it.
    this.timer = setTimeout(() => this.reach(), Math.max(0, this.at - Date.now())).unref();
  }

  private reach(): void {
    this.reached = true;
    this.ctx.logger.warn(this.leftBehind(), { actor: 'node' });
    closeNow(this.ctx.redis);
    for (const resolve of this.onReached.splice(0)) resolve();
  }

  /** The one line: why the stop went on without Redis, and what Redis still holds of this node. */
  private leftBehind(): string {
    const { config, keys } = this.ctx;
    const why =
      `Redis did not answer the stop within shutdownTimeout (${config.shutdownTimeout} ms) + ` +
      `${STOP_REDIS_MARGIN_MS} ms: the node stops without it`;
    if (config.mode !== 'default') return why;
    return (
      `${why}; Redis keeps this node's process entry until it expires (${PROCESS_TTL_SECONDS} s) and its place in ` +
      `the node list${this.ctx.nodeClaim ? ` and its claim on node id ${config.nodeId}` : ''} until nodeTimeout ` +
      `(${config.nodeTimeout} s); jobs it did not put back wait in its backup lists ` +
      `(${keys.backup(config.nodeId, '<queue>')}): ${whenBackupRunsAgain(config)}`
    );
  }
}
