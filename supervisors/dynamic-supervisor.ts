// A supervisor of children started at run time (OTP's DynamicSupervisor): the per-job runners.
//
// Responsibilities:
//  1. Start a child on request and watch it; children are temporary unless their spec says so.
//  2. Restart permanent / transient children by the same rules and intensity as `Supervisor`.
//  3. On stop, stop every child at once (they are independent) and wait for each up to its
//     shutdown timeout: for job runners this is the graceful drain of running jobs.
import { Actor, ActorExitedError, ActorOptions, ActorSnapshot, AnyActor, Down, isDown } from '../src/runtime';
import { RestartIntensity, RestartIntensityError } from './restart-intensity';
import { ChildSpec, DEFAULT_SHUTDOWN_MS, shouldRestart } from './supervisor';

export interface DynamicSupervisorOptions extends ActorOptions {
  maxRestarts?: number;
  maxSeconds?: number;
}

export class DynamicSupervisor extends Actor<never, never, Down> {
  private readonly children = new Map<number, { spec: ChildSpec; actor: AnyActor }>();
  private readonly intensity: RestartIntensity;

  constructor(options: DynamicSupervisorOptions = {}) {
    super(options);
    this.intensity = new RestartIntensity(options.maxRestarts ?? 3, options.maxSeconds ?? 5);
  }

  get count(): number {
    return this.children.size;
  }

  /** Its children are counted, not listed: one per running job can be thousands. */
  snapshot(): ActorSnapshot {
    return { id: this.name, state: this.state, restarts: 0, strategy: 'dynamic', running: this.children.size };
  }

  /** Starts a child from `spec` (temporary unless it says otherwise) and supervises it. */
  async startChild<A extends AnyActor>(spec: ChildSpec): Promise<A> {
    if (!this.alive) throw new ActorExitedError(this.name, 'stopping');
    const actor = await spec.start();
    this.adopt({ restart: 'temporary', ...spec }, actor);
    return actor as A;
  }

  protected override async handleInfo(msg: Down): Promise<void> {
    if (!isDown(msg)) return; // only monitors' notices come here
    const child = this.children.get(msg.ref);
    if (!child) return;
    this.children.delete(msg.ref);
    if (!shouldRestart(child.spec.restart ?? 'temporary', msg.reason)) return;
    let reason = msg.reason;
    for (;;) {
      if (!this.intensity.allowRestart()) throw new RestartIntensityError(this.name, child.spec.id, reason);
      try {
        this.adopt(child.spec, await child.spec.start());
        return;
      } catch (err) {
        reason = err;
      }
    }
  }

  protected override async terminate(): Promise<void> {
    const children = [...this.children];
    this.children.clear();
    await Promise.all(
      children.map(([ref, { spec, actor }]) => {
        this.demonitor(actor, ref);
        return actor.stop('shutdown', spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS);
      }),
    );
  }

  private adopt(spec: ChildSpec, actor: AnyActor): void {
    if (!this.alive) {
      actor.stop('shutdown', spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS).catch(() => {}); // stop() never rejects
      throw new ActorExitedError(this.name, 'stopping');
    }
    const ref = this.monitor(actor);
    this.children.set(ref, { spec, actor });
  }
}
